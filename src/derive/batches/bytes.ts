/**
 * Byte-level helpers of the batch codecs: strict (canonical) RLP item reading, unsigned varints, span-batch
 * bitlists and a growable writer. Every refusal is a DroppedInputError("batches") naming the field and the
 * offset of the offending byte, relative to the start of the batch the caller decodes.
 */
import { DroppedInputError } from "../errors.js";

/** Throws the stage's refusal for invalid batch bytes. */
export function refuse(
  field: string,
  offset: number,
  message: string,
  extra?: Record<string, unknown>,
): never {
  throw new DroppedInputError("batches", `${field}: ${message}`, { field, offset, ...extra });
}

/**
 * A strict RLP reader over `buf`. Each read leaves the item it read in `isList`, `start` and `end` (its
 * payload) and `next` (the offset just after it), so loops read without allocating. Every non-canonical form
 * is refused, as Go's rlp package and alloy-rlp do: a single byte below 0x80 behind a 0x81 header, long-form
 * lengths under 56 or with leading zero bytes, lengths past the limit. `base` is added to error offsets.
 */
export class RlpReader {
  isList = false;
  start = 0;
  end = 0;
  next = 0;

  constructor(
    readonly buf: Uint8Array,
    readonly base = 0,
  ) {}

  /** Reads the item at `pos`, which must end by `limit`. */
  item(pos: number, limit: number, field: string): this {
    const buf = this.buf;
    const at = this.base + pos;
    if (pos >= limit) refuse(field, at, "unexpected end of data");
    const b = buf[pos]!;
    if (b < 0x80) {
      this.isList = false;
      this.start = pos;
      this.end = this.next = pos + 1;
      return this;
    }
    let list: boolean;
    let len: number;
    let start: number;
    if (b <= 0xb7 || (b >= 0xc0 && b <= 0xf7)) {
      list = b >= 0xc0;
      len = b - (list ? 0xc0 : 0x80);
      start = pos + 1;
      if (!list && len === 1) {
        if (start >= limit) refuse(field, at, "unexpected end of data");
        if (buf[start]! < 0x80) refuse(field, at, "non-canonical RLP: single byte below 0x80 has a header");
      }
    } else {
      list = b >= 0xf8;
      const lenOfLen = b - (list ? 0xf7 : 0xb7);
      if (pos + 1 + lenOfLen > limit) refuse(field, at, "unexpected end of data in RLP length");
      if (buf[pos + 1] === 0) refuse(field, at, "non-canonical RLP: length has leading zero bytes");
      // Lengths of more than 4 bytes exceed any buffer we hold: refuse before they lose precision.
      if (lenOfLen > 4) refuse(field, at, "RLP length exceeds the data");
      len = 0;
      for (let i = 0; i < lenOfLen; i++) len = len * 256 + buf[pos + 1 + i]!;
      if (len < 56) refuse(field, at, "non-canonical RLP: long form for a length under 56");
      start = pos + 1 + lenOfLen;
    }
    if (len > limit - start) refuse(field, at, "RLP length exceeds the data", { length: len });
    this.isList = list;
    this.start = start;
    this.end = this.next = start + len;
    return this;
  }

  /** Reads a byte string (not a list). */
  string(pos: number, limit: number, field: string): this {
    if (this.item(pos, limit, field).isList)
      refuse(field, this.base + pos, "expected an RLP string, found a list");
    return this;
  }

  /** Reads a list. */
  list(pos: number, limit: number, field: string): this {
    if (!this.item(pos, limit, field).isList)
      refuse(field, this.base + pos, "expected an RLP list, found a string");
    return this;
  }

  /** Reads a canonical unsigned integer of at most `maxBytes` bytes (no leading zero; zero is the empty string). */
  uint(pos: number, limit: number, field: string, maxBytes: number): this {
    this.string(pos, limit, field);
    const n = this.end - this.start;
    if (n > maxBytes) refuse(field, this.base + pos, `integer longer than ${maxBytes} bytes`);
    if (n > 0 && this.buf[this.start] === 0)
      refuse(field, this.base + pos, "non-canonical RLP integer: leading zero");
    return this;
  }

