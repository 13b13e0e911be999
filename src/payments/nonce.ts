/** Authorization nonces: 32 bytes from the platform CSPRNG. */
import { randomBytes } from "node:crypto";
import { bytesToHex, type Hex, isHex } from "viem";

export const NONCE_LENGTH = 32;

export function randomNonce(): Hex {
  return bytesToHex(randomBytes(NONCE_LENGTH));
}

export function isNonce(value: unknown): value is Hex {
  return typeof value === "string" && isHex(value, { strict: true }) && value.length === 2 + 2 * NONCE_LENGTH;
}
