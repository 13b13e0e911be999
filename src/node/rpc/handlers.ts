/**
 * The node's JSON-RPC handlers (the generated NodeHandlers interface), composed from one module per
 * method group: blocks, transactions and receipts (block-handlers.ts), account state (state-handlers.ts),
 * calls (call-handlers.ts), fees (fee-handlers.ts), logs (log-handlers.ts), submission (send-handlers.ts),
 * chain and client identity (info-handlers.ts), subscriptions (notification-handlers.ts), polling filters
 * (filter-handlers.ts), raw debug reads (debug-handlers.ts), execution witnesses (witness-handlers.ts) and the
 * txpool namespace (txpool-handlers.ts).
 * The groups share their helpers through shared.ts and errors.ts and never import one another.
 */
import type { NodeHandlers } from "../../../generated/rpc/index.js";
import type { BoundMethod } from "../../rpc/index.js";
import type { ChainNode } from "../chain-node.js";
import { createBlockHandlers, createOffloadedBlockMethods } from "./block-handlers.js";
import { createCallHandlers } from "./call-handlers.js";
import { createDebugHandlers } from "./debug-handlers.js";
import { createFeeHandlers, createOffloadedFeeMethods } from "./fee-handlers.js";
import { createFilterHandlers } from "./filter-handlers.js";
import type { FilterRegistry } from "./filter-registry.js";
import { createInfoHandlers } from "./info-handlers.js";
import { createLogHandlers, createOffloadedLogMethods } from "./log-handlers.js";
import { createNotificationHandlers } from "./notification-handlers.js";
import { createOptimismHandlers } from "./optimism-handlers.js";
import { createSendHandlers } from "./send-handlers.js";
import { createOffloadedStateMethods, createStateHandlers } from "./state-handlers.js";
import { type SyncStatusSource, standaloneSyncStatus } from "./sync-status.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits } from "./limits.js";
import { createTxPoolHandlers } from "./txpool-handlers.js";
import { type WitnessService, createWitnessHandlers, createWitnessService } from "./witness-handlers.js";

/**
 * Every NodeHandlers method over `node`, bounded by `limits`, the rollup-node methods reading `syncStatus`
 * (standalone by default; optimism-handlers.ts), the registry of its polling filters (for
 * metrics), and the methods the server binds in place of their typed handler because their work and
 * serialization run off the event loop (`offloaded`: eth_getProof, full blocks, block receipts, eth_getLogs,
 * eth_feeHistory), and the witness computations the client surfaces re-shape (surfaces.ts).
 */
export function createNodeHandlers(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
  syncStatus: SyncStatusSource = standaloneSyncStatus(node),
): {
  handlers: NodeHandlers;
  filterRegistry: FilterRegistry;
  offloaded: BoundMethod[];
  witness: WitnessService;
} {
  const logs = createLogHandlers(node, limits);
  const filters = createFilterHandlers(node, logs.eth_getLogs, limits);
  const witness = createWitnessService(node, limits);
  const handlers: NodeHandlers = {
    ...createBlockHandlers(node),
    ...createStateHandlers(node, limits),
    ...createCallHandlers(node),
    ...createFeeHandlers(node, limits),
    ...logs,
    ...createSendHandlers(node),
    ...createInfoHandlers(node),
    ...createNotificationHandlers(node, limits),
    ...filters.handlers,
    ...createDebugHandlers(node),
    ...createWitnessHandlers(witness),
    ...createTxPoolHandlers(node),
    ...createOptimismHandlers(node, syncStatus),
  };
  const offloaded = [
    ...createOffloadedStateMethods(node, limits),
    ...createOffloadedBlockMethods(node),
    ...createOffloadedLogMethods(node, limits),
    ...createOffloadedFeeMethods(node, limits),
  ];
  return { handlers, filterRegistry: filters.registry, offloaded, witness };
}
