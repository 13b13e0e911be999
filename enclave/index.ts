/**
 * The enclave (service; docs/enclave.md): the process that verifies a proof request's preimages, runs the proof
 * program and signs the result, inside an AWS Nitro enclave or, in local mode, on the host. The process itself is
 * enclave/main.ts; this index serves the conformance suite and tests that run an enclave in-process.
 *
 * Public surface: the request handlers (`enclaveHandlers`, `handleRequest`), the proof program as the enclave runs
 * it (`runProof`, `enclaveChains`, `developmentChain`), the signer (`EnclaveSigner`), the command line
 * (`parseEnclaveCommandLine`, `ENCLAVE_FLAGS`, `ENCLAVE_USAGE`, `checkNitroFlags`), the security modules
 * (`SecurityModule`, `LocalSecurityModule`, `NitroSecurityModule`, attestation request checks), the local-mode
 * server (`EnclaveServer`), its JSON-lines logger, and the errors (`EnclaveError` root).
 *
 * Concepts owned: the enclave's identity (its signing key, made inside and never leaving), which chains it proves
 * for, the attestation it gives for its key, and the bounds on what one request may cost it. What it shares with
 * the host, the registrar and the conformance suite is in the src/proof packages: boot keys and preimages
 * (src/proof/preimages), config hashes, journals and signer addresses (src/proof/onchain), the program
 * (src/proof/program), listen addresses and frame writes (src/proof/transport).
 */
export { EnclaveError, type EnclaveErrorKind, type EnclaveErrorOptions } from "./errors.js";
export {
  type EnclaveIdentity,
  enclaveHandlers,
  errorMessage,
  handleRequest,
  type RequestHandlerDeps,
} from "./handler.js";
export {
  type DevelopmentChain,
  developmentChain,
  type EnclaveChains,
  enclaveChains,
  type ProofProgram,
  type RangeExecutor,
  runProof,
} from "./prove.js";
export { EnclaveSigner, type RandomSource } from "./signer.js";
export {
  checkNitroFlags,
  ENCLAVE_FLAGS,
  ENCLAVE_USAGE,
  type EnclaveCommandLine,
  type EnclaveConfig,
  EnclaveConfigError,
  parseEnclaveCommandLine,
} from "./config.js";
export {
  type AttestationRequest,
  AttestationInputTooLargeError,
  checkAttestationRequest,
  MAX_NONCE_BYTES,
  MAX_PUBLIC_KEY_BYTES,
  MAX_USER_DATA_BYTES,
  type SecurityModule,
} from "./security-module.js";
export { LocalSecurityModule } from "./local-security-module.js";
export {
  NitroRandomSourceError,
  NitroSecurityModule,
  NitroUnavailableError,
  openNitroSecurityModule,
} from "./nitro.js";
export {
  EnclaveBusyError,
  EnclaveHungUpError,
  EnclaveServer,
  type EnclaveServerOptions,
  type RequestContext,
  type ServerAddress,
} from "./server.js";
export { jsonLinesLogger, type LogFields, type Logger, silentLogger } from "./log.js";
