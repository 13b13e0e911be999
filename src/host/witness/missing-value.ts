/**
 * What a value the witness lacks was, found when a read stays missing (an error path: nothing is indexed while
 * values arrive). The values the oracle holds are scanned once for the one that names the missing hash:
 *
 * - a header names its parent (`header`), its state root (a `trie-node` read executing the next block) and its
 *   transactions and receipts roots (`trie-node`s of its own block);
 * - a branch or an extension names its children (`trie-node`);
 * - an account leaf names its storage root (`trie-node`) and its code hash (`code`).
 *
 * The block is found by walking up from the missing hash through the values that name it to a header: a trie node
 * under a header's state root is read executing the block after that header.
 */
import { RLP } from "@ethereumjs/rlp";
import { bytesEqual, keccak256, toHexRaw } from "../../chain/index.js";

export type MissingValueKind = "trie-node" | "code" | "header" | "unknown";

export interface MissingValueOrigin {
  readonly kind: MissingValueKind;
  /** The full keccak256 (the missing key lacks its first byte), when a value names it. */
  readonly hash: Uint8Array | undefined;
  /**
   * The L2 block the value belongs to: the block whose execution reads the trie node or code (the one executed
   * on the state that holds it), the block whose parent is the missing header.
   */
  readonly block: bigint | undefined;
}

/** An account without code has the empty string's hash. */
const EMPTY_CODE_HASH = keccak256(new Uint8Array(0));

interface Reference {
  readonly kind: Exclude<MissingValueKind, "unknown">;
  readonly hash: Uint8Array;
  /** The id of the value that names it. */
  readonly from: string;
  readonly block?: bigint;
}

/** A 32-byte hash's id: its last 31 bytes (what a typed preimage key holds). */
const idOf = (hash: Uint8Array): string => toHexRaw(hash.subarray(hash.length - 31));

const isHash = (item: unknown): item is Uint8Array => item instanceof Uint8Array && item.length === 32;

function decodeOrUndefined(value: Uint8Array): unknown {
  try {
    return RLP.decode(value);
  } catch {
    return undefined;
  }
}

function bigEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

/** What `value` (whose id is `from`) names, by the value's shape. */
function referencesOf(value: Uint8Array, from: string): Reference[] {
  const item = decodeOrUndefined(value);
  if (!Array.isArray(item)) return [];
  // A header: parent hash, ommers hash, a 20-byte coinbase, state, transactions and receipts roots, …, number.
  if (item.length >= 15 && isHash(item[0]) && item[2] instanceof Uint8Array && item[2].length === 20) {
    const number = item[8] instanceof Uint8Array ? bigEndian(item[8]) : undefined;
    if (number === undefined) return [];
    return [
      { kind: "header", hash: item[0], from, block: number },
      ...(isHash(item[3]) ? [{ kind: "trie-node" as const, hash: item[3], from, block: number + 1n }] : []),
      ...[item[4], item[5]]
        .filter(isHash)
        .map((hash) => ({ kind: "trie-node" as const, hash, from, block: number })),
    ];
  }
  // A branch: sixteen children and a value.
  if (item.length === 17)
    return item
      .slice(0, 16)
      .filter(isHash)
      .map((hash) => ({ kind: "trie-node", hash, from }));
  if (item.length !== 2 || !(item[0] instanceof Uint8Array) || item[0].length === 0) return [];
  // The path's first nibble: 0 or 1 an extension, 2 or 3 a leaf.
  const leaf = item[0][0]! >> 4 >= 2;
  if (!leaf) return isHash(item[1]) ? [{ kind: "trie-node", hash: item[1], from }] : [];
  const account = item[1] instanceof Uint8Array ? decodeOrUndefined(item[1]) : undefined;
  if (!Array.isArray(account) || account.length !== 4 || !isHash(account[2]) || !isHash(account[3]))
    return [];
  return [
    { kind: "trie-node", hash: account[2], from },
    ...(bytesEqual(account[3], EMPTY_CODE_HASH) ? [] : [{ kind: "code" as const, hash: account[3], from }]),
  ];
}

/** Most values walked up from the missing one to a header (a state trie and a storage trie are far shallower). */
const MAX_WALK = 512;

/** What the value under `key` (a keccak256 preimage key: a type byte, then the hash's last 31 bytes) was. */
export function missingValueOrigin(key: Uint8Array, values: Iterable<Uint8Array>): MissingValueOrigin {
  const index = new Map<string, Reference>();
  for (const value of values) {
    const from = idOf(keccak256(value));
    for (const reference of referencesOf(value, from))
      if (!index.has(idOf(reference.hash))) index.set(idOf(reference.hash), reference);
  }
  const found = index.get(idOf(key));
  if (found === undefined) return { kind: "unknown", hash: undefined, block: undefined };
  let block: bigint | undefined;
  let at: Reference | undefined = found;
  for (let step = 0; at !== undefined && step < MAX_WALK; step++) {
    if (at.block !== undefined) {
      block = at.block;
      break;
    }
    at = index.get(at.from);
  }
  return { kind: found.kind, hash: found.hash, block };
}
