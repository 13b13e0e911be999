/**
 * Checks shared by the L1 and L2 providers: a block object's header rebuilt from its JSON must hash to the hash
 * that names it, and its transactions, rebuilt to EIP-2718 bytes, must have the header's transactionsRoot.
 */
import {
  type BlockHeader,
  ChainError,
  bytesEqual,
  headerFromJson,
  headerHash,
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

/** A full block object's transactions as EIP-2718 bytes, checked against the header's transactionsRoot. */
export function checkedTransactions(json: unknown, header: BlockHeader, what: string): Uint8Array[] {
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
  const root = orderedTrieRoot(raws);
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
  return raws;
}

/** `0x`-quantity of a block number, as JSON-RPC takes it. */
export function quantity(n: bigint): string {
  return `0x${n.toString(16)}`;
}
