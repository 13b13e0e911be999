/**
 * The enclave process's parts, for the conformance suite and tests that run an enclave in-process: request
 * handlers, the proof program as the enclave runs it, the signer, the security modules and the local-mode
 * server. The process itself is enclave/main.ts. What the enclave shares with the host, the registrar and
 * the conformance suite is in the src/proof packages: boot keys and preimages (src/proof/preimages), config
 * hashes, journals and signer addresses (src/proof/onchain), the program (src/proof/program), listen addresses and
 * frame writes (src/proof/transport).
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
