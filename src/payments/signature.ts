/**
 * 65-byte ECDSA signatures as the token takes them: split into (v, r, s) with v normalised to
 * 27 + yParity (viem's parseSignature leaves v undefined for 0/1 signatures), joined back, and
 * checked for the low-s rule the token enforces for accounts without code.
 */
import { bytesToHex, type Hex, hexToBytes, isHex } from "viem";
import { MalformedSignatureError } from "./errors.js";
import type { SplitSignature } from "./types.js";

export const SIGNATURE_LENGTH = 65;

/** secp256k1 group order, and the largest s the token accepts (n / 2). */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const SECP256K1_HALF_N = SECP256K1_N >> 1n;

function signatureBytes(signature: Hex): Uint8Array {
  if (typeof signature !== "string" || !isHex(signature, { strict: true })) {
    throw new MalformedSignatureError("signature is not a 0x-prefixed hex string");
  }
  // Cap before decoding: exactly 65 bytes is the only accepted length.
  if (signature.length !== 2 + 2 * SIGNATURE_LENGTH) {
    throw new MalformedSignatureError(
      `signature must be ${SIGNATURE_LENGTH} bytes, got ${(signature.length - 2) / 2}`,
    );
  }
  return hexToBytes(signature);
}

/** Splits r | s | v; v may be 0/1 (yParity) or 27/28 and comes back as 27/28. */
export function splitSignature(signature: Hex): SplitSignature {
  const bytes = signatureBytes(signature);
  const vByte = bytes[64] as number;
  let yParity: 0 | 1;
  if (vByte === 0 || vByte === 27) yParity = 0;
  else if (vByte === 1 || vByte === 28) yParity = 1;
  else throw new MalformedSignatureError(`signature v must be 0, 1, 27 or 28, got ${vByte}`);
  return {
    v: yParity === 0 ? 27 : 28,
    yParity,
    r: bytesToHex(bytes.subarray(0, 32)),
    s: bytesToHex(bytes.subarray(32, 64)),
  };
}

/** r | s | v with v in {27, 28}: the form the token's `bytes signature` overloads take for EOAs. */
export function joinSignature(split: SplitSignature): Hex {
  const out = new Uint8Array(SIGNATURE_LENGTH);
  out.set(hexToBytes(split.r, { size: 32 }), 0);
  out.set(hexToBytes(split.s, { size: 32 }), 32);
  out[64] = split.v;
  return bytesToHex(out);
}

/** Normalises any accepted signature to v in {27, 28}. */
export function normaliseSignature(signature: Hex): Hex {
  return joinSignature(splitSignature(signature));
}

/** True when s is at most n / 2 (the token rejects the malleable high-s twin). */
export function isLowS(split: SplitSignature): boolean {
  return BigInt(split.s) <= SECP256K1_HALF_N;
}