  /** Reads a byte string of exactly `size` bytes. */
  fixed(pos: number, limit: number, field: string, size: number): this {
    this.string(pos, limit, field);
    if (this.end - this.start !== size)
      refuse(field, this.base + pos, `expected ${size} bytes, found ${this.end - this.start}`);
    return this;
  }

  /** The value of the unsigned integer just read. */
  value(): bigint {
    return bytesToBig(this.buf, this.start, this.end);
  }
}

/** Big-endian bytes to bigint. */
export function bytesToBig(buf: Uint8Array, start: number, end: number): bigint {
  let v = 0n;
  let i = start;
  // Six bytes at a time stay exact in a double.
  for (; i + 6 <= end; i += 6) {
    v =
      (v << 48n) +
      BigInt(
        buf[i]! * 0x10000000000 + buf[i + 1]! * 0x100000000 + buf[i + 2]! * 0x1000000 + buf[i + 3]! * 0x10000,
      ) +
      BigInt(buf[i + 4]! * 0x100 + buf[i + 5]!);
  }
  for (; i < end; i++) v = (v << 8n) | BigInt(buf[i]!);
  return v;
}

/** Minimal big-endian bytes of a non-negative bigint (empty for zero). */
export function bigToMinimalBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  if (value < 0x1000000000000n) {
    // Up to six bytes: exact in a double.
    let n = Number(value);
    let len = 0;
    for (let m = n; m > 0; m = Math.floor(m / 256)) len++;
    const out = new Uint8Array(len);
    for (let i = len - 1; i >= 0; i--) {
      out[i] = n % 256;
      n = Math.floor(n / 256);
    }
    return out;
  }
  const hex = value.toString(16);
  const odd = hex.length & 1;
  const out = new Uint8Array((hex.length + odd) >> 1);
  for (let i = 0; i < out.length; i++) {
    const at = 2 * i - odd;
    out[i] = parseInt(at < 0 ? hex.slice(0, 1) : hex.slice(at, at + 2), 16);
  }
  return out;
}

/** A read position shared by the sequential readers. */
export interface Cursor {
  pos: number;
}

export const U64_MAX = (1n << 64n) - 1n;

/**
 * Reads an unsigned LEB128 varint of at most 64 bits at `cur.pos` and moves the cursor past it. Refuses
 * truncated input, more than 10 bytes, a value past 2^64 - 1 (a 10th byte above 1, as Go's
 * binary.ReadUvarint does; kona's unsigned-varint would drop those bits) and non-minimal encodings (a final
 * zero byte after the first, as unsigned-varint does; Go accepts them). Rejecting both keeps decoding
 * one-to-one: every accepted varint re-encodes to the same bytes.
 */
export function readUvarint(
  buf: Uint8Array,
  cur: Cursor,
  limit: number,
  field: string,
  base: number,
): bigint {
  const pos = cur.pos;
  // Fast path: up to 7 bytes (49 bits) fit a double exactly.
  let small = 0;
  let mul = 1;
  let i = pos;
  for (let n = 0; n < 7; n++, i++) {
    if (i >= limit) refuse(field, base + pos, "truncated varint");
    const b = buf[i]!;
    small += (b & 0x7f) * mul;
    if (b < 0x80) {
      if (b === 0 && n > 0) refuse(field, base + pos, "non-minimal varint");
      cur.pos = i + 1;
      return BigInt(small);
    }
    mul *= 128;
  }
  let value = BigInt(small);
  let shift = 49n;
  for (let n = 7; n < 10; n++, i++) {
    if (i >= limit) refuse(field, base + pos, "truncated varint");
    const b = buf[i]!;
    if (n === 9 && b > 1) refuse(field, base + pos, "varint overflows 64 bits");
    value |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      if (b === 0) refuse(field, base + pos, "non-minimal varint");
      cur.pos = i + 1;
      return value;
    }
    shift += 7n;
  }
  return refuse(field, base + pos, "varint overflows 64 bits");
}

