/**
 * The suite's one reader of attestation documents, for the enclave and host checks alike: a COSE_Sign1
 * whose certificate chain and ES384 signature must verify (internally consistent, not pinned to a root:
 * which root a deployment trusts is the registrar's policy). The payload fields come back for the checks
 * to compare; a document that does not verify is a check failure.
 */
import { type AttestationDocument, verifyAttestationDocument } from "../src/attestation/index.js";
import { CheckFailed } from "./check.js";

export type { AttestationDocument };

/** Verifies and reads `document`; `what` names it in the failure (e.g. "document 1"). */
export async function readAttestation(document: Uint8Array, what: string): Promise<AttestationDocument> {
  try {
    return await verifyAttestationDocument(document);
  } catch (error) {
    throw new CheckFailed(
      `${what} is not a verifiable COSE_Sign1 attestation: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
