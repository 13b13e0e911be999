/**
 * eth_getLogs over a block hash or a range of blocks; a range may end at (or start from) the block being
 * built, whose pre-confirmed logs are included.
 */
import { BlockNotFoundError, type NodeHandlers } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { toHex } from "../../chain/index.js";
import { InvalidParamsError } from "../../rpc/index.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceFilterLimits, enforceLimit } from "./limits.js";
import { describeSelector, filterAddresses, logsOf } from "./shared.js";

export type LogHandlers = Pick<NodeHandlers, "eth_getLogs">;

export function createLogHandlers(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): LogHandlers {
  const content = (r: ResolvedBlock) => node.content(r);
  return {
    eth_getLogs({ filter }) {
      enforceFilterLimits(limits, filter);
      const addresses = filterAddresses(filter.address);
      if (filter.blockHash !== undefined) {
        if (filter.fromBlock !== undefined || filter.toBlock !== undefined) {
          throw new InvalidParamsError("filter: blockHash cannot be combined with fromBlock/toBlock");
        }
        const r = node.blockByHash(filter.blockHash);
        if (r === undefined) throw new BlockNotFoundError(`block not found: ${toHex(filter.blockHash)}`);
        const logs = logsOf(content(r), addresses, filter.topics);
        enforceLimit(limits, "logsMaxResults", logs.length, "logs of one eth_getLogs");
        return logs;
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
      const fromN = content(from).header.number;
      const toContent = content(to);
      const toN = toContent.header.number;
      if (fromN > toN) throw new InvalidParamsError("filter: fromBlock is after toBlock");
      const span = toN - fromN + 1n;
      enforceLimit(
        limits,
        "logsMaxBlockRange",
        span > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(span),
        "blocks in one eth_getLogs range",
      );
      const logs: T.Log[] = [];
      for (let n = fromN; n <= toN; n++) {
        const r = n === toN ? to : n === fromN ? from : node.resolveTag(n);
        if (r === undefined) continue;
        const c = n === toN ? toContent : content(r);
        logs.push(...logsOf(c, addresses, filter.topics));
        // Stops as soon as the count is over: the rest of the range is not read.
        enforceLimit(limits, "logsMaxResults", logs.length, "logs of one eth_getLogs (counted so far)");
      }
      return logs;
    },
  };
}
