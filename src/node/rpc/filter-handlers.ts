/**
 * The polling-filter methods of NodeHandlers (eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter) over
 * one FilterRegistry fed by the node's sequencer and pool. viem's HTTP watchers and ethers' polling
 * subscribers (`provider.on("pending")`, `on("block")`, contract events) use them.
 */
import { FilterNotFoundError, type NodeHandlers } from "../../../generated/rpc/index.js";
import type { ChainNode } from "../chain-node.js";
import { FilterRegistry } from "./filter-registry.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceFilterLimits } from "./limits.js";
import { logsOf, matchesFilter } from "./shared.js";

export type FilterHandlers = Pick<
  NodeHandlers,
  | "eth_newFilter"
  | "eth_newBlockFilter"
  | "eth_newPendingTransactionFilter"
  | "eth_getFilterChanges"
  | "eth_getFilterLogs"
  | "eth_uninstallFilter"
>;

export function createFilterHandlers(
  node: ChainNode,
  getLogs: NodeHandlers["eth_getLogs"],
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): { handlers: FilterHandlers; registry: FilterRegistry } {
  const registry = new FilterRegistry({
    onSealed: (listener) => node.producer.onSealed(listener),
    onPoolAdded: (listener) => node.producer.pool.onAdded(listener),
    logsOf: (block) => logsOf(node.content({ kind: "sealed", block }), undefined, undefined),
    matches: matchesFilter,
  });
  const notFound = (): never => {
    throw new FilterNotFoundError("filter not found");
  };
  const handlers: FilterHandlers = {
    eth_newFilter: ({ filter }) => {
      enforceFilterLimits(limits, filter);
      return registry.newLogFilter(filter);
    },
    eth_newBlockFilter: () => registry.newBlockFilter(),
    eth_newPendingTransactionFilter: () => registry.newPendingTransactionFilter(),
    eth_getFilterChanges: ({ filterId }) => registry.changes(filterId) ?? notFound(),
    eth_getFilterLogs: ({ filterId }, ctx) => {
      const filter = registry.logCriteria(filterId) ?? notFound();
      return getLogs({ filter }, ctx);
    },
    eth_uninstallFilter: ({ filterId }) => registry.uninstall(filterId),
  };
  return { handlers, registry };
}
