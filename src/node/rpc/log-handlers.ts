/**
 * eth_getLogs over a block hash or a range of blocks; a range may end at (or start from) the block being
 * built, whose pre-confirmed logs are included.
 */
import { BlockNotFoundError, eth_getLogs, type NodeHandlers } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { toHex } from "../../chain/index.js";
import { type BoundMethod, InvalidParamsError } from "../../rpc/index.js";
import type { BlockRead } from "../calls/block-reads.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceFilterLimits, enforceLimit } from "./limits.js";
import { describeSelector, filterAddresses, logsOf } from "./shared.js";
import { bindRawMethod } from "./raw-methods.js";
import { toNodeRpcError } from "./errors.js";

export type LogHandlers = Pick<NodeHandlers, "eth_getLogs">;

/** What an eth_getLogs asks for, checked and resolved on the event loop. */
type LogsPlan =
  | { kind: "hash"; block: ResolvedBlock }
  | { kind: "range"; from: ResolvedBlock; to: ResolvedBlock; fromN: bigint; toN: bigint };

/** Checks the filter's limits and resolves its block(s): the same checks and errors for both paths. */
function planLogs(node: ChainNode, limits: NodeRpcLimits, filter: T.Filter): LogsPlan {
  enforceFilterLimits(limits, filter);
  if (filter.blockHash !== undefined) {
    if (filter.fromBlock !== undefined || filter.toBlock !== undefined) {
      throw new InvalidParamsError("filter: blockHash cannot be combined with fromBlock/toBlock");
    }
    const r = node.blockByHash(filter.blockHash);
    if (r === undefined) throw new BlockNotFoundError(`block not found: ${toHex(filter.blockHash)}`);
    return { kind: "hash", block: r };
  }
  // A range may end at (or start from) the number of the block being built: that is pending.
  const rangeEnd = (tag: T.BlockNumberOrTag): ResolvedBlock | undefined => {
    const p = node.pending;
    if (typeof tag === "bigint" && p !== undefined && tag === p.snapshot.header.number)
      return { kind: "pending", pending: p };
    return node.resolveTag(tag);
  };
  const from = rangeEnd(filter.fromBlock ?? "latest");
  const to = rangeEnd(filter.toBlock ?? "latest");
  if (from === undefined || to === undefined) {
    throw new BlockNotFoundError(
      `block not found: ${describeSelector((from === undefined ? filter.fromBlock : filter.toBlock) ?? "latest")}`,
    );
  }
  const fromN = node.content(from).header.number;
  const toN = node.content(to).header.number;
  if (fromN > toN) throw new InvalidParamsError("filter: fromBlock is after toBlock");
  const span = toN - fromN + 1n;
  enforceLimit(
    limits,
    "logsMaxBlockRange",
    span > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(span),
    "blocks in one eth_getLogs range",
  );
  return { kind: "range", from, to, fromN, toN };
}

const WHAT_HASH = "logs of one eth_getLogs";
const WHAT_RANGE = "logs of one eth_getLogs (counted so far)";

export function createLogHandlers(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): LogHandlers {
  const content = (r: ResolvedBlock) => node.content(r);
  return {
    eth_getLogs({ filter }) {
      const plan = planLogs(node, limits, filter);
      const addresses = filterAddresses(filter.address);
      if (plan.kind === "hash") {
        const logs = logsOf(content(plan.block), addresses, filter.topics);
        enforceLimit(limits, "logsMaxResults", logs.length, WHAT_HASH);
        return logs;
      }
      const { from, to, fromN, toN } = plan;
      const toContent = content(to);
      const logs: T.Log[] = [];
      for (let n = fromN; n <= toN; n++) {
        const r = n === toN ? to : n === fromN ? from : node.resolveTag(n);
        if (r === undefined) continue;
        const c = n === toN ? toContent : content(r);
        logs.push(...logsOf(c, addresses, filter.topics));
        // Stops as soon as the count is over: the rest of the range is not read.
        enforceLimit(limits, "logsMaxResults", logs.length, WHAT_RANGE);
      }
      return logs;
    },
  };
}

/**
 * eth_getLogs as the server binds it: the limits and the blocks are checked on the event loop, the sealed
 * blocks' logs are read and the answer serialized where calls run (a worker by default: docs/node/limits.md
 * "Block production under load"); the pending snapshot's logs, held by this thread, are added to the job.
 * The answer is byte for byte the typed handler's.
 */
export function createOffloadedLogMethods(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): BoundMethod[] {
  return [
    bindRawMethod(eth_getLogs, async ({ filter }, ctx) => {
      const plan = planLogs(node, limits, filter);
      const addresses = filterAddresses(filter.address);
      let read: BlockRead;
      if (plan.kind === "hash" && plan.block.kind === "pending") {
        const tail = logsOf(content(node, plan.block), addresses, filter.topics);
        read = rangeRead(0n, -1n, tail, WHAT_HASH);
      } else if (plan.kind === "hash") {
        const n = content(node, plan.block).header.number;
        read = rangeRead(n, n, [], WHAT_HASH);
      } else {
        // Only the end of a range can be the block being built (it is the highest number).
        const pending = plan.to.kind === "pending";
        const tail = pending ? logsOf(content(node, plan.to), addresses, filter.topics) : [];
        read = rangeRead(plan.fromN, pending ? plan.toN - 1n : plan.toN, tail, WHAT_RANGE);
      }
      try {
        return await node.calls.blockReadJson(read, { blocks: node.store, common: node.common }, ctx.signal);
      } catch (error) {
        throw toNodeRpcError(error);
      }

      function rangeRead(from: bigint, to: bigint, tail: T.Log[], what: string): BlockRead {
        return {
          method: "eth_getLogs",
          from,
          to,
          addresses,
          topics: filter.topics,
          tail,
          maxResults: limits.logsMaxResults,
          what,
        };
      }
    }),
  ];
}

const content = (node: ChainNode, r: ResolvedBlock) => node.content(r);
