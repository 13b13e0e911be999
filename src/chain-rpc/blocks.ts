/**
 * Checks shared by the L1 and L2 providers: a block object's header rebuilt from its JSON must hash to the hash
 * that names it, and its transactions, rebuilt to EIP-2718 bytes, must have the header's transactionsRoot.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type BlockHeader,
  ChainError,
  bytesEqual,
  headerFromJson,
  headerHash,
  keccak256,
  orderedTrieRoot,
  toHex,
} from "../chain/index.js";
import { DataMismatchError, MalformedResponseError } from "./errors.js";
import { isRecord } from "./http.js";
import { checkedTransaction, hexData } from "./json.js";

export interface CheckedHeader {
  readonly hash: Uint8Array;
  readonly header: BlockHeader;
}

/** What the caller asked by: the header must hash to `hash` and carry `number` when given. */
export interface Expected {
  readonly hash?: Uint8Array;
  readonly number?: bigint;
}

/**
 * The header of a block object, rebuilt from its fields; it must hash to the `hash` field of the object and to
 * what the caller asked by.
 */
export function checkedHeader(json: unknown, expected: Expected, what: string): CheckedHeader {
  if (!isRecord(json)) throw new MalformedResponseError(`${what}: the block is not an object`);
  let header: BlockHeader;
  try {
    header = headerFromJson(json);
  } catch (error) {
    if (error instanceof ChainError) {
      throw new MalformedResponseError(`${what}: ${error.message}`, { cause: error });
    }
    throw error;
  }
  const hash = headerHash(header);
  const claimed = hexData(json.hash, `${what}.hash`, 32);
  for (const [name, wanted] of [
    ["asked", expected.hash],
    ["claimed", claimed],
  ] as const) {
    if (wanted !== undefined && !bytesEqual(hash, wanted)) {
      throw new DataMismatchError("header-hash", `${what}: the header does not hash to the ${name} hash`, {
        expected: toHex(wanted),
        actual: toHex(hash),
        number: header.number,
      });
    }
  }
  if (expected.number !== undefined && header.number !== expected.number) {
    throw new DataMismatchError("block-number", `${what}: the block has another number than asked`, {
      expected: expected.number,
      actual: header.number,
    });
  }
  return { hash, header };
}

/**
 * Where the pooled (sidecar-carrying) encoding of a blob transaction can be read: `eth_getRawTransactionByHash` on
 * anvil. Used only for a block whose transactionsRoot was computed over those encodings (see RpcProviderOptions).
 */
export type PooledTransactionSource = (hash: Uint8Array) => Promise<Uint8Array | undefined>;

const BLOB_TX_TYPE = 3;

/**
 * The canonical encoding inside a pooled blob transaction: `0x03 ‖ rlp([body, …sidecar])` holds the canonical
 * `0x03 ‖ rlp(body)`. Undefined when `pooled` is not of that shape.
 */
function canonicalOfPooled(pooled: Uint8Array): Uint8Array | undefined {
  if (pooled[0] !== BLOB_TX_TYPE) return undefined;
  let decoded: unknown;
  try {
    decoded = RLP.decode(pooled.subarray(1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length < 4 || !Array.isArray(decoded[0])) return undefined;
  const body = RLP.encode(decoded[0] as Parameters<typeof RLP.encode>[0]);
  const out = new Uint8Array(body.length + 1);
  out[0] = BLOB_TX_TYPE;
  out.set(body, 1);
  return out;
}

/**
 * The transactions trie leaves of a block whose blob transactions entered the trie in their pooled form (anvil ≤
 * 1.7.1): each blob transaction's pooled bytes must contain exactly the canonical bytes already checked against its
 * hash.
 */
async function pooledLeaves(
  raws: readonly Uint8Array[],
  source: PooledTransactionSource,
  what: string,
): Promise<Uint8Array[]> {
  const leaves: Uint8Array[] = [];
  for (const [i, raw] of raws.entries()) {
    if (raw[0] !== BLOB_TX_TYPE) {
      leaves.push(raw);
      continue;
    }
    const pooled = await source(keccak256(raw));
    const inner = pooled === undefined ? undefined : canonicalOfPooled(pooled);
    if (pooled === undefined || inner === undefined || !bytesEqual(inner, raw)) {
      throw new DataMismatchError(
        "transactions-root",
        `${what}: blob transaction ${i} has no pooled form matching it`,
        {
          index: i,
        },
      );
    }
    leaves.push(pooled);
  }
  return leaves;
}

/** A block's transactions, and the leaves its transactionsRoot commits to (the same bytes on a real chain). */
export interface CheckedTransactions {
  /** Canonical EIP-2718 bytes. */
  readonly transactions: Uint8Array[];
  /** The transactions trie's leaves: the canonical bytes, or anvil's pooled blob encodings (see RpcProviderOptions). */
  readonly leaves: Uint8Array[];
}

/**
 * A full block object's transactions as canonical EIP-2718 bytes, checked against the header's transactionsRoot.
 * With `pooled`, a root over the pooled encodings of the blob transactions is accepted too (the canonical bytes
 * are then checked to be inside the committed pooled ones).
 */
export async function checkedTransactions(
  json: unknown,
  header: BlockHeader,
  what: string,
  pooled?: PooledTransactionSource,
): Promise<Uint8Array[]> {
  return (await checkedTransactionLeaves(json, header, what, pooled)).transactions;
}

/** checkedTransactions, with the leaves the root was checked over. */
export async function checkedTransactionLeaves(
  json: unknown,
  header: BlockHeader,
  what: string,
  pooled?: PooledTransactionSource,
): Promise<CheckedTransactions> {
  const list = isRecord(json) ? json.transactions : undefined;
  if (!Array.isArray(list)) throw new MalformedResponseError(`${what}: the block has no transaction list`);
  const raws = list.map((tx, i) => {
    if (!isRecord(tx)) {
      throw new MalformedResponseError(
        `${what}: transaction ${i} is not an object (asked for full transactions)`,
      );
    }
    return checkedTransaction(tx, `${what}.transactions[${i}]`);
  });
  let leaves = raws;
  if (
    !bytesEqual(orderedTrieRoot(raws), header.transactionsRoot) &&
    pooled !== undefined &&
    raws.some((r) => r[0] === BLOB_TX_TYPE)
  ) {
    leaves = await pooledLeaves(raws, pooled, what);
  }
  const root = orderedTrieRoot(leaves);
  if (!bytesEqual(root, header.transactionsRoot)) {
    throw new DataMismatchError(
      "transactions-root",
      `${what}: the transactions do not have the header's root`,
      {
        expected: toHex(header.transactionsRoot),
        actual: toHex(root),
        number: header.number,
        count: raws.length,
      },
    );
  }
  return { transactions: raws, leaves };
}

/** `0x`-quantity of a block number, as JSON-RPC takes it. */
export function quantity(n: bigint): string {
  return `0x${n.toString(16)}`;
}
