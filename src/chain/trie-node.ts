/**
 * Merkle-Patricia trie nodes as FastTrie keeps them, and their decoder. The decoder reads a node's RLP
 * in place: paths, values and child hashes are views (subarrays) of the encoded node, with no
 * intermediate item arrays and no copies (the general RLP decoder copies every string and builds an
 * array per list, which was most of the cost of a cold trie walk). It accepts exactly the canonical
 * encodings @ethereumjs/rlp accepts, of a leaf or extension (2 items) or a branch (17 items), and
 * throws on anything else; nodes are immutable, as FastTrie never writes into one.
 */
import { ChainError } from "./errors.js";

export type Nibbles = number[];
/** How a node refers to a child: its hash (32 bytes), the child itself (in memory or embedded), or empty. */
export type Ref = Uint8Array | TrieNode | null;

export interface Leaf {
  t: 0;
  path: Nibbles;
  value: Uint8Array;
}
export interface Ext {
  t: 1;
  path: Nibbles;
  child: Ref;
}
export interface Branch {
  t: 2;
  children: Ref[];
  value: Uint8Array | null;
}
export type TrieNode = Leaf | Ext | Branch;

/** A trie node (read by its hash from a preimage source) that is not a canonical leaf, extension or branch. */
export class MalformedTrieNodeError extends ChainError {
  readonly reason: string;
  constructor(reason: string) {
    super(`malformed trie node: ${reason}`, "malformed-trie-node", { details: { reason } });
    this.reason = reason;
  }
}

export function decodeHexPrefix(encoded: Uint8Array): { path: Nibbles; leaf: boolean } {
  if (encoded.length === 0) throw new MalformedTrieNodeError("empty path");
  const flag = encoded[0]! >> 4;
  const leaf = flag >= 2;
  const odd = (flag & 1) === 1;
  const path: Nibbles = [];
  if (odd) path.push(encoded[0]! & 15);
  for (let i = 1; i < encoded.length; i++) path.push(encoded[i]! >> 4, encoded[i]! & 15);
  return { path, leaf };
}

// The last item header read (module state instead of a returned object: no allocation per item).
let isList = false;
let itemStart = 0;
let itemEnd = 0;

function lengthAt(b: Uint8Array, pos: number, bytes: number, end: number): number {
  if (pos + bytes > end) throw new MalformedTrieNodeError("truncated length");
  if (b[pos] === 0) throw new MalformedTrieNodeError("length with a leading zero");
  let n = 0;
  for (let i = 0; i < bytes; i++) n = n * 256 + b[pos + i]!;
  if (n < 56) throw new MalformedTrieNodeError("long form for a short length");
  return n;
}

/** Reads the header of the item at `pos` (which must end by `end`) into isList / itemStart / itemEnd. */
function readItem(b: Uint8Array, pos: number, end: number): void {
  if (pos >= end) throw new MalformedTrieNodeError("missing item");
  const p = b[pos]!;
  if (p < 0x80) {
    isList = false;
    itemStart = pos;
    itemEnd = pos + 1;
  } else if (p <= 0xb7) {
    isList = false;
    itemStart = pos + 1;
    itemEnd = itemStart + p - 0x80;
    if (p === 0x81 && itemStart < end && b[itemStart]! < 0x80)
      throw new MalformedTrieNodeError("single byte below 0x80 with a prefix");
  } else if (p <= 0xbf) {
    const n = lengthAt(b, pos + 1, p - 0xb7, end);
    isList = false;
    itemStart = pos + 1 + p - 0xb7;
    itemEnd = itemStart + n;
  } else if (p <= 0xf7) {
    isList = true;
    itemStart = pos + 1;
    itemEnd = itemStart + p - 0xc0;
  } else {
    const n = lengthAt(b, pos + 1, p - 0xf7, end);
    isList = true;
    itemStart = pos + 1 + p - 0xf7;
    itemEnd = itemStart + n;
  }
  if (itemEnd > end) throw new MalformedTrieNodeError("item longer than its container");
}

function refAt(b: Uint8Array, list: boolean, start: number, end: number): Ref {
  if (list) return nodeAt(b, start, end);
  if (start === end) return null;
  if (end - start === 32) return b.subarray(start, end);
  throw new MalformedTrieNodeError("child reference neither a hash nor empty");
}

/** The node whose list payload is b[start, end). */
function nodeAt(b: Uint8Array, start: number, end: number): TrieNode {
  readItem(b, start, end);
  const aList = isList;
  const aStart = itemStart;
  const aEnd = itemEnd;
  readItem(b, aEnd, end);
  const bList = isList;
  const bStart = itemStart;
  const bEnd = itemEnd;
  if (bEnd === end) {
    if (aList) throw new MalformedTrieNodeError("path is a list");
    const { path, leaf } = decodeHexPrefix(b.subarray(aStart, aEnd));
    if (!leaf) return { t: 1, path, child: refAt(b, bList, bStart, bEnd) };
    if (bList) throw new MalformedTrieNodeError("leaf value is a list");
    return { t: 0, path, value: b.subarray(bStart, bEnd) };
  }
  const children = new Array<Ref>(16);
  children[0] = refAt(b, aList, aStart, aEnd);
  children[1] = refAt(b, bList, bStart, bEnd);
  let pos = bEnd;
  for (let i = 2; i < 16; i++) {
    readItem(b, pos, end);
    const list = isList;
    const s = itemStart;
    const e = itemEnd;
    children[i] = refAt(b, list, s, e);
    pos = e;
  }
  readItem(b, pos, end);
  if (isList) throw new MalformedTrieNodeError("branch value is a list");
  if (itemEnd !== end) throw new MalformedTrieNodeError("more than 17 items");
  return { t: 2, children, value: itemStart === itemEnd ? null : b.subarray(itemStart, itemEnd) };
}

/** Decodes an encoded trie node; its paths, values and hashes are views of `rlp`. */
export function decodeTrieNode(rlp: Uint8Array): TrieNode {
  readItem(rlp, 0, rlp.length);
  if (!isList) throw new MalformedTrieNodeError("not a list");
  if (itemEnd !== rlp.length) throw new MalformedTrieNodeError("bytes after the node");
  return nodeAt(rlp, itemStart, itemEnd);
}
