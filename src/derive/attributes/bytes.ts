/** Byte helpers of the attributes stage: fixed-width big-endian fields (hex, keccak and words come from src/chain). */

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
