/**
 * The execution-apis `debug_getRaw*` methods and geth's `debug_dbGet` over the node's store: what a
 * prover host's witness collector reads from an execution client (raw headers, blocks, receipts and
 * transactions; trie nodes and code by hash).
 */
import { RLP } from "@ethereumjs/rlp";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { KeyNotFoundError, type NodeHandlers } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { bytesEqual, encodeHeader, encodeReceipt, toHexRaw } from "../../chain/index.js";
import type { ChainNode } from "../chain-node.js";
import type { BlockContent } from "../block-content.js";
import { findSelected, findTransaction } from "./shared.js";

export type DebugHandlers = Pick<
  NodeHandlers,
  | "debug_getRawHeader"
  | "debug_getRawBlock"
  | "debug_getRawReceipts"
  | "debug_getRawTransaction"
  | "debug_dbGet"
>;

/** geth's database prefix of contract code: 'c' ‖ code hash. */
const CODE_PREFIX = 0x63;

/** rlp([header, transactions, uncles = [], withdrawals = []]); legacy transactions are lists, typed ones strings. */
export function encodeRawBlock(content: BlockContent): Uint8Array {
  const header = RLP.decode(encodeHeader(content.header));
  const transactions = content.transactions.map((tx) => (tx[0]! >= 0xc0 ? RLP.decode(tx) : tx));
  return RLP.encode([header, transactions, [], []] as never);
}

export function createDebugHandlers(node: ChainNode): DebugHandlers {
  const contentOf = (block: T.BlockNumberOrTagOrHash): BlockContent | null => {
    const r = findSelected(node, block);
    return r === undefined ? null : node.content(r);
  };
  return {
    debug_getRawHeader: ({ block }) => {
      const c = contentOf(block);
      return c === null ? null : encodeHeader(c.header);
    },
    debug_getRawBlock: ({ block }) => {
      const c = contentOf(block);
      return c === null ? null : encodeRawBlock(c);
    },
    debug_getRawReceipts: ({ block }) => contentOf(block)?.receipts.map(encodeReceipt) ?? null,
    debug_getRawTransaction: ({ transactionHash }) => {
      const found = findTransaction(node, transactionHash);
      if (found === undefined) return null;
      if ("pooled" in found) return node.producer.pool.get(toHexRaw(transactionHash))?.decoded.raw ?? null;
      const c = "content" in found ? found.content : found.preconfirmed;
      return c.transactions[found.index]!;
    },
    debug_dbGet: ({ key }) => {
      const hash =
        key.length === 32 ? key : key.length === 33 && key[0] === CODE_PREFIX ? key.subarray(1) : undefined;
      const value = hash === undefined ? undefined : node.store.getNodeByHash(hash);
      // The table is keyed by 31 bytes of the hash: only a value that hashes to the whole key is served.
      if (value === undefined || !bytesEqual(keccak_256(value), hash!))
        throw new KeyNotFoundError("not found");
      return value;
    },
  };
}
