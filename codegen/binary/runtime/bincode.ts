/**
 * bincode 2 "standard" configuration primitives (varint integers, little-endian), as a Rust serde peer
 * writes them. Copied verbatim into generated/protocol/bincode.ts by codegen/binary; the generated codecs
 * are built on these two classes. Every read is bounds-checked before anything is allocated.
 */

import { ProtocolError } from "./protocol-error.js";

/** A payload that does not decode under the protocol's rules (truncated, trailing bytes, bad tag, ...). */
export class BincodeDecodeError extends ProtocolError<"decode-failed"> {
  constructor(
    message: string,
    /** Byte offset in the payload where decoding failed. */
    readonly offset: number,
  ) {
    super(`${message} (at byte ${offset})`, { kind: "decode-failed", details: { offset } });
  }
}

/** A value that cannot be encoded (out-of-range integer, wrong fixed length, ...). */
export class BincodeEncodeError extends ProtocolError<"encode-failed"> {
  constructor(message: string) {
    super(message, { kind: "encode-failed" });
  }
}

const U16_MARKER = 0xfb;
const U32_MARKER = 0xfc;
const U64_MARKER = 0xfd;
const U128_MARKER = 0xfe;
const SINGLE_BYTE_MAX = 250n;
const U16_MAX = 0xffffn;
const U32_MAX = 0xffff_ffffn;
const U64_MAX = 0xffff_ffff_ffff_ffffn;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Appends bincode values to a growing buffer. `form` names the protocol's message form the generated writers
 * follow (variant indices and fields that only some forms carry); the empty string is the spec's default form.
 */
export class BincodeWriter {
  private buffer: Uint8Array;
  private length: number;
  /** Where the written values start: after `headroom` bytes left for the caller. */
  private readonly start: number;

  /**
   * `capacity`: bytes to allocate for the values up front (default 64; the buffer doubles whenever it is short, so
   * a caller that knows the size of a large message avoids the copies). `headroom`: bytes before the values that
   * the caller fills (a frame's length prefix, see `withHeadroom`).
   */
  constructor(
    readonly form: string = "",
    options: { readonly capacity?: number; readonly headroom?: number } = {},
  ) {
    this.start = options.headroom ?? 0;
    this.length = this.start;
    this.buffer = new Uint8Array(this.start + Math.max(options.capacity ?? 64, 1));
  }

  /** Bytes of values written so far (the headroom not counted). */
  get written(): number {
    return this.length - this.start;
  }

