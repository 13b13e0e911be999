/**
 * Attestation documents: verification of AWS Nitro (and local-mode development) documents, the
 * local-mode document writer, and the TEE image hash a document proves.
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
