/**
 * RLP encoding into one array, for the trie's node encodings (every changed node is encoded when a root is
 * computed, and each embedded child once more to learn whether it is short enough to embed). @ethereumjs/rlp's
 * `encode` allocates a length prefix and concatenates a new array at every level and for every string; here
 * the sizes are measured first and the output written once. An `EncodedRlp` is an item already encoded (an
 * embedded child node), copied as it is. Same output as `RLP.encode` (rlp-encode.test.ts).
 */

/** An item already RLP-encoded, written as it is. */
export class EncodedRlp {
  constructor(readonly bytes: Uint8Array) {}
}

export type RlpItem = Uint8Array | EncodedRlp | RlpItem[];

/** Bytes of a big-endian length (array lengths stay below 2^32). */
function lengthBytes(n: number): number {
  return n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
}

function headerSize(payload: number): number {
  return payload < 56 ? 1 : 1 + lengthBytes(payload);
}

/** Payload sizes of the lists of the item being encoded, in pre-order (measured, then written). */
const listSizes: number[] = [];
let nextList = 0;

function measure(item: RlpItem): number {
  if (item instanceof Uint8Array) {
    const n = item.length;
    return n === 1 && item[0]! < 0x80 ? 1 : headerSize(n) + n;
  }
  if (item instanceof EncodedRlp) return item.bytes.length;
  const at = listSizes.length;
  listSizes.push(0);
  let payload = 0;
  for (let i = 0; i < item.length; i++) payload += measure(item[i]!);
  listSizes[at] = payload;
  return headerSize(payload) + payload;
}

function writeHeader(out: Uint8Array, pos: number, payload: number, offset: number): number {
  if (payload < 56) {
    out[pos] = offset + payload;
    return pos + 1;
  }
  const k = lengthBytes(payload);
  out[pos] = offset + 55 + k;
  for (let i = k; i > 0; i--) {
    out[pos + i] = payload & 0xff;
    payload = Math.floor(payload / 256);
  }
  return pos + 1 + k;
}

function write(item: RlpItem, out: Uint8Array, pos: number): number {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) {
      out[pos] = item[0]!;
      return pos + 1;
    }
    pos = writeHeader(out, pos, item.length, 0x80);
    out.set(item, pos);
    return pos + item.length;
  }
  if (item instanceof EncodedRlp) {
    out.set(item.bytes, pos);
    return pos + item.bytes.length;
  }
  pos = writeHeader(out, pos, listSizes[nextList++]!, 0xc0);
  for (let i = 0; i < item.length; i++) pos = write(item[i]!, out, pos);
  return pos;
}

/** The RLP encoding of `item`. */
export function encodeRlp(item: RlpItem): Uint8Array {
  listSizes.length = 0;
  nextList = 0;
  const out = new Uint8Array(measure(item));
  write(item, out, 0);
  return out;
}
