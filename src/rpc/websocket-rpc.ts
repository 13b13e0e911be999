/** JSON-RPC over websocket, with subscriptions: the same dispatcher as HTTP, one message at a time per call. */
import type { WebSocket } from "@trufflesuite/uws-js-unofficial";
import type { CallScope, DispatchEnvironment } from "./dispatcher.js";
import type { InFlightWork } from "./in-flight.js";
import { LazyAbort } from "./lazy-abort.js";
import type { RequestContext } from "./method.js";
import { MIB, type ServerCore, decodeUtf8OrInvalid } from "./server-core.js";
import { ServerBusyError, ServerShuttingDownError } from "./server-errors.js";
import { CallSubscriptions, ConnectionSubscriptions } from "./subscriptions.js";
import { upgradeWebSocket } from "./uws-app.js";

export interface WebSocketOptions {
  /** Path of the JSON-RPC websocket endpoint; default "/" (same port as HTTP, like geth's shared port). */
  readonly path?: string;
  /** Seconds without traffic before the connection is closed (pings are sent automatically); default 120. */
  readonly idleTimeoutSeconds?: number;
  /** Bytes queued for a slow client before it is disconnected; default 16 MiB. */
  readonly maxBackpressureBytes?: number;
}

interface RpcSocketData {
  closed: boolean;
  readonly abort: LazyAbort;
  subscriptions?: ConnectionSubscriptions;
}

class WebSocketRequestContext implements RequestContext {
  readonly transport = "ws" as const;
  /** Websocket responses carry no headers: whatever a handler sets here is dropped. */
  readonly responseHeaders = new Map<string, string>();

  constructor(
    private readonly abortSource: LazyAbort,
    readonly subscriptions: CallSubscriptions,
  ) {}

  get signal(): AbortSignal {
    return this.abortSource.signal;
  }
}

/** Label of the JSON-RPC websocket in the connections gauge. */
const ROUTE = "jsonrpc";

export class RpcWebSocketRoute {
  private readonly sockets = new Set<WebSocket<RpcSocketData>>();

  constructor(
    private readonly core: ServerCore,
    /** How a refused subscription names the per-connection limit (e.g. its flag). */
    private readonly subscriptionLimitName: string | undefined,
  ) {}

  register(path: string, options: WebSocketOptions): void {
    const { app, guard, limits, logger, rpcMetrics } = this.core;
    app.ws<RpcSocketData>(
      path,
      guard.webSocket<RpcSocketData>({
        maxPayloadLength: limits.maxBodyBytes,
        idleTimeout: options.idleTimeoutSeconds ?? 120,
        sendPingsAutomatically: true,
        maxBackpressure: options.maxBackpressureBytes ?? 16 * MIB,
        upgrade: (res, req, context) =>
          upgradeWebSocket(
            res,
            req,
            context,
            { closed: false, abort: new LazyAbort() } satisfies RpcSocketData,
            this.core.isDraining(),
          ),
        open: (ws) => {
          const data = ws.getUserData();
          data.subscriptions = new ConnectionSubscriptions(
            (text) => this.send(ws, text),
            (error) => logger.error({ err: error }, "subscription cleanup failed"),
            (delta) => rpcMetrics.subscriptions.inc(delta),
            { max: limits.maxSubscriptionsPerConnection, name: this.subscriptionLimitName },
          );
          this.sockets.add(ws);
          rpcMetrics.websocketConnections.inc({ route: ROUTE });
        },
        message: (ws, message) => this.answer(ws, decodeUtf8OrInvalid(new Uint8Array(message))),
        close: (ws) => {
          const data = ws.getUserData();
          data.closed = true;
          data.abort.abort(new Error("websocket closed"));
          this.sockets.delete(ws);
          rpcMetrics.websocketConnections.dec({ route: ROUTE });
          data.subscriptions?.closeAll();
        },
      }),
    );
  }

  /** Closes every connection (server shutdown). */
  closeAll(code: number, reason: string): void {
    for (const ws of [...this.sockets]) ws.end(code, reason);
  }

  /** Sends one frame; a client too slow to take it is disconnected. */
  private send(ws: WebSocket<RpcSocketData>, text: string): boolean {
    if (ws.getUserData().closed) return false;
    let status = 0;
    ws.cork(() => {
      status = ws.send(text, false, false);
    });
    if (status === 2) {
      this.core.logger.warn("websocket client too slow: frame dropped, closing the connection");
      ws.end(1008, "client too slow to read responses");
      return false;
    }
    return true;
  }

  private async answer(ws: WebSocket<RpcSocketData>, text: string): Promise<void> {
    const { inFlight, limits } = this.core;
    const data = ws.getUserData();
    const subscriptions = data.subscriptions;
    if (subscriptions === undefined || data.closed) return;
    const refuse = this.core.isDraining()
      ? new ServerShuttingDownError()
      : inFlight.full
        ? new ServerBusyError(limits.maxInFlight)
        : undefined;
    const abortSource = data.abort;
    const work: InFlightWork = {
      cutOff: () => abortSource.abort(new Error("server closed before the request finished")),
    };
    inFlight.add(work);
    const scopes: CallSubscriptions[] = [];
    const env: DispatchEnvironment = {
      transport: "ws",
      ...(refuse === undefined ? {} : { refuse }),
      openCall: (): CallScope => {
        const scope = subscriptions.scopeForCall();
        scopes.push(scope);
        const ctx = new WebSocketRequestContext(abortSource, scope);
        return { ctx, finish: (ok) => (ok ? undefined : scope.discard()) };
      },
    };
    try {
      const body = await this.core.dispatcher.dispatchText(text, env);
      if (body !== undefined) this.send(ws, body);
      for (const scope of scopes) scope.activate();
    } finally {
      inFlight.settle(work);
    }
  }
}
