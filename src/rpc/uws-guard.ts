/**
 * One guard for every uWebSockets.js callback. An exception thrown into uWS from a route handler, `onData`,
 * `onAborted` or a websocket handler kills the process (uWS reports it as uncaught, and a request handler that
 * returns without answering or registering `onAborted` aborts the C++ side), and one thrown while a response
 * is half written leaves the connection hanging. Behind the guard:
 *
 * - a route handler runs with its response already watched (`onAborted` registered first), in a try/catch, its
 *   returned promise's rejection caught too; whatever it throws is logged and answered 400 (bad input: URIError,
 *   SyntaxError, JSON-RPC parse/request/params errors) or 500 (anything else) while the response is open;
 * - every later callback on that request (`onData`, timers, promise continuations) is wrapped the same way with
 *   `response.callback(fn)`;
 * - a response is written in one corked block; if a write throws half way, the connection is closed (a
 *   partly written response cannot be repaired) and the error logged;
 * - HTTP requests in progress are counted against a limit: beyond it the request is answered 503 at once,
 *   before its handler runs;
 * - websocket handlers (`upgrade`, `open`, `message`, `drain`, `close`, ...) are wrapped by `webSocket()`: a
 *   throw is logged, and the socket closed with 1011 (internal error) unless it was the close handler.
 *
 * src/rpc's server uses it for all its routes; any other uWS server can (`new UwsGuard({ logger })`).
 */
import type {
  HttpRequest,
  HttpResponse,
  WebSocket,
  WebSocketBehavior,
} from "@trufflesuite/uws-js-unofficial";
import { STATUS_CODES } from "node:http";
import type { Logger } from "../log/index.js";
import { RpcError } from "./errors.js";
import { InFlight, type InFlightWork } from "./in-flight.js";
import { LazyAbort } from "./lazy-abort.js";

/** What one HTTP response carries. */
export interface HttpAnswer {
  readonly status: number;
  readonly contentType?: string | undefined;
  readonly body: string;
  /** Extra headers, written as given (the caller filters anything a client or handler chose). */
  readonly headers?: Iterable<readonly [string, string]> | undefined;
  /** Close the connection after this response (no keep-alive). */
  readonly closeConnection?: boolean | undefined;
}

/** A refusal or a failure the guard answers itself. */
export interface GuardFailure {
  /** 400 bad input, 500 internal error, 503 too many requests in progress. */
  readonly status: 400 | 500 | 503;
  /** A message fit for the client: the bad input's error message, never an internal error's. */
  readonly message: string;
}

export interface UwsGuardOptions {
  readonly logger: Logger;
  /** Shared count of work in progress (e.g. with websocket messages); one of this and maxInFlight. */
  readonly inFlight?: InFlight;
  /** HTTP requests in progress at once before new ones are answered 503; no limit by default. */
  readonly maxInFlight?: number;
  /** The JSON body of a failure answer; `{"error":{"code","message"}}` by default. */
  readonly failureBody?: (failure: GuardFailure) => string;
  /** Whether an error is the client's fault (400) rather than the server's (500); see defaultIsBadInput. */
  readonly isBadInput?: (error: unknown) => boolean;
  /** Told of every status answered, with the route's name when it has one (metrics). */
  readonly onResponse?: (status: number, route: string | undefined) => void;
  /** Headers written on every response (e.g. CORS). */
  readonly commonHeaders?: readonly (readonly [string, string])[];
  /** While true, every response closes its connection (e.g. a server draining for shutdown). */
  readonly closeConnections?: () => boolean;
}

export interface RouteOptions {
  /** Counted against the in-flight limit and refused beyond it; default true. Always tracked for draining. */
  readonly limited?: boolean;
  /** The route's name, given to `onResponse` with each status it answers (e.g. a metrics label). */
  readonly name?: string;
}

/** JSON-RPC codes that mean the client sent something malformed. */
const BAD_INPUT_RPC_CODES = new Set([-32700, -32600, -32602]);

/** URIError (bad percent-encoding), SyntaxError (bad JSON) and JSON-RPC parse/request/params errors. */
export function defaultIsBadInput(error: unknown): boolean {
  return (
    error instanceof URIError ||
    error instanceof SyntaxError ||
    (error instanceof RpcError && BAD_INPUT_RPC_CODES.has(error.code))
  );
}

