/** Wires a ChainNode to the JSON-RPC server core: generated node methods, flashblocks route. */
import type { Logger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { type RpcServer, createRpcServer } from "../rpc/index.js";
import { bindNodeHandlers } from "../../generated/rpc/index.js";
import type { ChainNode } from "./chain-node.js";
import { createNodeHandlers } from "./rpc/handlers.js";
import type { SyncStatusSource } from "./rpc/sync-status.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, rpcServerLimits } from "./rpc/limits.js";
import { DEFAULT_SURFACE_OPTIONS, type SurfaceOptions, applySurface } from "./rpc/surfaces.js";

export const FLASHBLOCKS_PATH = "/ws/flashblocks";

export function createNodeServer(
  node: ChainNode,
  options: {
    host: string;
    port: number;
    logger: Logger;
    limits?: NodeRpcLimits;
    syncStatus?: SyncStatusSource;
    /** --rpc-surface: which client's methods and answers the node imitates (default: its own, `full`). */
    surface?: SurfaceOptions;
  },
): RpcServer {
  const limits = options.limits ?? DEFAULT_NODE_RPC_LIMITS;
  // optimism_syncStatus: standalone by default; an L1-backed node passes its derived heads' source.
  const { handlers, filterRegistry, offloaded, witness } = createNodeHandlers(
    node,
    limits,
    options.syncStatus,
  );
  const methods = new Map(bindNodeHandlers(handlers));
  for (const method of offloaded) methods.set(method.name, method); // docs/node/limits.md "Block production under load"
  applySurface(methods, node, witness, options.surface ?? DEFAULT_SURFACE_OPTIONS); // docs/node-surfaces.md
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
  const witnesses = metrics.counter({
    name: "node_witnesses_total",
    help: "block witnesses answered (debug_executionWitness, debug_executePayload, the client surfaces' forms), from the block's witness record or by executing the block",
    labelNames: ["method", "source"],
  });
  witness.onAnswered((method, recorded) =>
    witnesses.inc({ method, source: recorded ? "record" : "execution" }),
  );
  const server = createRpcServer({
    methods,
    host: options.host,
    port: options.port,
    ...rpcServerLimits(limits),
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
  node.producer.onSnapshot((p) => {
    snapshots.inc();
    poolSize.set(node.producer.pool.size);
    server.broadcast(FLASHBLOCKS_PATH, JSON.stringify(p.message));
  });
  node.producer.onSealed((b) => {
    head.set(Number(b.header.number));
    installedFilters.set(filterRegistry.size);
  });
  return server;
}
