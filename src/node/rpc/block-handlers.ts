/**
 * Blocks, their transactions and receipts at every tag (pending = the latest flashblock snapshot, never
 * null), by number or hash; transactions and receipts by hash (sealed, pre-confirmed or pooled).
 */
import {
  eth_getBlockByHash,
  eth_getBlockByNumber,
  eth_getBlockReceipts,
  type NodeHandlers,
} from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { decodeTransaction, toHexRaw } from "../../chain/index.js";
import type { BoundMethod, RequestContext } from "../../rpc/index.js";
import type { BlockContent } from "../block-content.js";
import { fullBlockJson, receiptsJson } from "../calls/block-reads.js";
import type { PendingSnapshot } from "../block-in-progress.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
import { formatBlock, formatReceipt, formatTransaction } from "./format.js";
import { bindRawMethod } from "./raw-methods.js";
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
        const pooled = node.producer.pool.get(toHexRaw(transactionHash))!;
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

/**
 * Sealed blocks up to this encoded size (a few transactions) are answered on the event loop: formatting
 * them costs less than the worker round trip (bench:abuse's full-block burst, docs/node/limits.md "Block
 * production under load").
 */
export const INLINE_BLOCK_MAX_BYTES = 16 * 1024;

/**
 * Full blocks and block receipts as the server binds them (docs/node/limits.md "Block production under load"):
 * the block is resolved on the event loop; a sealed block larger than `inlineMaxBytes` is formatted and
 * serialized where calls run (a worker by default, which reads the block from the store), a smaller one here; a pending block's is made here, once
 * per snapshot and method (one block, at most the gas limit of transactions). Hash-only blocks stay typed.
 * Every answer is byte for byte the typed handler's.
 */
export function createOffloadedBlockMethods(
  node: ChainNode,
  inlineMaxBytes = INLINE_BLOCK_MAX_BYTES,
): BoundMethod[] {
  const context = { blocks: node.store, common: node.common };
  /** A small sealed block costs less to format here than a worker round trip does. */
  const inline = (r: ResolvedBlock & { kind: "sealed" }) => r.block.size <= BigInt(inlineMaxBytes);
  const pendingJson = (key: string, r: ResolvedBlock & { kind: "pending" }, make: () => string): string => {
    const memo = pendingMemo.get(key);
    if (memo?.snapshot === r.pending) return memo.json;
    const json = make();
    pendingMemo.set(key, { snapshot: r.pending, json });
    return json;
  };
  const pendingMemo = new Map<string, { snapshot: PendingSnapshot; json: string }>();
  const block = async (
    method: "eth_getBlockByNumber" | "eth_getBlockByHash",
    r: ResolvedBlock | undefined,
    full: boolean,
    ctx: RequestContext,
  ): Promise<string> => {
    const spec = method === "eth_getBlockByNumber" ? eth_getBlockByNumber : eth_getBlockByHash;
    if (r === undefined) return JSON.stringify(spec.encodeResult(null));
    tagSnapshot(ctx, r);
    if (!full) return JSON.stringify(spec.encodeResult(formatBlock(node.content(r), false, node.common)));
    if (r.kind === "pending")
      return pendingJson(method, r, () => fullBlockJson(method, node.content(r), node.common));
    if (inline(r)) return fullBlockJson(method, r.block, node.common);
    return node.calls.blockReadJson({ method, number: r.block.header.number }, context, ctx.signal);
  };
  return [
    bindRawMethod(eth_getBlockByNumber, ({ block: tag, fullTransactions }, ctx) =>
      block("eth_getBlockByNumber", node.resolveTag(tag), fullTransactions, ctx),
    ),
    bindRawMethod(eth_getBlockByHash, ({ blockHash, fullTransactions }, ctx) =>
      block("eth_getBlockByHash", node.blockByHash(blockHash), fullTransactions, ctx),
    ),
    bindRawMethod(eth_getBlockReceipts, async ({ block: selector }, ctx) => {
      const r = findSelected(node, selector);
      // Without pre-confirmed receipts, a transaction of the block being built has none yet.
      if (r === undefined || (r.kind === "pending" && !node.options.preconfirmedReceipts))
        return JSON.stringify(eth_getBlockReceipts.encodeResult(null));
      tagSnapshot(ctx, r);
      if (r.kind === "pending")
        return pendingJson("eth_getBlockReceipts", r, () => receiptsJson(node.content(r)));
      if (inline(r)) return receiptsJson(r.block);
      const read = { method: "eth_getBlockReceipts", number: r.block.header.number } as const;
      return node.calls.blockReadJson(read, context, ctx.signal);
    }),
  ];
}
