/** Authorization nonces: 32 bytes from the platform CSPRNG (Web Crypto: Node and browsers alike). */
import { bytesToHex, type Hex, isHex } from "viem";

export const NONCE_LENGTH = 32;

export function randomNonce(): Hex {
  return bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(NONCE_LENGTH)));
}

export function isNonce(value: unknown): value is Hex {
  return typeof value === "string" && isHex(value, { strict: true }) && value.length === 2 + 2 * NONCE_LENGTH;
}
