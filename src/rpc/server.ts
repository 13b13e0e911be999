/**
 * The JSON-RPC 2.0 server core on uWebSockets.js, shared by the chain node and the prover host.
 *
 * Routes: POST <any path> JSON-RPC over HTTP; GET /healthz (a configured method, 200 with its
 * result or 500 with the JSON-RPC error object); GET /metrics (Prometheus text); websocket
 * JSON-RPC with subscriptions at `websocket.path` (default "/"); raw broadcast websocket routes.
 */
import uWS, {
  type HttpRequest,
  type HttpResponse,
  type TemplatedApp,
  type us_listen_socket,
  type us_socket_context_t,
  type WebSocket,
} from "@trufflesuite/uws-js-unofficial";
import { createSilentLogger, type Logger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { type CallScope, type DispatchEnvironment, RpcDispatcher } from "./dispatcher.js";
import { errorResponse } from "./envelope.js";
import type { RpcError } from "./errors.js";
import { readBody } from "./http-body.js";
import { LazyAbort } from "./lazy-abort.js";
import { type BatchBudget, type RpcLimits, resolveLimits } from "./limits.js";
import type { MethodTable, RequestContext } from "./method.js";
import { RpcMetrics } from "./rpc-metrics.js";
import {
  BodyTooLargeError,
  HealthNotConfiguredError,
  ListenError,
  RouteNotFoundError,
  ServerBusyError,
  ServerShuttingDownError,
  ServerConfigError,
  ServerStateError,
  UnsupportedContentTypeError,
} from "./server-errors.js";
import { CallSubscriptions, ConnectionSubscriptions } from "./subscriptions.js";

export interface WebSocketOptions {
  /** Path of the JSON-RPC websocket endpoint; default "/" (same port as HTTP, like geth's shared port). */
  readonly path?: string;
  /** Seconds without traffic before the connection is closed (pings are sent automatically); default 120. */
  readonly idleTimeoutSeconds?: number;
  /** Bytes queued for a slow client before it is disconnected; default 16 MiB. */
  readonly maxBackpressureBytes?: number;
}

/** A websocket route that only broadcasts text frames (e.g. "/ws/flashblocks"); incoming frames are ignored. */
export interface BroadcastRouteOptions {
  readonly path: string;
  /** Bytes queued for a slow subscriber before it is disconnected; default 4 MiB. */
  readonly maxBackpressureBytes?: number;
  /** Called when a subscriber connects, with a way to send it frames first (e.g. the latest state). */
  readonly onOpen?: (send: (text: string) => void) => void;
}

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

export interface CloseOptions {
  /** How long in-flight requests may take before they are cut off; default 10 000 ms. */
  readonly drainMs?: number;
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

const JSON_CONTENT_TYPES = new Set(["application/json", "application/json-rpc", "application/jsonrequest"]);
const DEFAULT_DRAIN_MS = 10_000;
const MIB = 1024 * 1024;

/** Runtime surface of the uWS build that its typings omit. */
type UwsApp = TemplatedApp & {
  /** Closes the listen socket and every open connection. */
  close(): void;
};
type ListenWithOptions = (
  host: string,
  port: number,
  options: number,
  cb: (listenSocket: us_listen_socket | false) => void,
) => TemplatedApp;
/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT: no SO_REUSEPORT, so a port in use is an error, not shared. */
const LISTEN_EXCLUSIVE_PORT = 1;

interface RpcSocketData {
  closed: boolean;
  readonly abort: LazyAbort;
  subscriptions?: ConnectionSubscriptions;
}

interface BroadcastSocketData {
  closed: boolean;
}

/** One unit of work the drain waits for: an HTTP exchange or a websocket message. */
interface InFlight {
  /** Cuts the work off at the end of the drain period. */
  abort(): void;
}

const STATUS_TEXT: Record<number, string> = {
  200: "200 OK",
  204: "204 No Content",
  404: "404 Not Found",
  413: "413 Payload Too Large",
  415: "415 Unsupported Media Type",
  500: "500 Internal Server Error",
  503: "503 Service Unavailable",
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

class HttpRequestContext implements RequestContext {
  readonly transport = "http" as const;

  constructor(
    private readonly abortSource: LazyAbort,
    readonly responseHeaders: Map<string, string>,
  ) {}

  get signal(): AbortSignal {
    return this.abortSource.signal;
  }
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

/** Headers the server writes itself; a handler cannot set or duplicate them. */
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "transfer-encoding",
  "connection",
  "date",
  "access-control-allow-origin",
]);

/** A handler-provided header is written only if it is a token name with a single-line value. */
function isSafeExtraHeader(name: string, value: string): boolean {
  return (
    /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) &&
    !/[\r\n\0]/.test(value) &&
    !RESERVED_HEADERS.has(name.toLowerCase())
  );
}

/** One HTTP request/response; writes nothing after the client went away. */
class HttpExchange implements InFlight {
  readonly abortSource = new LazyAbort();
  private finished = false;

  constructor(
    private readonly res: HttpResponse,
    private readonly server: UwsRpcServer,
  ) {
    res.onAborted(() => {
      if (this.finished) return;
      this.finished = true;
      this.abortSource.abort(new Error("client closed the connection"));
      this.server.settle(this);
    });
    server.track(this);
  }

  get done(): boolean {
    return this.finished;
  }

  abort(): void {
    if (this.finished) return;
    this.finished = true;
    this.abortSource.abort(new Error("server closed before the request finished"));
    this.res.close();
  }

  respond(
    status: number,
    contentType: string | undefined,
    body: string,
    extraHeaders?: ReadonlyMap<string, string>,
    closeConnection = false,
  ): void {
    if (this.finished) return;
    this.finished = true;
    const close = closeConnection || this.server.isDraining;
    this.res.cork(() => {
      this.res.writeStatus(STATUS_TEXT[status] ?? `${status} Status`);
      if (contentType !== undefined) this.res.writeHeader("content-type", contentType);
      this.server.writeCommonHeaders(this.res);
      if (extraHeaders !== undefined) {
        for (const [name, value] of extraHeaders) {
          if (!isSafeExtraHeader(name, value)) continue;
          this.res.writeHeader(name, value);
        }
      }
      this.res.end(body, close);
    });
    this.server.countResponse(status);
    this.server.settle(this);
  }

  respondError(status: number, error: RpcError, closeConnection = false): void {
    this.respond(status, "application/json", errorResponse(null, error), undefined, closeConnection);
  }
}

class UwsRpcServer implements RpcServer {
  readonly metrics: MetricsRegistry;
  private readonly app: UwsApp;
  private readonly host: string;
  private readonly requestedPort: number;
  private readonly limits: RpcLimits;
  private readonly logger: Logger;
  private readonly rpcMetrics: RpcMetrics;
  private readonly dispatcher: RpcDispatcher;
  private readonly healthMethod: string | undefined;
  private readonly corsOrigin: string | undefined;
  private readonly subscriptionLimitName: string | undefined;
  private readonly broadcastPaths = new Set<string>();
  private readonly inFlight = new Set<InFlight>();
  private readonly rpcSockets = new Set<WebSocket<RpcSocketData>>();
  private readonly broadcastSockets = new Set<WebSocket<BroadcastSocketData>>();
  private listenSocket: us_listen_socket | undefined;
  private boundPort: number | undefined;
  private state: "new" | "listening" | "draining" | "closed" = "new";
  private closing: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  constructor(options: RpcServerOptions) {
    this.host = options.host ?? "127.0.0.1";
    this.requestedPort = options.port ?? 0;
    this.limits = resolveLimits(options.limits);
    this.logger = (options.logger ?? createSilentLogger()).child({ component: "rpc-server" });
    this.metrics = options.metrics ?? new MetricsRegistry();
    this.rpcMetrics = new RpcMetrics(this.metrics);
    this.healthMethod = options.healthMethod;
    this.corsOrigin = options.corsOrigin;
    this.dispatcher = new RpcDispatcher({
      methods: options.methods,
      limits: this.limits,
      metrics: this.rpcMetrics,
      logger: this.logger,
      ...(options.batchBudgets === undefined ? {} : { batchBudgets: options.batchBudgets }),
      ...(options.limitNames === undefined ? {} : { limitNames: options.limitNames }),
    });
    this.subscriptionLimitName = options.limitNames?.maxSubscriptionsPerConnection;
    if (this.healthMethod !== undefined && !options.methods.has(this.healthMethod)) {
      throw new ServerConfigError(`health method ${this.healthMethod} is not in the method table`);
    }
    this.app = uWS.App() as unknown as UwsApp;
    this.app.get(
      "/healthz",
      this.route((exchange) => this.handleHealth(exchange)),
    );
    this.app.get(
      "/metrics",
      this.route((exchange) => this.handleMetrics(exchange)),
    );
    for (const route of options.broadcastRoutes ?? []) this.addBroadcastRoute(route);
    if (options.websocket !== false) {
      const path = options.websocket?.path ?? "/";
      if (this.broadcastPaths.has(path)) {
        throw new ServerConfigError(`websocket path ${path} is also a broadcast route`);
      }
      this.addRpcWebSocket(path, options.websocket ?? {});
    }
    this.app.post(
      "/*",
      this.route((exchange, res, req) => this.handlePost(exchange, res, req)),
    );
    if (this.corsOrigin !== undefined) {
      this.app.options(
        "/*",
        this.route((exchange) => this.handlePreflight(exchange)),
      );
    }
    this.app.any(
      "/*",
      this.route((exchange, _res, req) =>
        exchange.respondError(404, new RouteNotFoundError(req.getMethod(), req.getUrl())),
      ),
    );
  }

  get port(): number | undefined {
    return this.boundPort;
  }

  get isDraining(): boolean {
    return this.state === "draining" || this.state === "closed";
  }

  listen(): Promise<number> {
    if (this.state !== "new") {
      return Promise.reject(new ServerStateError(`cannot listen: the server is ${this.state}`));
    }
    return new Promise((resolve, reject) => {
      const listen = this.app.listen.bind(this.app) as unknown as ListenWithOptions;
      listen(this.host, this.requestedPort, LISTEN_EXCLUSIVE_PORT, (listenSocket) => {
        if (listenSocket === false) {
          reject(new ListenError(this.host, this.requestedPort));
          return;
        }
        this.listenSocket = listenSocket;
        this.boundPort = uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket);
        this.state = "listening";
        this.logger.info({ host: this.host, port: this.boundPort }, "JSON-RPC server listening");
        resolve(this.boundPort);
      });
    });
  }

  broadcast(path: string, text: string): boolean {
    if (!this.broadcastPaths.has(path)) {
      throw new ServerConfigError(`no broadcast route ${path} was configured`);
    }
    if (this.state === "closed") return false;
    return this.app.publish(path, text, false, false);
  }

  subscriberCount(path: string): number {
    return this.broadcastPaths.has(path) ? this.app.numSubscribers(path) : 0;
  }

  close(options: CloseOptions = {}): Promise<void> {
    this.closing ??= this.drainAndClose(options.drainMs ?? DEFAULT_DRAIN_MS);
    return this.closing;
  }

  // ---- bookkeeping used by exchanges ----

  track(work: InFlight): void {
    this.inFlight.add(work);
    this.rpcMetrics.inFlight.inc();
  }

  settle(work: InFlight): void {
    if (!this.inFlight.delete(work)) return;
    this.rpcMetrics.inFlight.dec();
    if (this.inFlight.size === 0) this.drained?.();
  }

  countResponse(status: number): void {
    this.rpcMetrics.httpResponses.inc({ status: String(status) });
  }

  writeCommonHeaders(res: HttpResponse): void {
    if (this.corsOrigin !== undefined) {
      res.writeHeader("access-control-allow-origin", this.corsOrigin);
      res.writeHeader("vary", "origin");
    }
  }

  // ---- HTTP ----

  /** Runs a synchronous route body; an unexpected throw is logged and answered 500. */
  /**
   * Wraps an HTTP route: the exchange (abort handler, in-flight tracking) exists before the body
   * runs, and an unexpected synchronous throw is logged and answered 500.
   */
  private route(
    body: (exchange: HttpExchange, res: HttpResponse, req: HttpRequest) => void,
  ): (res: HttpResponse, req: HttpRequest) => void {
    return (res, req) => {
      const exchange = new HttpExchange(res, this);
      try {
        body(exchange, res, req);
      } catch (error) {
        this.logger.error({ err: error }, "HTTP route handler threw");
        exchange.respond(500, undefined, "", undefined, true);
      }
    };
  }

  /** Runs a websocket upgrade handler; an unexpected throw is logged and answered 500. */
  private guard(res: HttpResponse, body: () => void): void {
    try {
      body();
    } catch (error) {
      this.logger.error({ err: error }, "HTTP route handler threw");
      try {
        res.cork(() => res.writeStatus(STATUS_TEXT[500]!).end("", true));
      } catch {
        // The response was already ended or aborted: nothing more to do.
      }
    }
  }

  private handlePost(exchange: HttpExchange, res: HttpResponse, req: HttpRequest): void {
    const contentType = req.getHeader("content-type");
    const declaredLength = req.getHeader("content-length");
    // This exchange is already counted.
    const busy = this.inFlight.size > this.limits.maxInFlight;
    if (this.isDraining) {
      exchange.respondError(503, new ServerShuttingDownError(), true);
      return;
    }
    if (busy) {
      exchange.respondError(503, new ServerBusyError(this.limits.maxInFlight), true);
      return;
    }
    const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
    if (mediaType !== "" && !JSON_CONTENT_TYPES.has(mediaType)) {
      exchange.respondError(415, new UnsupportedContentTypeError(contentType.slice(0, 100)), true);
      return;
    }
    if (declaredLength !== "" && !(Number(declaredLength) <= this.limits.maxBodyBytes)) {
      exchange.respondError(413, new BodyTooLargeError(this.limits.maxBodyBytes), true);
      return;
    }
    readBody(res, this.limits.maxBodyBytes, {
      onTooLarge: () => exchange.respondError(413, new BodyTooLargeError(this.limits.maxBodyBytes), true),
      onBody: (bytes) => {
        let text: string | undefined;
        try {
          text = utf8.decode(bytes);
        } catch {
          text = undefined; // invalid UTF-8 is not JSON: JSON.parse below answers -32700
        }
        void this.answerPost(exchange, text ?? "\u0000");
      },
    });
  }

  private async answerPost(exchange: HttpExchange, text: string): Promise<void> {
    const responseHeaders = new Map<string, string>();
    const ctx = new HttpRequestContext(exchange.abortSource, responseHeaders);
    const env: DispatchEnvironment = { transport: "http", openCall: () => ({ ctx, finish: () => {} }) };
    try {
      const body = await this.dispatcher.dispatchText(text, env);
      if (body === undefined) {
        exchange.respond(200, undefined, "", responseHeaders);
      } else {
        exchange.respond(200, "application/json", body, responseHeaders);
      }
    } catch (error) {
      this.logger.error({ err: error }, "dispatch failed unexpectedly");
      exchange.respond(500, undefined, "", undefined, true);
    }
  }

  private handleHealth(exchange: HttpExchange): void {
    const method = this.healthMethod;
    if (method === undefined) {
      exchange.respond(404, "application/json", JSON.stringify(new HealthNotConfiguredError().toJSON()));
      return;
    }
    if (this.isDraining) {
      exchange.respond(503, "application/json", JSON.stringify(new ServerShuttingDownError().toJSON()));
      return;
    }
    const ctx = new HttpRequestContext(exchange.abortSource, new Map());
    void this.dispatcher
      .invokeDirect(method, [], ctx)
      .then((outcome) => {
        let body: string;
        let status = 200;
        try {
          body = outcome.ok ? JSON.stringify(outcome.result ?? null) : JSON.stringify(outcome.error.toJSON());
          if (!outcome.ok) status = 500;
        } catch (error) {
          this.logger.error({ err: error, method }, "health result is not JSON-serializable");
          body = JSON.stringify({ code: -32603, message: "internal error: health result is not JSON" });
          status = 500;
        }
        exchange.respond(status, "application/json", body, ctx.responseHeaders);
      })
      .catch((error: unknown) => {
        this.logger.error({ err: error }, "health check failed unexpectedly");
        exchange.respond(500, undefined, "", undefined, true);
      });
  }

  private handleMetrics(exchange: HttpExchange): void {
    this.metrics
      .exposition()
      .then((text) => exchange.respond(200, this.metrics.contentType, text))
      .catch((error: unknown) => {
        this.logger.error({ err: error }, "metrics exposition failed");
        exchange.respond(500, undefined, "", undefined, true);
      });
  }

  private handlePreflight(exchange: HttpExchange): void {
    exchange.respond(
      204,
      undefined,
      "",
      new Map([
        ["access-control-allow-methods", "POST, GET, OPTIONS"],
        ["access-control-allow-headers", "content-type"],
        ["access-control-max-age", "600"],
      ]),
    );
  }

  // ---- websockets ----

  private addRpcWebSocket(path: string, options: WebSocketOptions): void {
    const route = "jsonrpc";
    this.app.ws<RpcSocketData>(path, {
      maxPayloadLength: this.limits.maxBodyBytes,
      idleTimeout: options.idleTimeoutSeconds ?? 120,
      sendPingsAutomatically: true,
      maxBackpressure: options.maxBackpressureBytes ?? 16 * MIB,
      upgrade: (res, req, context) =>
        this.guard(res, () => this.upgrade(res, req, context, this.newRpcSocketData())),
      open: (ws) => {
        const data = ws.getUserData();
        data.subscriptions = new ConnectionSubscriptions(
          (text) => this.sendRpcFrame(ws, text),
          (error) => this.logger.error({ err: error }, "subscription cleanup failed"),
          (delta) => this.rpcMetrics.subscriptions.inc(delta),
          { max: this.limits.maxSubscriptionsPerConnection, name: this.subscriptionLimitName },
        );
        this.rpcSockets.add(ws);
        this.rpcMetrics.websocketConnections.inc({ route });
      },
      message: (ws, message) => {
        let text: string;
        try {
          text = utf8.decode(new Uint8Array(message));
        } catch {
          text = "\u0000"; // invalid UTF-8: answered as a parse error
        }
        void this.answerWebSocketMessage(ws, text);
      },
      close: (ws) => {
        const data = ws.getUserData();
        data.closed = true;
        data.abort.abort(new Error("websocket closed"));
        this.rpcSockets.delete(ws);
        this.rpcMetrics.websocketConnections.dec({ route });
        data.subscriptions?.closeAll();
      },
    });
  }

  private newRpcSocketData(): RpcSocketData {
    return { closed: false, abort: new LazyAbort() };
  }

  private upgrade<T>(res: HttpResponse, req: HttpRequest, context: us_socket_context_t, data: T): void {
    if (this.isDraining) {
      res.writeStatus(STATUS_TEXT[503]!).end("", true);
      return;
    }
    res.upgrade(
      data,
      req.getHeader("sec-websocket-key"),
      req.getHeader("sec-websocket-protocol"),
      req.getHeader("sec-websocket-extensions"),
      context,
    );
  }

  /** Sends one frame on a JSON-RPC socket; a client too slow to take it is disconnected. */
  private sendRpcFrame(ws: WebSocket<RpcSocketData>, text: string): boolean {
    if (ws.getUserData().closed) return false;
    let status = 0;
    ws.cork(() => {
      status = ws.send(text, false, false);
    });
    if (status === 2) {
      this.logger.warn("websocket client too slow: frame dropped, closing the connection");
      ws.end(1008, "client too slow to read responses");
      return false;
    }
    return true;
  }

  private async answerWebSocketMessage(ws: WebSocket<RpcSocketData>, text: string): Promise<void> {
    const data = ws.getUserData();
    const subscriptions = data.subscriptions;
    if (subscriptions === undefined || data.closed) return;
    const refuse = this.isDraining
      ? new ServerShuttingDownError()
      : this.inFlight.size >= this.limits.maxInFlight
        ? new ServerBusyError(this.limits.maxInFlight)
        : undefined;
    const abortSource = data.abort;
    const work: InFlight = {
      abort: () => abortSource.abort(new Error("server closed before the request finished")),
    };
    this.track(work);
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
      const body = await this.dispatcher.dispatchText(text, env);
      if (body !== undefined) this.sendRpcFrame(ws, body);
      for (const scope of scopes) scope.activate();
    } catch (error) {
      this.logger.error({ err: error }, "websocket dispatch failed unexpectedly");
    } finally {
      this.settle(work);
    }
  }

  private addBroadcastRoute(route: BroadcastRouteOptions): void {
    if (this.broadcastPaths.has(route.path)) {
      throw new ServerConfigError(`broadcast route ${route.path} is configured twice`);
    }
    this.broadcastPaths.add(route.path);
    const topic = route.path;
    this.app.ws<BroadcastSocketData>(route.path, {
      maxPayloadLength: 4096,
      idleTimeout: 120,
      sendPingsAutomatically: true,
      maxBackpressure: route.maxBackpressureBytes ?? 4 * MIB,
      // The C++ side reads this as a flag: a subscriber that cannot keep up is dropped, not silently skipped.
      closeOnBackpressureLimit: 1,
      upgrade: (res, req, context) =>
        this.guard(res, () => this.upgrade(res, req, context, { closed: false })),
      open: (ws) => {
        this.broadcastSockets.add(ws);
        this.rpcMetrics.websocketConnections.inc({ route: route.path });
        if (route.onOpen !== undefined) {
          try {
            route.onOpen((text) => {
              if (!ws.getUserData().closed) ws.cork(() => ws.send(text, false, false));
            });
          } catch (error) {
            this.logger.error({ err: error, route: route.path }, "broadcast route onOpen failed");
          }
        }
        ws.subscribe(topic);
      },
      message: () => {},
      close: (ws) => {
        ws.getUserData().closed = true;
        this.broadcastSockets.delete(ws);
        this.rpcMetrics.websocketConnections.dec({ route: route.path });
      },
    });
  }

  // ---- shutdown ----

  private async drainAndClose(drainMs: number): Promise<void> {
    const wasListening = this.state === "listening";
    this.state = "draining";
    if (this.listenSocket !== undefined) {
      uWS.us_listen_socket_close(this.listenSocket);
      this.listenSocket = undefined;
    }
    if (wasListening) this.logger.info({ inFlight: this.inFlight.size, drainMs }, "draining JSON-RPC server");
    if (this.inFlight.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, drainMs);
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.drained = undefined;
    }
    const cutOff = this.inFlight.size;
    for (const work of [...this.inFlight]) work.abort();
    this.inFlight.clear();
    this.rpcMetrics.inFlight.set(0);
    for (const ws of [...this.rpcSockets]) ws.end(1001, "server shutting down");
    for (const ws of [...this.broadcastSockets]) ws.end(1001, "server shutting down");
    this.app.close();
    this.state = "closed";
    if (wasListening) this.logger.info({ cutOff }, "JSON-RPC server closed");
  }
}
