/**
 * Attestation (library, rank 1; docs/enclave.md): AWS Nitro attestation documents.
 *
 * Public surface: verification (`verifyAttestation`, `verifyAttestationDocument`, `AttestationPolicy` and its
 * rules, `AWS_NITRO_ROOT_G1_SHA256`, the size and age limits), the local-mode document writer (`LocalAttestor`),
 * the TEE image hash a document proves (`teeImageHashOf`, `PCR0_LENGTH`), and the errors (`AttestationError` root).
 *
 * Concepts owned: the attestation document, its certificate chain and COSE signature checks, the image hash.
 */
export { AttestationError, type AttestationErrorKind, type AttestationErrorOptions } from "./errors.js";
export {
  type AttestationDocument,
  AttestationFormatError,
  type AttestationPolicy,
  AttestationPolicyError,
  type AttestationPolicyRule,
  AWS_NITRO_ROOT_G1_SHA256,
  DEFAULT_MAX_ATTESTATION_AGE_MS,
  LOCAL_MODULE_ID_PREFIX,
  MAX_ATTESTATION_DOCUMENT_BYTES,
  type VerifiedAttestation,
  verifyAttestation,
  verifyAttestationDocument,
} from "./verify.js";
export { LocalAttestor } from "./local-attestation.js";
export { PCR0_LENGTH, Pcr0LengthError, teeImageHashOf } from "./image-hash.js";