  private reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < needed) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
  }

  /** A raw byte (u8, Option tag, bool). */
  u8(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 0xff)
      throw new BincodeEncodeError(`u8 out of range: ${value}`);
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  /** Bytes written as they are (fixed arrays, the body of a byte string). */
  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** An unsigned integer of at most `bits` bits as a bincode varint. */
  varint(value: bigint, bits: 16 | 32 | 64): void {
    const max = bits === 16 ? U16_MAX : bits === 32 ? U32_MAX : U64_MAX;
    if (value < 0n || value > max) throw new BincodeEncodeError(`u${bits} out of range: ${value}`);
    if (value <= SINGLE_BYTE_MAX) {
      this.u8(Number(value));
      return;
    }
    const width = value <= U16_MAX ? 2 : value <= U32_MAX ? 4 : 8;
    this.u8(width === 2 ? U16_MARKER : width === 4 ? U32_MARKER : U64_MARKER);
    this.reserve(width);
    let rest = value;
    for (let i = 0; i < width; i++) {
      this.buffer[this.length++] = Number(rest & 0xffn);
      rest >>= 8n;
    }
  }

  /** A collection length or byte-string length (usize, written as u64). */
  length64(count: number): void {
    this.varint(BigInt(count), 64);
  }

  /** An enum variant index (u32). */
  variant(index: number): void {
    this.varint(BigInt(index), 32);
  }

  /** Length-prefixed bytes (Vec<u8>, alloy Bytes), at most `maxLength` of them when the type caps it. */
  bytes(value: Uint8Array, maxLength?: number, what = "bytes"): void {
    if (maxLength !== undefined && value.length > maxLength) {
      throw new BincodeEncodeError(`${what}: ${value.length} bytes exceed the cap of ${maxLength}`);
    }
    this.length64(value.length);
    this.raw(value);
  }

  /** Length-prefixed bytes whose length is fixed by the type (alloy B256 and friends). */
  fixedBytesWithLength(value: Uint8Array, length: number, what: string): void {
    if (value.length !== length)
      throw new BincodeEncodeError(`${what} must be ${length} bytes, got ${value.length}`);
    this.bytes(value);
  }

  /** A fixed array of bytes, no length. */
  fixedArray(value: Uint8Array, length: number, what: string): void {
    if (value.length !== length)
      throw new BincodeEncodeError(`${what} must be ${length} bytes, got ${value.length}`);
    this.raw(value);
  }

  /** A UTF-8 string: byte length then the bytes. */
  string(value: string): void {
    // A Rust String is valid UTF-8: a lone surrogate would silently become U+FFFD, so refuse it.
    if (LONE_SURROGATE.test(value)) throw new BincodeEncodeError("string contains a lone UTF-16 surrogate");
    this.bytes(new TextEncoder().encode(value));
  }

  /** Option<T>: tag 0, or tag 1 then the value. */
  option<T>(value: T | null, writeValue: (present: T) => void): void {
    if (value === null) {
      this.u8(0);
      return;
    }
    this.u8(1);
    writeValue(value);
  }

  /** Vec<T>: the count then each element; at most `maxItems` elements when the type caps it. */
  vec<T>(items: readonly T[], writeItem: (item: T) => void, maxItems?: number, what = "vec"): void {
    if (maxItems !== undefined && items.length > maxItems) {
      throw new BincodeEncodeError(`${what}: ${items.length} items exceed the cap of ${maxItems}`);
    }
    this.length64(items.length);
    for (const item of items) writeItem(item);
  }

  /** The bytes written so far (a copy sized exactly). */
  finish(): Uint8Array {
    return this.buffer.slice(this.start, this.length);
  }

  /**
   * The headroom and the bytes written after it, without a copy: a view of the writer's buffer (all of it when the
   * capacity given was exact), which the caller owns from here on and whose headroom it fills.
   */
  withHeadroom(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

// ignoreBOM: a leading U+FEFF is part of the string (as in Rust), not a marker to strip.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads bincode values from one payload; every length is checked against the bytes that remain. `form` as for
 * BincodeWriter.
 */
export class BincodeReader {
  private offset = 0;

  constructor(
    private readonly input: Uint8Array,
    readonly form: string = "",
  ) {}

  get remaining(): number {
    return this.input.length - this.offset;
  }

  get position(): number {
    return this.offset;
  }

  fail(message: string): never {
    throw new BincodeDecodeError(message, this.offset);
  }

  /** Fails, reporting an earlier offset (the start of the value at fault). */
  failAt(offset: number, message: string): never {
    throw new BincodeDecodeError(message, offset);
  }

  u8(): number {
    if (this.remaining < 1) this.fail("truncated: expected 1 more byte");
    return this.input[this.offset++] as number;
  }

  /** `count` raw bytes, copied out of the payload. */
  raw(count: number): Uint8Array {
    if (count > this.remaining) this.fail(`truncated: expected ${count} bytes, ${this.remaining} left`);
    const out = this.input.slice(this.offset, this.offset + count);
    this.offset += count;
    return out;
  }

  /** `count` raw bytes copied into `out` at `at` (no allocation). */
  rawInto(out: Uint8Array, at: number, count: number): void {
    if (count > this.remaining) this.fail(`truncated: expected ${count} bytes, ${this.remaining} left`);
    out.set(this.input.subarray(this.offset, this.offset + count), at);
    this.offset += count;
  }

  /** A varint of at most `bits` bits; only the shortest encoding is accepted. */
  varint(bits: 16 | 32 | 64): bigint {
    const start = this.offset;
    const first = this.u8();
    if (first <= Number(SINGLE_BYTE_MAX)) return BigInt(first);
    let width: number;
    let floor: bigint;
    if (first === U16_MARKER) {
      width = 2;
      floor = SINGLE_BYTE_MAX + 1n;
    } else if (first === U32_MARKER) {
      width = 4;
      floor = U16_MAX + 1n;
    } else if (first === U64_MARKER) {
      width = 8;
      floor = U32_MAX + 1n;
    } else if (first === U128_MARKER) {
      this.offset = start;
      this.fail(`varint overflow: u128 marker for a u${bits}`);
    } else {
      this.offset = start;
      this.fail(`invalid varint marker 0x${first.toString(16)}`);
    }
    if (width * 8 > bits) {
      this.offset = start;
      this.fail(`varint overflow: ${width * 8}-bit value for a u${bits}`);
    }
    if (width > this.remaining)
      this.fail(`truncated varint: expected ${width} bytes, ${this.remaining} left`);
    let value = 0n;
    for (let i = width - 1; i >= 0; i--)
      value = (value << 8n) | BigInt(this.input[this.offset + i] as number);
    this.offset += width;
    if (value < floor) {
      this.offset = start;
      this.fail(`non-canonical varint: ${value} written in ${width + 1} bytes`);
    }
    return value;
  }

  /** An enum variant index (u32 varint). */
  variant(): number {
    return Number(this.varint(32));
  }

  /**
   * A collection length (u64 varint), checked before anything is allocated: `count` elements of at least
   * `minElementBytes` bytes each must fit in what is left of the payload.
   */
  length64(minElementBytes: number, what: string, max?: number): number {
    const start = this.offset;
    const count = this.varint(64);
    if (max !== undefined && count > BigInt(max))
      this.failAt(start, `${what}: length ${count} exceeds the cap of ${max}`);
    const left = this.remaining;
    if (count * BigInt(Math.max(minElementBytes, 1)) > BigInt(left)) {
      this.failAt(start, `${what}: length ${count} exceeds the ${left} bytes left`);
    }
    return Number(count);
  }

  /** Length-prefixed bytes. */
  bytes(what: string, maxLength?: number): Uint8Array {
    return this.raw(this.length64(1, what, maxLength));
  }

  /** Length-prefixed bytes whose length must equal `length`. */
  fixedBytesWithLength(length: number, what: string): Uint8Array {
    const start = this.offset;
    const count = this.varint(64);
    if (count !== BigInt(length)) {
      this.offset = start;
      this.fail(`${what}: length must be ${length}, got ${count}`);
    }
    return this.raw(length);
  }

  /** An Option tag: false for None (0), true for Some (1). */
  optionTag(what: string): boolean {
    const tag = this.u8();
    if (tag === 0) return false;
    if (tag === 1) return true;
    this.offset -= 1;
    return this.fail(`${what}: invalid Option tag ${tag}`);
  }

  /** A bool: one byte, 0 or 1. */
  bool(what: string): boolean {
    const byte = this.u8();
    if (byte === 0) return false;
    if (byte === 1) return true;
    return this.failAt(this.offset - 1, `${what}: invalid bool ${byte}`);
  }

  /** Option<T>: null for None, the value for Some. */
  option<T>(what: string, readValue: () => T): T | null {
    return this.optionTag(what) ? readValue() : null;
  }

  /** Vec<T>, the count checked against the remaining bytes (`minElementBytes` each) before reading. */
  vec<T>(minElementBytes: number, what: string, readItem: () => T, maxItems?: number): T[] {
    const count = this.length64(minElementBytes, what, maxItems);
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(readItem());
    return items;
  }

  /** A UTF-8 string. */
  string(what: string): string {
    const start = this.offset;
    const body = this.bytes(what);
    try {
      return utf8.decode(body);
    } catch {
      this.offset = start;
      return this.fail(`${what}: invalid UTF-8`);
    }
  }

  /** Rejects trailing bytes once a message has been decoded. */
  end(): void {
    if (this.remaining !== 0) this.fail(`${this.remaining} trailing bytes after the message`);
  }
}
