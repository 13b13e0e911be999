/**
 * Helpers every group of the node's JSON-RPC handlers shares: naming and resolving a block selector,
 * marking a `pending` answer with its snapshot, finding a transaction (sealed, pre-confirmed or pooled),
 * and matching logs against a filter. No handler group imports another; they all import this module.
 */
import { BlockNotFoundError } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { bytesEqual, toHex, toHexRaw } from "../../chain/index.js";
import type { RequestContext } from "../../rpc/index.js";
import type { BlockContent } from "../block-content.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
export { filterAddresses, logsOf, matchesFilter } from "./log-match.js";

export type Selector = T.BlockNumberOrTagOrHash;

/** A selector as the client wrote it, for error messages. */
export function describeSelector(s: Selector | T.BlockNumberOrTag): string {
  if (typeof s === "string") return s;
  if (typeof s === "bigint") return `0x${s.toString(16)}`;
  if (s instanceof Uint8Array) return toHex(s);
  if ("blockHash" in s) return toHex(s.blockHash);
  return describeSelector(s.blockNumber);
}

/** Marks the response with the snapshot a `pending` answer came from (HTTP headers). */
export function tagSnapshot(ctx: RequestContext, r: ResolvedBlock): void {
  if (r.kind !== "pending") return;
  ctx.responseHeaders.set("X-Pending-Block", `0x${r.pending.snapshot.header.number.toString(16)}`);
  ctx.responseHeaders.set("X-Flashblock-Index", String(r.pending.index));
  ctx.responseHeaders.set("X-Flashblock-Payload-Id", toHex(r.pending.payloadId));
  ctx.responseHeaders.set("X-Flashblock-Created-At", r.pending.createdAt.toFixed(3));
}

/** The block a tag, number, hash or EIP-1898 object names, or undefined when there is none. */
export function findSelected(node: ChainNode, s: Selector): ResolvedBlock | undefined {
  if (typeof s === "string" || typeof s === "bigint") return node.resolveTag(s);
  if (s instanceof Uint8Array) return node.blockByHash(s);
  if ("blockHash" in s) return node.blockByHash(s.blockHash);
  return node.resolveTag(s.blockNumber);
}

/** The selected block (`fallback` when none is given); -32001 when there is no such block. */
export function resolveSelector(
  node: ChainNode,
  selector: Selector | undefined,
  fallback = "latest",
): ResolvedBlock {
  const s = selector ?? (fallback as T.BlockTag);
  const resolved = findSelected(node, s);
  if (resolved === undefined) throw new BlockNotFoundError(`block not found: ${describeSelector(s)}`);
  return resolved;
}

/** Finds a transaction: sealed, pre-confirmed, then pooled. */
export function findTransaction(
  node: ChainNode,
  hash: Uint8Array,
):
  | { content: BlockContent; index: number }
  | { preconfirmed: BlockContent; index: number }
  | { pooled: true }
  | undefined {
  const loc = node.store.transactionLocation(hash);
  if (loc !== undefined) {
    const block = node.store.blockByNumber(loc.number);
    if (block !== undefined) return { content: node.content({ kind: "sealed", block }), index: loc.index };
  }
  const p = node.pending;
  if (p !== undefined) {
    const idx = p.snapshot.transactionHashes.findIndex((h) => bytesEqual(h, hash));
    if (idx >= 0) {
      const c = node.content({ kind: "pending", pending: p });
      // With --preconfirmed-receipts false a pre-confirmed transaction looks pooled until sealed.
      return node.options.preconfirmedReceipts ? { content: c, index: idx } : { preconfirmed: c, index: idx };
    }
  }
  return node.producer.pool.get(toHexRaw(hash)) !== undefined ? { pooled: true } : undefined;
}
