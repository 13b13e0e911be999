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
import { InternalError, InvalidRequestError, type RpcError } from "./errors.js";
import { readBody } from "./http-body.js";
import { InFlight, type InFlightWork } from "./in-flight.js";
import { LazyAbort } from "./lazy-abort.js";
import { type BatchBudget, type RpcLimits, resolveLimits } from "./limits.js";
import type { MethodTable, RequestContext } from "./method.js";
import type { MethodLimits } from "./method-limits.js";
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
import {
  type GuardedResponse,
  type GuardFailure,
  type HttpAnswer,
  statusLine,
  UwsGuard,
} from "./uws-guard.js";

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

const utf8 = new TextDecoder("utf-8", { fatal: true });

class HttpRequestContext implements RequestContext {
  readonly transport = "http" as const;

  constructor(
    private readonly response: GuardedResponse,
    readonly responseHeaders: Map<string, string>,
  ) {}

  get signal(): AbortSignal {
    return this.response.signal;
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

/** A handler-provided header is written only if it is a token name with a single-line string value. */
function isSafeExtraHeader(name: unknown, value: unknown): boolean {
  return (
    typeof name === "string" &&
    typeof value === "string" &&
    /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) &&
    !/[\r\n\0]/.test(value) &&
    !RESERVED_HEADERS.has(name.toLowerCase())
  );
}

/** The headers of a handler's map that may be written. */
function safeExtraHeaders(headers: ReadonlyMap<string, string>): [string, string][] {
  return [...headers].filter(([name, value]) => isSafeExtraHeader(name, value));
}

/** A JSON-RPC error object as the body of a transport-level answer. */
function jsonRpcError(status: number, error: RpcError, closeConnection = false): HttpAnswer {
  return { status, contentType: "application/json", body: errorResponse(null, error), closeConnection };
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
  private readonly guard: UwsGuard;
  private readonly inFlight: InFlight;
  private readonly healthMethod: string | undefined;
  private readonly subscriptionLimitName: string | undefined;
  private readonly broadcastPaths = new Set<string>();
  private readonly rpcSockets = new Set<WebSocket<RpcSocketData>>();
  private readonly broadcastSockets = new Set<WebSocket<BroadcastSocketData>>();
  private listenSocket: us_listen_socket | undefined;
  private boundPort: number | undefined;
  private state: "new" | "listening" | "draining" | "closed" = "new";
  private closing: Promise<void> | undefined;

  constructor(options: RpcServerOptions) {
    this.host = options.host ?? "127.0.0.1";
    this.requestedPort = options.port ?? 0;
    this.limits = resolveLimits(options.limits);
    this.logger = (options.logger ?? createSilentLogger()).child({ component: "rpc-server" });
    this.metrics = options.metrics ?? new MetricsRegistry();
    this.rpcMetrics = new RpcMetrics(this.metrics);
    this.healthMethod = options.healthMethod;
    this.dispatcher = new RpcDispatcher({
      methods: options.methods,
      limits: this.limits,
      metrics: this.rpcMetrics,
      logger: this.logger,
      ...(options.batchBudgets === undefined ? {} : { batchBudgets: options.batchBudgets }),
      ...(options.limitNames === undefined ? {} : { limitNames: options.limitNames }),
      ...(options.methodLimits === undefined ? {} : { methodLimits: options.methodLimits }),
    });
    this.subscriptionLimitName = options.limitNames?.maxSubscriptionsPerConnection;
    if (this.healthMethod !== undefined && !options.methods.has(this.healthMethod)) {
      throw new ServerConfigError(`health method ${this.healthMethod} is not in the method table`);
    }
    this.inFlight = new InFlight(this.limits.maxInFlight, (delta) =>
      delta > 0 ? this.rpcMetrics.inFlight.inc(delta) : this.rpcMetrics.inFlight.dec(-delta),
    );
    const corsOrigin = options.corsOrigin;
    this.guard = new UwsGuard({
      logger: this.logger,
      inFlight: this.inFlight,
      failureBody: (failure) => errorResponse(null, this.failureError(failure)),
      onResponse: (status) => this.rpcMetrics.httpResponses.inc({ status: String(status) }),
      commonHeaders:
        corsOrigin === undefined
          ? []
          : [
              ["access-control-allow-origin", corsOrigin],
              ["vary", "origin"],
            ],
      closeConnections: () => this.isDraining,
    });
    this.app = uWS.App() as unknown as UwsApp;
    const unlimited = { limited: false };
    this.app.get(
      "/healthz",
      this.guard.http((response) => this.handleHealth(response), unlimited),
    );
    this.app.get(
      "/metrics",
      this.guard.http((response) => this.handleMetrics(response), unlimited),
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
      this.guard.http((response, req) => this.handlePost(response, req)),
    );
    if (corsOrigin !== undefined) {
      this.app.options(
        "/*",
        this.guard.http((response) => this.handlePreflight(response), unlimited),
      );
    }
    this.app.any(
      "/*",
      this.guard.http(
        (response, req) =>
          response.respond(jsonRpcError(404, new RouteNotFoundError(req.getMethod(), req.getUrl()), true)),
        unlimited,
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

  /** The JSON-RPC error a refusal or failure of the guard is answered with. */
  private failureError(failure: GuardFailure): RpcError {
    switch (failure.status) {
      case 400:
        return new InvalidRequestError(`invalid request: ${failure.message}`);
      case 503:
        return new ServerBusyError(this.limits.maxInFlight);
      case 500:
        return new InternalError(failure.message);
    }
  }

  // ---- HTTP ----

  private handlePost(response: GuardedResponse, req: HttpRequest): void {
    const contentType = req.getHeader("content-type");
    const declaredLength = req.getHeader("content-length");
    if (this.isDraining) {
      response.respond(jsonRpcError(503, new ServerShuttingDownError(), true));
      return;
    }
    const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
    if (mediaType !== "" && !JSON_CONTENT_TYPES.has(mediaType)) {
      response.respond(jsonRpcError(415, new UnsupportedContentTypeError(contentType.slice(0, 100)), true));
      return;
    }
    const tooLarge = (): HttpAnswer =>
      jsonRpcError(413, new BodyTooLargeError(this.limits.maxBodyBytes), true);
    if (declaredLength !== "" && !(Number(declaredLength) <= this.limits.maxBodyBytes)) {
      response.respond(tooLarge());
      return;
    }
    readBody(response.raw, this.limits.maxBodyBytes, {
      onTooLarge: () => response.respond(tooLarge()),
      onBody: (bytes) => {
        let text: string | undefined;
        try {
          text = utf8.decode(bytes);
        } catch {
          text = undefined; // invalid UTF-8 is not JSON: JSON.parse below answers -32700
        }
        response.callback(() => this.answerPost(response, text ?? "\u0000"), "JSON-RPC dispatch")();
      },
      onError: (error) => response.fail(error, "HTTP body"),
    });
  }

  private async answerPost(response: GuardedResponse, text: string): Promise<void> {
    const responseHeaders = new Map<string, string>();
    const ctx = new HttpRequestContext(response, responseHeaders);
    const env: DispatchEnvironment = { transport: "http", openCall: () => ({ ctx, finish: () => {} }) };
    const body = await this.dispatcher.dispatchText(text, env);
    response.respond({
      status: 200,
      contentType: body === undefined ? undefined : "application/json",
      body: body ?? "",
      headers: safeExtraHeaders(responseHeaders),
    });
  }

  private async handleHealth(response: GuardedResponse): Promise<void> {
    const method = this.healthMethod;
    if (method === undefined) {
      const body = JSON.stringify(new HealthNotConfiguredError().toJSON());
      response.respond({ status: 404, contentType: "application/json", body });
      return;
    }
    if (this.isDraining) {
      const body = JSON.stringify(new ServerShuttingDownError().toJSON());
      response.respond({ status: 503, contentType: "application/json", body });
      return;
    }
    const ctx = new HttpRequestContext(response, new Map());
    const outcome = await this.dispatcher.invokeDirect(method, [], ctx);
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
    response.respond({
      status,
      contentType: "application/json",
      body,
      headers: safeExtraHeaders(ctx.responseHeaders),
    });
  }

  private async handleMetrics(response: GuardedResponse): Promise<void> {
    const text = await this.metrics.exposition();
    response.respond({ status: 200, contentType: this.metrics.contentType, body: text });
  }

  private handlePreflight(response: GuardedResponse): void {
    response.respond({
      status: 204,
      body: "",
      headers: [
        ["access-control-allow-methods", "POST, GET, OPTIONS"],
        ["access-control-allow-headers", "content-type"],
        ["access-control-max-age", "600"],
      ],
    });
  }

  // ---- websockets ----

  private addRpcWebSocket(path: string, options: WebSocketOptions): void {
    const route = "jsonrpc";
    this.app.ws<RpcSocketData>(
      path,
      this.guard.webSocket<RpcSocketData>({
        maxPayloadLength: this.limits.maxBodyBytes,
        idleTimeout: options.idleTimeoutSeconds ?? 120,
        sendPingsAutomatically: true,
        maxBackpressure: options.maxBackpressureBytes ?? 16 * MIB,
        upgrade: (res, req, context) => this.upgrade(res, req, context, this.newRpcSocketData()),
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
          return this.answerWebSocketMessage(ws, text);
        },
        close: (ws) => {
          const data = ws.getUserData();
          data.closed = true;
          data.abort.abort(new Error("websocket closed"));
          this.rpcSockets.delete(ws);
          this.rpcMetrics.websocketConnections.dec({ route });
          data.subscriptions?.closeAll();
        },
      }),
    );
  }

  private newRpcSocketData(): RpcSocketData {
    return { closed: false, abort: new LazyAbort() };
  }

  private upgrade<T>(res: HttpResponse, req: HttpRequest, context: us_socket_context_t, data: T): void {
    if (this.isDraining) {
      res.writeStatus(statusLine(503)).end("", true);
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
      : this.inFlight.full
        ? new ServerBusyError(this.limits.maxInFlight)
        : undefined;
    const abortSource = data.abort;
    const work: InFlightWork = {
      cutOff: () => abortSource.abort(new Error("server closed before the request finished")),
    };
    this.inFlight.add(work);
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
    } finally {
      this.inFlight.settle(work);
    }
  }

  private addBroadcastRoute(route: BroadcastRouteOptions): void {
    if (this.broadcastPaths.has(route.path)) {
      throw new ServerConfigError(`broadcast route ${route.path} is configured twice`);
    }
    this.broadcastPaths.add(route.path);
    const topic = route.path;
    this.app.ws<BroadcastSocketData>(
      route.path,
      this.guard.webSocket<BroadcastSocketData>({
        maxPayloadLength: 4096,
        idleTimeout: 120,
        sendPingsAutomatically: true,
        maxBackpressure: route.maxBackpressureBytes ?? 4 * MIB,
        // The C++ side reads this as a flag: a subscriber that cannot keep up is dropped, not silently skipped.
        closeOnBackpressureLimit: 1,
        upgrade: (res, req, context) => this.upgrade(res, req, context, { closed: false }),
        open: (ws) => {
          this.broadcastSockets.add(ws);
          this.rpcMetrics.websocketConnections.inc({ route: route.path });
          if (route.onOpen !== undefined) {
            // The route's owner may keep `send` and call it later, from its own timers: it never throws.
            const send = this.guard.callback((text: string) => {
              if (!ws.getUserData().closed) ws.cork(() => ws.send(text, false, false));
            }, `broadcast route ${route.path} send`);
            this.guard.callback(route.onOpen, `broadcast route ${route.path} onOpen`)(send);
          }
          ws.subscribe(topic);
        },
        message: () => {},
        close: (ws) => {
          ws.getUserData().closed = true;
          this.broadcastSockets.delete(ws);
          this.rpcMetrics.websocketConnections.dec({ route: route.path });
        },
      }),
    );
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
    await this.inFlight.drain(drainMs);
    const cutOff = this.inFlight.cutOffAll();
    for (const ws of [...this.rpcSockets]) ws.end(1001, "server shutting down");
    for (const ws of [...this.broadcastSockets]) ws.end(1001, "server shutting down");
    this.app.close();
    this.state = "closed";
    if (wasListening) this.logger.info({ cutOff }, "JSON-RPC server closed");
  }
}
