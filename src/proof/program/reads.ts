/**
 * Typed reads over the oracle (docs/proof.md "Key types read"): headers by keccak256 of their hash, the items of
 * an index-keyed trie (transactions, receipts) by walking it from the header's root, receipts decoded from their
 * consensus encoding. Every length is capped before use; a missing node is the source's MissingPreimageError
 * (readWithFetch turns it into a fetch or a refusal).
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type BlockHeader,
  FastTrie,
  type Log,
  MissingPreimageError,
  type PreimageSource,
  type Receipt,
  bytesToBigInt,
  bytesEqual,
  decodeHeader,
  keccak256,
  keccak256Key,
  toHex,
} from "../../chain/index.js";
import { InvalidWitnessError } from "./errors.js";

/** Largest header the program accepts (an L1 Prague header is about 600 bytes). */
export const MAX_HEADER_BYTES = 4096;
/** Largest trie node: a leaf may hold a whole transaction, a pooled blob transaction with 6 blobs included. */
export const MAX_TRIE_NODE_BYTES = 1 << 20;
/** Most items an index-keyed trie may hold. */
export const MAX_TRIE_ITEMS = 1 << 16;
/** Most logs one receipt may carry. */
export const MAX_RECEIPT_LOGS = 1 << 16;

const BLOB_TX_TYPE = 0x03;

/** The header whose hash is `hash`, from its keccak256 preimage (content-verified by the store), capped. */
export function readHeader(source: PreimageSource, hash: Uint8Array, what: string): BlockHeader {
  const rlp = source.get(keccak256Key(hash));
  if (rlp.length > MAX_HEADER_BYTES)
    throw new InvalidWitnessError(`${what}: header of ${rlp.length} bytes exceeds ${MAX_HEADER_BYTES}`, {
      what,
      size: rlp.length,
    });
  // A source that does not verify content (a test's, the host's cache before recording) must still not pass.
  if (!bytesEqual(keccak256(rlp), hash))
    throw new InvalidWitnessError(`${what}: the header does not hash to ${toHex(hash)}`, { what });
  try {
    return decodeHeader(rlp);
  } catch (cause) {
    throw new InvalidWitnessError(`${what}: malformed header ${toHex(hash)}`, { what }, { cause });
  }
}

/** Trie nodes from the source by keccak256, capped; the trie is only read. */
function nodeStore(source: PreimageSource, what: string) {
  return {
    getNode(hash: Uint8Array): Uint8Array {
      const node = source.get(keccak256Key(hash));
      if (node.length > MAX_TRIE_NODE_BYTES)
        throw new InvalidWitnessError(`${what}: trie node of ${node.length} bytes`, {
          what,
          size: node.length,
        });
      return node;
    },
    putNode(): void {
      throw new InvalidWitnessError(`${what}: a read-only trie was written`, { what });
    },
  };
}

/**
 * The values of an index-keyed trie (key rlp(i)) in index order: read until an index is proven absent (the walk
 * ends inside nodes that were all present).
 */
export function readOrderedTrie(source: PreimageSource, root: Uint8Array, what: string): Uint8Array[] {
  const trie = new FastTrie(nodeStore(source, what));
  const items: Uint8Array[] = [];
  for (let i = 0; ; i++) {
    if (i > MAX_TRIE_ITEMS)
      throw new InvalidWitnessError(`${what}: more than ${MAX_TRIE_ITEMS} items`, { what });
    let value: Uint8Array | undefined;
    try {
      value = trie.get(root, RLP.encode(i));
    } catch (cause) {
      if (cause instanceof MissingPreimageError || cause instanceof InvalidWitnessError) throw cause;
      throw new InvalidWitnessError(`${what}: malformed trie node`, { what, index: i }, { cause });
    }
    if (value === undefined) return items;
    items.push(value);
  }
}

