/** Errors raised by the server core itself (not by methods). */
import { type ErrorDetails, SuiteError } from "../errors/index.js";
import { RpcError } from "./errors.js";

/** -32000: the server is draining for shutdown and takes no new work. */
export class ServerShuttingDownError extends RpcError {
  constructor() {
    super(-32000, "server is shutting down: retry the request on another connection or node", {
      kind: "server-shutting-down",
    });
  }
}

/** -32005 (geth's "limit exceeded"): too many requests in flight; retry later. */
export class ServerBusyError extends RpcError {
  constructor(limit: number) {
    super(-32005, `server busy: ${limit} requests already in flight, retry later`, {
      data: { limit },
      kind: "server-busy",
      details: { code: -32005, limit },
    });
  }
}

/** HTTP 413 body: the request body is over the configured limit (-32600). */
export class BodyTooLargeError extends RpcError {
  constructor(limit: number) {
    super(-32600, `invalid request: body exceeds the limit of ${limit} bytes`, {
      data: { limit },
      kind: "body-too-large",
      details: { code: -32600, limit },
    });
  }
}

/** HTTP 415 body: only JSON bodies are accepted (-32600). */
export class UnsupportedContentTypeError extends RpcError {
  constructor(received: string) {
    super(-32600, `invalid request: content type "${received}" is not supported, send application/json`, {
      kind: "unsupported-content-type",
      details: { code: -32600, received },
    });
  }
}

/** HTTP 404 body: nothing is served at this method and path. */
export class RouteNotFoundError extends RpcError {
  constructor(method: string, path: string) {
    super(
      -32600,
      `no route for ${method.toUpperCase()} ${path}: send JSON-RPC as POST to any path, or GET /healthz, GET /metrics`,
      { kind: "route-not-found", details: { code: -32600, method, path } },
    );
  }
}

/** HTTP 404 body for GET /healthz on a server configured without a health method. */
export class HealthNotConfiguredError extends RpcError {
  constructor() {
    super(-32601, "this server has no health method: GET /healthz is not available", {
      kind: "health-not-configured",
    });
  }
}

export type RpcServerErrorKind = "listen-failed" | "invalid-config" | "invalid-state" | "invalid-limits";

/**
 * Root of the errors the server core raises to the code that owns it (binding, options, lifecycle), never sent
 * to a client. What a client sees is an RpcError (rpc-errors of the generated runtime, and the classes above).
 */
export abstract class RpcServerError extends SuiteError<RpcServerErrorKind> {
  readonly package = "rpc";

  constructor(
    message: string,
    kind: RpcServerErrorKind,
    details?: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, { kind, details, cause: options?.cause });
  }
}

/** The server could not bind its address. */
export class ListenError extends RpcServerError {
  constructor(host: string, port: number) {
    super(`cannot listen on ${host}:${port}: the address is in use or not available`, "listen-failed", {
      host,
      port,
    });
  }
}

/** The server options are inconsistent (unknown health method, clashing websocket paths). */
export class ServerConfigError extends RpcServerError {
  constructor(message: string) {
    super(message, "invalid-config");
  }
}

/** listen() was called on a server that is already listening or was closed. */
export class ServerStateError extends RpcServerError {
  constructor(message: string) {
    super(message, "invalid-state");
  }
}

/** A limit of RpcLimits is not a positive safe integer. */
export class InvalidLimitsError extends RpcServerError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "invalid-limits", details);
  }
}

/** -32005: one call's serialized response is larger than the server answers. */
export class ResponseTooLargeError extends RpcError {
  constructor(limit: number, bytes: number, limitName = "maxResponseBytes") {
    super(-32005, `response too large: ${bytes} bytes exceed the limit of ${limit} bytes (${limitName})`, {
      data: { limit: limitName, max: limit, bytes },
      kind: "response-too-large",
      details: { code: -32005, limit: limitName, max: limit, bytes },
    });
  }
}

/** -32005: the responses of one batch sum to more than the server answers; this call's is dropped. */
export class BatchResponseTooLargeError extends RpcError {
  constructor(limit: number, limitName = "maxBatchResponseBytes") {
    super(
      -32005,
      `batch response too large: the responses of this batch exceed the limit of ${limit} bytes (${limitName})`,
      {
        data: { limit: limitName, max: limit },
        kind: "batch-response-too-large",
        details: { code: -32005, limit: limitName, max: limit },
      },
    );
  }
}

/** -32005: a batch asks for more of a shared budget (e.g. eth_getProof storage keys) than one batch may. */
export class BatchBudgetExceededError extends RpcError {
  constructor(name: string, limit: number, total: number) {
    super(-32005, `batch exceeds the limit: ${total} ${name} requested, at most ${limit} per batch`, {
      data: { limit: name, max: limit, requested: total },
      kind: "batch-budget-exceeded",
      details: { code: -32005, limit: name, max: limit, requested: total },
    });
  }
}

/** -32005: the connection already holds as many subscriptions as one connection may. */
export class TooManySubscriptionsError extends RpcError {
  constructor(limit: number, limitName = "maxSubscriptionsPerConnection") {
    super(
      -32005,
      `too many subscriptions: this connection already holds ${limit} (${limitName}); unsubscribe first`,
      {
        data: { limit: limitName, max: limit },
        kind: "too-many-subscriptions",
        details: { code: -32005, limit: limitName, max: limit },
      },
    );
  }
}

/** -32005: as many calls of this method as the server runs at once are already running; retry later. */
export class MethodBusyError extends RpcError {
  constructor(method: string, limit: number, limitName = "maxConcurrent") {
    super(-32005, `server busy: ${limit} ${method} calls already running (${limitName}), retry later`, {
      data: { method, limit: limitName, max: limit },
      kind: "method-busy",
      details: { code: -32005, method, limit: limitName, max: limit },
    });
  }
}

/** -32600: this method is not served inside a JSON-RPC batch; send it as a single request. */
export class NotAllowedInBatchError extends RpcError {
  constructor(method: string) {
    super(-32600, `invalid request: ${method} is not allowed in a batch, send it as a single request`, {
      data: { method },
      kind: "not-allowed-in-batch",
      details: { code: -32600, method },
    });
  }
}