function defaultFailureBody(failure: GuardFailure): string {
  const code = { 400: "bad_request", 500: "internal_error", 503: "server_busy" }[failure.status];
  return JSON.stringify({ error: { code, message: failure.message } });
}

/** An HTTP status line's text, e.g. "503 Service Unavailable" (Node's table of reason phrases). */
export function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? "Status"}`;
}

function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "unreadable error";
  }
}

/**
 * One HTTP request's response behind the guard: knows whether it can still be written, writes it once,
 * never throws, and answers a failure with 400/500.
 */
export class GuardedResponse implements InFlightWork {
  private readonly abortSource = new LazyAbort();
  private finished = false;

  constructor(
    private readonly res: HttpResponse,
    private readonly guard: UwsGuard,
    private readonly route?: string,
  ) {
    res.onAborted(() => {
      if (this.finished) return;
      this.finished = true;
      this.abortSource.abort(new Error("client closed the connection"));
      guard.inFlight.settle(this);
    });
  }

  /** The raw uWS response, for registering `onData` (wrap the handler with `callback`). */
  get raw(): HttpResponse {
    return this.res;
  }

  /** Aborted when the client goes away or the server cuts the request off. */
  get signal(): AbortSignal {
    return this.abortSource.signal;
  }

  /** Nothing was answered yet and the client is still there. */
  get open(): boolean {
    return !this.finished;
  }

  /** Writes the response (once; later calls and calls after an abort do nothing). Returns false if not written. */
  respond(answer: HttpAnswer): boolean {
    if (this.finished) return false;
    this.finished = true;
    const options = this.guard.options;
    const close = answer.closeConnection === true || options.closeConnections?.() === true;
    let written = false;
    try {
      this.res.cork(() => {
        this.res.writeStatus(statusLine(answer.status));
        if (answer.contentType !== undefined) this.res.writeHeader("content-type", answer.contentType);
        for (const [name, value] of options.commonHeaders ?? []) this.res.writeHeader(name, value);
        for (const [name, value] of answer.headers ?? []) this.res.writeHeader(name, value);
        this.res.end(answer.body, close);
      });
      written = true;
    } catch (error) {
      this.guard.logger.error({ err: error, status: answer.status }, "writing an HTTP response failed");
      this.closeQuietly();
    }
    options.onResponse?.(written ? answer.status : 500, this.route);
    this.guard.inFlight.settle(this);
    return written;
  }

  /** Answers a refusal or failure with the guard's failure body, closing the connection. */
  refuse(failure: GuardFailure): boolean {
    return this.respond({
      status: failure.status,
      contentType: "application/json",
      body: this.guard.failureBody(failure),
      closeConnection: true,
    });
  }

  /** Logs what a callback threw and answers 400 or 500 if the response is still open. */
  fail(error: unknown, where: string): void {
    this.guard.reportFailure(error, where, this.open ? this : undefined);
  }

  /** Wraps a later callback of this request (onData, a timer, a promise continuation) in the guard. */
  callback<A extends unknown[]>(fn: (...args: A) => unknown, where = "HTTP callback"): (...args: A) => void {
    return (...args: A) => {
      try {
        const result = fn(...args);
        if (isThenable(result)) result.then(undefined, (error: unknown) => this.fail(error, where));
      } catch (error) {
        this.fail(error, where);
      }
    };
  }

  /** Cuts the request off: its signal is aborted and its connection closed. */
  cutOff(): void {
    if (this.finished) return;
    this.finished = true;
    this.abortSource.abort(new Error("server closed before the request finished"));
    this.closeQuietly();
  }

  private closeQuietly(): void {
    try {
      this.res.close();
    } catch {
      // Already closed by uWS: nothing more to do.
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}

type HttpHandler = (response: GuardedResponse, req: HttpRequest) => unknown;

export class UwsGuard {
  readonly logger: Logger;
  readonly inFlight: InFlight;
  readonly failureBody: (failure: GuardFailure) => string;
  private readonly isBadInput: (error: unknown) => boolean;

  constructor(readonly options: UwsGuardOptions) {
    this.logger = options.logger;
    this.inFlight = options.inFlight ?? new InFlight(options.maxInFlight ?? Number.POSITIVE_INFINITY);
    this.failureBody = options.failureBody ?? defaultFailureBody;
    this.isBadInput = options.isBadInput ?? defaultIsBadInput;
  }

  /** A uWS route handler running `handler` behind the guard. */
  http(handler: HttpHandler, routeOptions: RouteOptions = {}): (res: HttpResponse, req: HttpRequest) => void {
    return (res, req) => {
      let response: GuardedResponse;
      try {
        response = new GuardedResponse(res, this, routeOptions.name);
      } catch (error) {
        this.logger.error({ err: error }, "cannot watch an HTTP response");
        return;
      }
      if (routeOptions.limited !== false && this.inFlight.full) {
        response.refuse({
          status: 503,
          message: `server busy: ${this.inFlight.limit} requests already in flight, retry later`,
        });
        return;
      }
      this.inFlight.add(response);
      response.callback(handler, "HTTP route handler")(response, req);
    };
  }

  /** The websocket behavior with every handler behind the guard. */
  webSocket<T>(behavior: WebSocketBehavior<T>): WebSocketBehavior<T> {
    const { upgrade, open, message, drain, close, ping, pong, subscription } = behavior;
    const wrapped: WebSocketBehavior<T> = { ...behavior };
    if (upgrade !== undefined) {
      wrapped.upgrade = (res, req, context) =>
        this.run(
          "websocket upgrade",
          () => upgrade(res, req, context),
          (error) => {
            this.logger.error({ err: error }, "websocket upgrade handler threw");
            try {
              res.cork(() => res.writeStatus(statusLine(500)).end("", true));
            } catch {
              // Already upgraded, answered or aborted: nothing more to do.
            }
          },
        );
    }
    const onSocket = <A extends unknown[]>(
      name: string,
      fn: ((ws: WebSocket<T>, ...args: A) => unknown) | undefined,
      closeOnFailure = true,
    ): ((ws: WebSocket<T>, ...args: A) => void) | undefined =>
      fn === undefined
        ? undefined
        : (ws, ...args) =>
            this.run(
              name,
              () => fn(ws, ...args),
              (error) => {
                this.logger.error({ err: error }, `websocket ${name} handler threw`);
                if (!closeOnFailure) return;
                try {
                  ws.end(1011, "internal error");
                } catch {
                  // The socket is already closed.
                }
              },
            );
    wrapped.open = onSocket("open", open);
    wrapped.message = onSocket("message", message);
    wrapped.drain = onSocket("drain", drain);
    wrapped.close = onSocket("close", close, false);
    wrapped.ping = onSocket("ping", ping);
    wrapped.pong = onSocket("pong", pong);
    wrapped.subscription = onSocket("subscription", subscription, false);
    for (const key of Object.keys(wrapped) as (keyof WebSocketBehavior<T>)[]) {
      if (wrapped[key] === undefined) delete wrapped[key];
    }
    return wrapped;
  }

  /** Wraps a callback that writes to no response (a timer, a broadcast): a throw is logged, never rethrown. */
  callback<A extends unknown[]>(fn: (...args: A) => unknown, where: string): (...args: A) => void {
    return (...args: A) =>
      this.run(
        where,
        () => fn(...args),
        (error) => this.logger.error({ err: error }, `${where} threw`),
      );
  }

  /** Logs a failure and, when a response is given, answers it 400 or 500. */
  reportFailure(error: unknown, where: string, response: GuardedResponse | undefined): void {
    const badInput = this.isBadInput(error);
    if (badInput) {
      this.logger.debug({ err: error, where }, "bad input refused with 400");
    } else {
      this.logger.error({ err: error, where }, "unexpected error: answered 500");
    }
    if (response === undefined) return;
    response.refuse(
      badInput
        ? { status: 400, message: `bad request: ${errorMessage(error)}` }
        : { status: 500, message: "internal error" },
    );
  }

  private run(where: string, body: () => unknown, onError: (error: unknown) => void): void {
    const safely = (error: unknown): void => {
      try {
        onError(error);
      } catch (nested) {
        this.logger.error({ err: nested, where }, "error handler failed");
      }
    };
    try {
      const result = body();
      if (isThenable(result)) result.then(undefined, safely);
    } catch (error) {
      safely(error);
    }
  }
}
