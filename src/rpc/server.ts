/**
 * The JSON-RPC 2.0 server core on uWebSockets.js, shared by the chain node and the prover host.
 *
 * Routes: POST <any path> JSON-RPC over HTTP; GET /healthz (a configured method, 200 with its
 * result or 500 with the JSON-RPC error object); GET /metrics (Prometheus text); websocket
 * JSON-RPC with subscriptions at `websocket.path` (default "/"); raw broadcast websocket routes.
 *
 * This class composes the parts, each in its own file: the HTTP routes (http-routes.ts), the JSON-RPC
 * websocket (websocket-rpc.ts), the broadcast routes (broadcast.ts) and the lifecycle with the graceful close
 * (lifecycle.ts); every uWS callback goes through the guard (uws-guard.ts).
 */
import { createSilentLogger, type Logger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { type BroadcastRouteOptions, BroadcastRoutes } from "./broadcast.js";
import { RpcDispatcher } from "./dispatcher.js";
import { HttpRoutes, jsonRpcFailureBody } from "./http-routes.js";
import { InFlight } from "./in-flight.js";
import { type CloseOptions, ServerLifecycle } from "./lifecycle.js";
import { type BatchBudget, type RpcLimits, resolveLimits } from "./limits.js";
import type { MethodTable } from "./method.js";
import type { MethodLimits } from "./method-limits.js";
import { RpcMetrics } from "./rpc-metrics.js";
import type { ServerCore } from "./server-core.js";
import { ServerConfigError } from "./server-errors.js";
import { createUwsApp } from "./uws-app.js";
import { UwsGuard } from "./uws-guard.js";
import { RpcWebSocketRoute, type WebSocketOptions } from "./websocket-rpc.js";

export type { BroadcastRouteOptions, CloseOptions, WebSocketOptions };

export interface RpcServerOptions {
  readonly methods: MethodTable;
  /** Address to bind; default 127.0.0.1. */
  readonly host?: string;
  /** Port to bind; 0 picks a free one (see listen()'s result). Default 0. */
  readonly port?: number;
  readonly limits?: Partial<RpcLimits>;
  /** How limit errors name each limit (e.g. the flag that sets it); the RpcLimits field name by default. */
  readonly limitNames?: Partial<Record<keyof RpcLimits, string>>;
  /** Budgets the calls of one batch share (see BatchBudget). */
  readonly batchBudgets?: readonly BatchBudget[];
  /**
   * Per-method limits (see MethodLimit): calls of one method running at once (-32005 beyond, at once) and
   * whether it may be called inside a batch (-32600 there when not). E.g. the host's
   * `{ prover_prove: { maxConcurrent: 2, allowInBatch: false, limitName: "--max-concurrent-proofs" } }`.
   */
  readonly methodLimits?: MethodLimits;
  /** Method run by GET /healthz; without it GET /healthz answers 404. */
  readonly healthMethod?: string;
  /** Websocket JSON-RPC endpoint; `false` disables it. Enabled at "/" by default. */
  readonly websocket?: WebSocketOptions | false;
  readonly broadcastRoutes?: readonly BroadcastRouteOptions[];
  /** Where the server's metrics go (and what GET /metrics exposes); a fresh registry by default. */
  readonly metrics?: MetricsRegistry;
  readonly logger?: Logger;
  /** Value of Access-Control-Allow-Origin for browsers (e.g. "*"); CORS is off by default. */
  readonly corsOrigin?: string;
}

export interface RpcServer {
  /** Binds and starts serving; resolves to the bound port. */
  listen(): Promise<number>;
  /** The bound port, once listening. */
  readonly port: number | undefined;
  readonly metrics: MetricsRegistry;
  /** Sends a text frame to every subscriber of a broadcast route; false when nobody received it. */
  broadcast(path: string, text: string): boolean;
  /** Subscribers connected to a broadcast route. */
  subscriberCount(path: string): number;
  /**
   * Stops accepting connections, answers new requests on open connections with 503/-32000,
   * waits up to drainMs for in-flight requests, then closes every connection.
   */
  close(options?: CloseOptions): Promise<void>;
}

export function createRpcServer(options: RpcServerOptions): RpcServer {
  return new UwsRpcServer(options);
}

class UwsRpcServer implements RpcServer {
  readonly metrics: MetricsRegistry;
  private readonly core: ServerCore;
  private readonly broadcasts: BroadcastRoutes;
  private readonly lifecycle: ServerLifecycle;

  constructor(options: RpcServerOptions) {
    const limits = resolveLimits(options.limits);
    const logger = (options.logger ?? createSilentLogger()).child({ component: "rpc-server" });
    this.metrics = options.metrics ?? new MetricsRegistry();
    const rpcMetrics = new RpcMetrics(this.metrics);
    if (options.healthMethod !== undefined && !options.methods.has(options.healthMethod)) {
      throw new ServerConfigError(`health method ${options.healthMethod} is not in the method table`);
    }
    const dispatcher = new RpcDispatcher({
      methods: options.methods,
      limits,
      metrics: rpcMetrics,
      logger,
      ...(options.batchBudgets === undefined ? {} : { batchBudgets: options.batchBudgets }),
      ...(options.limitNames === undefined ? {} : { limitNames: options.limitNames }),
      ...(options.methodLimits === undefined ? {} : { methodLimits: options.methodLimits }),
    });
    const inFlight = new InFlight(limits.maxInFlight, (delta) =>
      delta > 0 ? rpcMetrics.inFlight.inc(delta) : rpcMetrics.inFlight.dec(-delta),
    );
    const isDraining = (): boolean => this.lifecycle.isDraining;
    const corsOrigin = options.corsOrigin;
    const guard = new UwsGuard({
      logger,
      inFlight,
      failureBody: jsonRpcFailureBody(limits.maxInFlight),
      onResponse: (status) => rpcMetrics.httpResponses.inc({ status: String(status) }),
      commonHeaders:
        corsOrigin === undefined
          ? []
          : [
              ["access-control-allow-origin", corsOrigin],
              ["vary", "origin"],
            ],
      closeConnections: isDraining,
    });
    this.core = {
      app: createUwsApp(),
      guard,
      inFlight,
      dispatcher,
      limits,
      logger,
      metrics: this.metrics,
      rpcMetrics,
      isDraining,
    };
    const http = new HttpRoutes(this.core, { healthMethod: options.healthMethod, corsOrigin });
    this.broadcasts = new BroadcastRoutes(this.core);
    const websocket = new RpcWebSocketRoute(this.core, options.limitNames?.maxSubscriptionsPerConnection);
    this.lifecycle = new ServerLifecycle(this.core, options.host ?? "127.0.0.1", options.port ?? 0, () => {
      websocket.closeAll(1001, "server shutting down");
      this.broadcasts.closeAll(1001, "server shutting down");
    });

    // Registration order is route priority: service routes, websockets, then the JSON-RPC catch-alls.
    http.registerServiceRoutes();
    for (const route of options.broadcastRoutes ?? []) this.broadcasts.register(route);
    if (options.websocket !== false) {
      const path = options.websocket?.path ?? "/";
      if (this.broadcasts.has(path)) {
        throw new ServerConfigError(`websocket path ${path} is also a broadcast route`);
      }
      websocket.register(path, options.websocket ?? {});
    }
    http.registerJsonRpcRoutes();
  }

  get port(): number | undefined {
    return this.lifecycle.port;
  }

  listen(): Promise<number> {
    return this.lifecycle.listen();
  }

  broadcast(path: string, text: string): boolean {
    return this.broadcasts.broadcast(path, text, this.lifecycle.state === "closed");
  }

  subscriberCount(path: string): number {
    return this.broadcasts.subscriberCount(path);
  }

  close(options?: CloseOptions): Promise<void> {
    return this.lifecycle.close(options);
  }
}
