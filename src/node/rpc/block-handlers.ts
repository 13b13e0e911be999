/**
 * Blocks, their transactions and receipts at every tag (pending = the latest flashblock snapshot, never
 * null), by number or hash; transactions and receipts by hash (sealed, pre-confirmed or pooled).
 */
import type { NodeHandlers } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { decodeTransaction, toHexRaw } from "../../chain/index.js";
import type { BlockContent } from "../block-content.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
import { formatBlock, formatReceipt, formatTransaction } from "./format.js";
import { findSelected, findTransaction, tagSnapshot } from "./shared.js";

export type BlockHandlers = Pick<
  NodeHandlers,
  | "eth_blockNumber"
  | "eth_getBlockByNumber"
  | "eth_getBlockByHash"
  | "eth_getTransactionByHash"
  | "eth_getTransactionReceipt"
  | "eth_getBlockReceipts"
  | "eth_getBlockTransactionCountByNumber"
  | "eth_getBlockTransactionCountByHash"
  | "eth_getTransactionByBlockNumberAndIndex"
  | "eth_getTransactionByBlockHashAndIndex"
  | "eth_getUncleCountByBlockNumber"
  | "eth_getUncleCountByBlockHash"
>;

export function createBlockHandlers(node: ChainNode): BlockHandlers {
  const content = (r: ResolvedBlock) => node.content(r);

  /** A block's transaction at `index`, with its placement and receipt-derived fields. */
  const placedTransaction = (c: BlockContent, index: number): T.Transaction => {
    return formatTransaction(decodeTransaction(c.transactions[index]!, node.common), {
      placement: {
        blockHash: c.hash,
        blockNumber: c.header.number,
        blockTimestamp: c.header.timestamp,
        index,
      },
      details: c.details[index],
      receipt: c.receipts[index],
    });
  };
  const transactionAt = (r: ResolvedBlock | undefined, index: bigint): T.Transaction | null => {
    if (r === undefined) return null;
    const c = content(r);
    return index < BigInt(c.transactions.length) ? placedTransaction(c, Number(index)) : null;
  };
  const transactionCount = (r: ResolvedBlock | undefined): bigint | null =>
    r === undefined ? null : BigInt(content(r).transactions.length);

  return {
    eth_blockNumber: () => node.head.header.number,
    eth_getBlockByNumber({ block, fullTransactions }, ctx) {
      const r = node.resolveTag(block);
      if (r === undefined) return null;
      tagSnapshot(ctx, r);
      return formatBlock(content(r), fullTransactions, node.common);
    },
    eth_getBlockByHash({ blockHash, fullTransactions }, ctx) {
      const r = node.blockByHash(blockHash);
      if (r === undefined) return null;
      tagSnapshot(ctx, r);
      return formatBlock(content(r), fullTransactions, node.common);
    },
    eth_getTransactionByHash({ transactionHash }) {
      const found = findTransaction(node, transactionHash);
      if (found === undefined) return null;
      if ("preconfirmed" in found) {
        const c = found.preconfirmed;
        return formatTransaction(decodeTransaction(c.transactions[found.index]!, node.common), {
          sender: c.details[found.index]!.from,
        });
      }
      if ("pooled" in found) {
        const pooled = node.sequencer.pool.get(toHexRaw(transactionHash))!;
        return formatTransaction(pooled.decoded, { sender: pooled.sender });
      }
      return placedTransaction(found.content, found.index);
    },
    eth_getTransactionReceipt({ transactionHash }) {
      const found = findTransaction(node, transactionHash);
      if (found === undefined || !("content" in found)) return null;
      return formatReceipt(found.content, found.index);
    },
    eth_getBlockReceipts({ block }, ctx) {
      const r = findSelected(node, block);
      if (r === undefined) return null;
      // Without pre-confirmed receipts, a transaction of the block being built has none yet.
      if (r.kind === "pending" && !node.options.preconfirmedReceipts) return null;
      tagSnapshot(ctx, r);
      const c = content(r);
      return c.receipts.map((_, i) => formatReceipt(c, i));
    },
    eth_getBlockTransactionCountByNumber({ block }, ctx) {
      const r = node.resolveTag(block);
      if (r !== undefined) tagSnapshot(ctx, r);
      return transactionCount(r);
    },
    eth_getBlockTransactionCountByHash: ({ blockHash }) => transactionCount(node.blockByHash(blockHash)),
    eth_getTransactionByBlockNumberAndIndex({ block, index }, ctx) {
      const r = node.resolveTag(block);
      if (r !== undefined) tagSnapshot(ctx, r);
      return transactionAt(r, index);
    },
    eth_getTransactionByBlockHashAndIndex: ({ blockHash, index }) =>
      transactionAt(node.blockByHash(blockHash), index),
    eth_getUncleCountByBlockNumber: ({ block }) => (node.resolveTag(block) === undefined ? null : 0n),
    eth_getUncleCountByBlockHash: ({ blockHash }) => (node.blockByHash(blockHash) === undefined ? null : 0n),
  };
}
