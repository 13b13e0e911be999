/** Byte helpers of the attributes stage (fixed-width big-endian fields, hex constants, keccak256). */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { hexToBytes } from "@noble/hashes/utils.js";

/** Bytes of a hex constant, with or without `0x`. */
export function hexBytes(hex: string): Uint8Array {
  return hexToBytes(hex.startsWith("0x") ? hex.slice(2) : hex);
}

export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when bytes [from, to) of `data` are all zero. */
export function isZeroRange(data: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (data[i] !== 0) return false;
  return true;
}

/** Unsigned big-endian integer of bytes [from, to). */
export function readUint(data: Uint8Array, from: number, to: number): bigint {
  let v = 0n;
  for (let i = from; i < to; i++) v = (v << 8n) | BigInt(data[i]!);
  return v;
}

/** Writes `value` big-endian into bytes [from, from + width); RangeError when it does not fit. */
export function writeUint(out: Uint8Array, from: number, width: number, value: bigint): void {
  if (value < 0n || value >= 1n << BigInt(8 * width))
    throw new RangeError(`value ${value} does not fit ${width} bytes`);
  let v = value;
  for (let i = from + width - 1; i >= from; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/** A 32-byte big-endian word. */
export function word(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  writeUint(out, 0, 32, value);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  let s = "0x";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}
