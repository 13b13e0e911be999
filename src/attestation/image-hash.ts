/**
 * The TEE image hash an attestation proves: tee_image_hash = keccak256(PCR0), the 48-byte boot
 * measurement of a Nitro enclave; 32 zero bytes for a local-mode enclave, which has no PCR0. The enclave
 * commits it into every journal; the registrar binds signers to it.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { AttestationError } from "./errors.js";

/** Length of a Nitro PCR0 (SHA-384). */
export const PCR0_LENGTH = 48;

/** PCR0 is present but not 48 bytes: start-up aborts. */
export class Pcr0LengthError extends AttestationError<"pcr0-length"> {
  override readonly name = "Pcr0LengthError";
  constructor(readonly length: number) {
    super(`PCR0 must be ${PCR0_LENGTH} bytes, got ${length}: aborting start-up`, {
      kind: "pcr0-length",
      details: { length },
    });
  }
}

/** tee_image_hash = keccak256(PCR0); 32 zero bytes without a PCR0 (local mode). */
export function teeImageHashOf(pcr0: Uint8Array | null): Uint8Array {
  if (pcr0 === null) return new Uint8Array(32);
  if (pcr0.length !== PCR0_LENGTH) throw new Pcr0LengthError(pcr0.length);
  return keccak_256(pcr0);
}
