/**
 * The security module the enclave boots from: its random source, PCR0 and attestation. On AWS Nitro this
 * is the NSM device (enclave/nitro.ts); local mode (development and tests, explicit --local only) uses the
 * OS's randomness, has no PCR0 and signs attestation documents with a per-process development key.
 */
import { EnclaveError } from "./errors.js";

/** NSM limits on attestation inputs (bytes). */
export const MAX_USER_DATA_BYTES = 512;
export const MAX_NONCE_BYTES = 512;
export const MAX_PUBLIC_KEY_BYTES = 1024;

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

/** An attestation input over the module's limit. */
export class AttestationInputTooLargeError extends EnclaveError<"attestation-input-too-large"> {
  override readonly name = "AttestationInputTooLargeError";
  constructor(
    message: string,
    details: { readonly input: string; readonly length: number; readonly limit: number },
  ) {
    super(message, { kind: "attestation-input-too-large", details });
  }
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
      throw new AttestationInputTooLargeError(`${what} is ${value.length} bytes, the limit is ${max}`, {
        input: what,
        length: value.length,
        limit: max,
      });
    }
  }
}