/**
 * Reads a standard span-batch bitlist of `bitLength` bits: a big-endian integer left-padded with zeros to
 * whole bytes. Bit i (0 = least significant) becomes `out[i]` (0 or 1). Bits at or above `bitLength` must be
 * zero (op-node's "bitfield has more bits than expected"). Moves the cursor past the bitlist.
 */
export function readBits(
  buf: Uint8Array,
  cur: Cursor,
  limit: number,
  bitLength: number,
  field: string,
  base: number,
): Uint8Array {
  const pos = cur.pos;
  const byteLen = Math.ceil(bitLength / 8);
  if (byteLen > limit - pos) refuse(field, base + pos, "truncated bitlist", { bits: bitLength });
  const spare = byteLen * 8 - bitLength;
  if (spare > 0 && buf[pos]! >> (8 - spare) !== 0)
    refuse(field, base + pos, "bitlist has bits past its length");
  const out = new Uint8Array(bitLength);
  const last = pos + byteLen - 1;
  for (let i = 0; i < bitLength; i++) out[i] = (buf[last - (i >> 3)]! >> (i & 7)) & 1;
  cur.pos = pos + byteLen;
  return out;
}

/** A growable output buffer. */
export class ByteWriter {
  private buf: Uint8Array;
  length = 0;

  constructor(initial = 1024) {
    this.buf = new Uint8Array(Math.max(16, initial));
  }

  private ensure(extra: number): void {
    const need = this.length + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.length++] = b;
  }

  bytes(data: Uint8Array): void {
    this.ensure(data.length);
    this.buf.set(data, this.length);
    this.length += data.length;
  }

  /** Unsigned LEB128 varint (minimal form). */
  uvarint(value: bigint | number): void {
    this.ensure(10);
    if (typeof value === "number" && value < 0x20000000000000) {
      let v = value;
      while (v >= 0x80) {
        this.buf[this.length++] = (v % 128) | 0x80;
        v = Math.floor(v / 128);
      }
      this.buf[this.length++] = v;
      return;
    }
    let v = BigInt(value);
    while (v >= 0x80n) {
      this.buf[this.length++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.length++] = Number(v);
  }

  /** A standard span-batch bitlist of `bits.length` bits (`bits[i]` is 0 or 1). */
  bits(bits: ArrayLike<number>): void {
    const byteLen = Math.ceil(bits.length / 8);
    this.ensure(byteLen);
    const last = this.length + byteLen - 1;
    this.buf.fill(0, this.length, this.length + byteLen);
    for (let i = 0; i < bits.length; i++) if (bits[i]) this.buf[last - (i >> 3)]! |= 1 << (i & 7);
    this.length += byteLen;
  }

  /** An RLP header for a payload of `len` bytes (0xc0 base for lists, 0x80 for strings). */
  rlpHeader(len: number, list: boolean): void {
    const short = list ? 0xc0 : 0x80;
    this.ensure(9);
    if (len < 56) {
      this.buf[this.length++] = short + len;
      return;
    }
    const n = byteLength(len);
    this.buf[this.length++] = short + 55 + n;
    for (let i = n - 1; i >= 0; i--) this.buf[this.length++] = Math.floor(len / 256 ** i) % 256;
  }

  /** An RLP byte string. */
  rlpString(data: Uint8Array): void {
    if (data.length === 1 && data[0]! < 0x80) this.byte(data[0]!);
    else {
      this.rlpHeader(data.length, false);
      this.bytes(data);
    }
  }

  /** The written bytes (the buffer itself when it was sized exactly, else a trimmed copy). */
  finish(): Uint8Array {
    return this.length === this.buf.length ? this.buf : this.buf.slice(0, this.length);
  }
}

/** Bytes needed for a big-endian length. */
function byteLength(n: number): number {
  let k = 0;
  while (n > 0) {
    k++;
    n = Math.floor(n / 256);
  }
  return k;
}

/** Size of the RLP header for a payload of `len` bytes. */
export function rlpHeaderSize(len: number): number {
  return len < 56 ? 1 : 1 + byteLength(len);
}

/** Size of the RLP encoding of a byte string. */
export function rlpStringSize(data: Uint8Array): number {
  if (data.length === 1 && data[0]! < 0x80) return 1;
  return rlpHeaderSize(data.length) + data.length;
}
