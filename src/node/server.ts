/** Wires a ChainNode to the JSON-RPC server core: generated node methods, flashblocks route. */
import type { Logger } from "../log/logger.js";
import { MetricsRegistry } from "../metrics/registry.js";
import { type RpcServer, createRpcServer } from "../rpc/index.js";
import { bindNodeHandlers } from "../../generated/rpc/node.js";
import type { ChainNode } from "./chain-node.js";
import { createDebugHandlers } from "./rpc/debug-handlers.js";
import { createFilterHandlers } from "./rpc/filter-handlers.js";
import { createNodeHandlers } from "./rpc/handlers.js";
import { createTxPoolHandlers } from "./rpc/txpool-handlers.js";
import { createNotificationHandlers } from "./rpc/notification-handlers.js";

export const FLASHBLOCKS_PATH = "/ws/flashblocks";

export function createNodeServer(
  node: ChainNode,
  options: { host: string; port: number; logger: Logger },
): RpcServer {
  const core = createNodeHandlers(node);
  const filters = createFilterHandlers(node, core.eth_getLogs);
  const methods = bindNodeHandlers({
    ...core,
    ...filters.handlers,
    ...createDebugHandlers(node),
    ...createTxPoolHandlers(node),
    ...createNotificationHandlers(node),
  });
  const metrics = new MetricsRegistry({ processMetrics: true });
  const head = metrics.gauge({ name: "node_head_block_number", help: "number of the latest sealed block" });
  const snapshots = metrics.counter({
    name: "node_flashblocks_total",
    help: "pre-confirmation snapshots published",
  });
  const poolSize = metrics.gauge({
    name: "node_txpool_transactions",
    help: "transactions waiting in the pool",
  });
  const installedFilters = metrics.gauge({
    name: "node_installed_filters",
    help: "polling filters installed (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter)",
  });
  const server = createRpcServer({
    methods,
    host: options.host,
    port: options.port,
    broadcastRoutes: [
      {
        path: FLASHBLOCKS_PATH,
        // A new subscriber first gets the current snapshot, then every new one.
        onOpen: (send) => {
          const p = node.pending;
          if (p !== undefined) send(JSON.stringify(p.message));
        },
      },
    ],
    metrics,
    logger: options.logger,
    corsOrigin: "*",
  });
  node.sequencer.onSnapshot((p) => {
    snapshots.inc();
    poolSize.set(node.sequencer.pool.size);
    server.broadcast(FLASHBLOCKS_PATH, JSON.stringify(p.message));
  });
  node.sequencer.onSealed((b) => {
    head.set(Number(b.header.number));
    installedFilters.set(filters.registry.size);
  });
  return server;
}