/**
 * An L1 transaction as the trie holds it. anvil up to 1.7.1 roots blob transactions by their pooled encoding
 * `0x03 ‖ rlp([body, …sidecar])` (docs/chain-rpc.md "anvil"); the canonical `0x03 ‖ rlp(body)` is inside it. A
 * canonical blob transaction's first field is the chain id (a byte string), so the two forms cannot be confused.
 */
export function canonicalTransaction(leaf: Uint8Array, what: string): Uint8Array {
  if (leaf[0] !== BLOB_TX_TYPE) return leaf;
  let decoded: unknown;
  try {
    decoded = RLP.decode(leaf.subarray(1));
  } catch (cause) {
    throw new InvalidWitnessError(`${what}: malformed blob transaction`, { what }, { cause });
  }
  if (!Array.isArray(decoded) || decoded.length === 0)
    throw new InvalidWitnessError(`${what}: a blob transaction is not an RLP list`, { what });
  const first = decoded[0] as unknown;
  if (!Array.isArray(first)) return leaf;
  const body = RLP.encode(first as Uint8Array[]);
  const out = new Uint8Array(body.length + 1);
  out[0] = BLOB_TX_TYPE;
  out.set(body, 1);
  return out;
}

function bytes(item: unknown, what: string, field: string): Uint8Array {
  if (!(item instanceof Uint8Array))
    throw new InvalidWitnessError(`${what}: ${field} is not bytes`, { what, field });
  return item;
}

function list(item: unknown, what: string, field: string): unknown[] {
  if (!Array.isArray(item)) throw new InvalidWitnessError(`${what}: ${field} is not a list`, { what, field });
  return item;
}

/** A receipt from its consensus encoding (`type ‖ rlp(...)` or legacy RLP), OP deposit fields included. */
export function decodeReceipt(encoded: Uint8Array, what: string): Receipt {
  if (encoded.length === 0) throw new InvalidWitnessError(`${what}: empty receipt`, { what });
  const first = encoded[0]!;
  const type = first >= 0xc0 ? 0 : first;
  if (type !== 0 && type > 0x7f)
    throw new InvalidWitnessError(`${what}: receipt type ${type}`, { what, type });
  let decoded: unknown;
  try {
    decoded = RLP.decode(type === 0 ? encoded : encoded.subarray(1));
  } catch (cause) {
    throw new InvalidWitnessError(`${what}: malformed receipt`, { what }, { cause });
  }
  const fields = list(decoded, what, "receipt");
  if (fields.length < 4 || fields.length > 6)
    throw new InvalidWitnessError(`${what}: receipt with ${fields.length} fields`, { what });
  const statusBytes = bytes(fields[0], what, "status");
  if (statusBytes.length > 1 || (statusBytes.length === 1 && statusBytes[0] !== 1))
    throw new InvalidWitnessError(`${what}: receipt status is not 0 or 1`, { what });
  const rawLogs = list(fields[3], what, "logs");
  if (rawLogs.length > MAX_RECEIPT_LOGS)
    throw new InvalidWitnessError(`${what}: ${rawLogs.length} logs`, { what });
  const logs: Log[] = rawLogs.map((l, i) => {
    const parts = list(l, what, `log ${i}`);
    if (parts.length !== 3)
      throw new InvalidWitnessError(`${what}: log ${i} has ${parts.length} fields`, { what });
    return {
      address: bytes(parts[0], what, "log address"),
      topics: list(parts[1], what, "log topics").map((t) => bytes(t, what, "log topic")),
      data: bytes(parts[2], what, "log data"),
    };
  });
  const receipt: Receipt = {
    type,
    status: statusBytes.length === 1 ? 1 : 0,
    cumulativeGasUsed: bytesToBigInt(bytes(fields[1], what, "cumulativeGasUsed")),
    logsBloom: bytes(fields[2], what, "logsBloom"),
    logs,
  };
  if (fields.length >= 5) receipt.depositNonce = bytesToBigInt(bytes(fields[4], what, "depositNonce"));
  if (fields.length === 6)
    receipt.depositReceiptVersion = bytesToBigInt(bytes(fields[5], what, "depositReceiptVersion"));
  return receipt;
}
