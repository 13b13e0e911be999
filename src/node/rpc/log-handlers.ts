/**
 * eth_getLogs over a block hash or a range of blocks; a range may end at (or start from) the block being
 * built, whose pre-confirmed logs are included.
 */
import { BlockNotFoundError, LimitExceededError, type NodeHandlers } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { toHex } from "../../chain/index.js";
import { InvalidParamsError } from "../../rpc/index.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
import { describeSelector, filterAddresses, logsOf } from "./shared.js";

export const MAX_LOG_BLOCK_RANGE = 10_000n;
export const MAX_LOGS = 10_000;

export type LogHandlers = Pick<NodeHandlers, "eth_getLogs">;

export function createLogHandlers(node: ChainNode): LogHandlers {
  const content = (r: ResolvedBlock) => node.content(r);
  return {
    eth_getLogs({ filter }) {
      const addresses = filterAddresses(filter.address);
      if (filter.blockHash !== undefined) {
        if (filter.fromBlock !== undefined || filter.toBlock !== undefined) {
          throw new InvalidParamsError("filter: blockHash cannot be combined with fromBlock/toBlock");
        }
        const r = node.blockByHash(filter.blockHash);
        if (r === undefined) throw new BlockNotFoundError(`block not found: ${toHex(filter.blockHash)}`);
        return logsOf(content(r), addresses, filter.topics);
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
      if (toN - fromN + 1n > MAX_LOG_BLOCK_RANGE) {
        throw new LimitExceededError(
          `query exceeds the limit: at most ${MAX_LOG_BLOCK_RANGE} blocks per eth_getLogs`,
        );
      }
      const logs: T.Log[] = [];
      for (let n = fromN; n <= toN; n++) {
        const r = n === toN ? to : n === fromN ? from : node.resolveTag(n);
        if (r === undefined) continue;
        const c = n === toN ? toContent : content(r);
        logs.push(...logsOf(c, addresses, filter.topics));
        if (logs.length > MAX_LOGS)
          throw new LimitExceededError(`query exceeds the limit: more than ${MAX_LOGS} logs`);
      }
      return logs;
    },
  };
}
