/**
 * The security module the enclave boots from: its random source, PCR0 and attestation. On AWS Nitro this
 * is the NSM device (enclave/nitro.ts); local mode (development and tests, explicit --local only) uses the
 * OS's randomness, has no PCR0 and signs attestation documents with a per-process development key.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";

/** NSM limits on attestation inputs (bytes). */
export const MAX_USER_DATA_BYTES = 512;
export const MAX_NONCE_BYTES = 512;
export const MAX_PUBLIC_KEY_BYTES = 1024;
export const PCR0_LENGTH = 48;

export interface AttestationRequest {
  readonly publicKey: Uint8Array;
  readonly userData: Uint8Array | null;
  readonly nonce: Uint8Array | null;
}

export interface SecurityModule {
  readonly mode: "local" | "nitro";
  /** Bytes from the module's random source. */
  randomBytes(length: number): Uint8Array;
  /** PCR0 measured at boot, or null when the module has none (local mode). */
  pcr0(): Uint8Array | null;
  /** A raw COSE_Sign1 attestation document embedding the request. */
  attest(request: AttestationRequest): Promise<Uint8Array>;
}

/** PCR0 is present but not 48 bytes: start-up aborts. */
export class Pcr0LengthError extends Error {
  override readonly name = "Pcr0LengthError";
  constructor(readonly length: number) {
    super(`PCR0 must be ${PCR0_LENGTH} bytes, got ${length}: aborting start-up`);
  }
}

/** An attestation input over the module's limit. */
export class AttestationInputTooLargeError extends Error {
  override readonly name = "AttestationInputTooLargeError";
}

/** tee_image_hash = keccak256(PCR0); 32 zero bytes without a PCR0 (local mode). */
export function teeImageHashOf(pcr0: Uint8Array | null): Uint8Array {
  if (pcr0 === null) return new Uint8Array(32);
  if (pcr0.length !== PCR0_LENGTH) throw new Pcr0LengthError(pcr0.length);
  return keccak_256(pcr0);
}

/** Enforces the NSM input limits (the host enforces 512 bytes before contacting an enclave, too). */
export function checkAttestationRequest(request: AttestationRequest): void {
  const limits: [string, Uint8Array | null, number][] = [
    ["user_data", request.userData, MAX_USER_DATA_BYTES],
    ["nonce", request.nonce, MAX_NONCE_BYTES],
    ["public_key", request.publicKey, MAX_PUBLIC_KEY_BYTES],
  ];
  for (const [what, value, max] of limits) {
    if (value !== null && value.length > max) {
      throw new AttestationInputTooLargeError(`${what} is ${value.length} bytes, the limit is ${max}`);
    }
  }
}
