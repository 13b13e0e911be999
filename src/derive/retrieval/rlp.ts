/**
 * A zero-copy, strict RLP reader for L1 transactions: it locates items inside the encoding (subarrays, no copies)
 * and refuses every non-canonical form geth refuses (a single byte below 0x80 wrapped in a string header, long
 * forms for short payloads, lengths with leading zeros, items running past their parent).
 */

/** One RLP item found at `offset` of a buffer. */
export interface RlpItem {
  readonly isList: boolean;
  /** The payload: a string's bytes, or a list's concatenated items. */
  readonly payload: Uint8Array;
  /** The whole item, header included. */
  readonly raw: Uint8Array;
}

/** Why an RLP encoding was refused (the caller wraps it in its own error). */
export class RlpFormatError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "RlpFormatError";
  }
}

/** Reads the item starting at `offset` of `buf` (which must contain it entirely). */
export function readItem(buf: Uint8Array, offset: number): RlpItem {
  if (offset >= buf.length) throw new RlpFormatError("unexpected end of input", offset);
  const prefix = buf[offset]!;
  let isList: boolean;
  let start: number;
  let length: number;
  if (prefix < 0x80) {
    return {
      isList: false,
      payload: buf.subarray(offset, offset + 1),
      raw: buf.subarray(offset, offset + 1),
    };
  } else if (prefix <= 0xb7) {
    isList = false;
    start = offset + 1;
    length = prefix - 0x80;
    if (length === 1 && start < buf.length && buf[start]! < 0x80) {
      throw new RlpFormatError("single byte below 0x80 encoded as a string", offset);
    }
  } else if (prefix < 0xc0) {
    isList = false;
    [start, length] = longLength(buf, offset, prefix - 0xb7);
  } else if (prefix <= 0xf7) {
    isList = true;
    start = offset + 1;
    length = prefix - 0xc0;
  } else {
    isList = true;
    [start, length] = longLength(buf, offset, prefix - 0xf7);
  }
  const end = start + length;
  if (end > buf.length) throw new RlpFormatError("item runs past the end of its container", offset);
  return { isList, payload: buf.subarray(start, end), raw: buf.subarray(offset, end) };
}

function longLength(buf: Uint8Array, offset: number, lengthOfLength: number): [number, number] {
  const start = offset + 1 + lengthOfLength;
  if (start > buf.length) throw new RlpFormatError("length runs past the end of input", offset);
  if (buf[offset + 1] === 0) throw new RlpFormatError("length with leading zero bytes", offset);
  if (lengthOfLength > 4) throw new RlpFormatError("length too large", offset);
  let length = 0;
  for (let i = 0; i < lengthOfLength; i++) length = length * 256 + buf[offset + 1 + i]!;
  if (length < 56) throw new RlpFormatError("long form used for a short payload", offset);
  return [start, length];
}

/** Reads `buf` as exactly one item (no trailing bytes). */
export function readSingle(buf: Uint8Array): RlpItem {
  const item = readItem(buf, 0);
  if (item.raw.length !== buf.length)
    throw new RlpFormatError("trailing bytes after the item", item.raw.length);
  return item;
}

/** The items of a list payload, in order. */
export function listItems(payload: Uint8Array): RlpItem[] {
  const items: RlpItem[] = [];
  let offset = 0;
  while (offset < payload.length) {
    const item = readItem(payload, offset);
    items.push(item);
    offset += item.raw.length;
  }
  return items;
}

/** A canonical unsigned integer of at most `maxBytes` bytes (no leading zeros; zero is the empty string). */
export function readUint(item: RlpItem, maxBytes = 32): bigint {
  if (item.isList) throw new RlpFormatError("expected an integer, found a list", 0);
  const b = item.payload;
  if (b.length > maxBytes) throw new RlpFormatError(`integer longer than ${maxBytes} bytes`, 0);
  if (b.length > 0 && b[0] === 0) throw new RlpFormatError("integer with leading zero bytes", 0);
  let v = 0n;
  for (let i = 0; i < b.length; i++) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

/** The RLP header of a list whose payload is `payloadLength` bytes. */
export function listHeader(payloadLength: number): Uint8Array {
  if (payloadLength < 56) return Uint8Array.of(0xc0 + payloadLength);
  const bytes: number[] = [];
  for (let n = payloadLength; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Uint8Array.of(0xf7 + bytes.length, ...bytes);
}

/** The RLP encoding of an unsigned integer. */
export function encodeUint(value: bigint): Uint8Array {
  if (value === 0n) return Uint8Array.of(0x80);
  const bytes: number[] = [];
  for (let v = value; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  if (bytes.length === 1 && bytes[0]! < 0x80) return Uint8Array.of(bytes[0]!);
  return Uint8Array.of(0x80 + bytes.length, ...bytes);
}
