/**
 * The registrar (service; docs/enclave.md): verifies the enclaves behind a prover host by their attestations and
 * binds their signers in TEEProverRegistry. The process is src/registrar/main.ts.
 *
 * Public surface: `runRegistrarCli`, `readAttestedSigners`, `registerAttestedSigners`, `RegistryAdmin`, and the
 * errors (`RegistrarError` root).
 *
 * Concepts owned: an attested signer and its registration onchain.
 */
export { RegistrarError, type RegistrarErrorKind, type RegistrarErrorOptions } from "./errors.js";
export { REGISTRAR_USAGE, type RegistrarIo, RegistrarUsageError, runRegistrarCli } from "./cli.js";
export {
  ATTESTATION_NONCE_BYTES,
  AttestationMismatchError,
  AttestationRefusedError,
  type AttestedSigner,
  readAttestedSigners,
  type ReadAttestedSignersOptions,
} from "./attested-signers.js";
export { registerAttestedSigners, type RegistrationAction, type RegistrationOutcome } from "./register.js";
export {
  RegistryAdmin,
  type RegistryAdminOptions,
  RegistryTransactionRevertedError,
  RegistryWriteError,
  type SignerRecord,
} from "./registry-admin.js";
