/** Errors raised by the server core itself (not by methods). */
import { RpcError } from "./errors.js";

/** -32000: the server is draining for shutdown and takes no new work. */
export class ServerShuttingDownError extends RpcError {
  constructor() {
    super(-32000, "server is shutting down: retry the request on another connection or node");
  }
}

/** -32005 (geth's "limit exceeded"): too many requests in flight; retry later. */
export class ServerBusyError extends RpcError {
  constructor(limit: number) {
    super(-32005, `server busy: ${limit} requests already in flight, retry later`, { data: { limit } });
  }
}

/** HTTP 413 body: the request body is over the configured limit (-32600). */
export class BodyTooLargeError extends RpcError {
  constructor(limit: number) {
    super(-32600, `invalid request: body exceeds the limit of ${limit} bytes`, { data: { limit } });
  }
}

/** HTTP 415 body: only JSON bodies are accepted (-32600). */
export class UnsupportedContentTypeError extends RpcError {
  constructor(received: string) {
    super(-32600, `invalid request: content type "${received}" is not supported, send application/json`);
  }
}

/** HTTP 404 body: nothing is served at this method and path. */
export class RouteNotFoundError extends RpcError {
  constructor(method: string, path: string) {
    super(
      -32600,
      `no route for ${method.toUpperCase()} ${path}: send JSON-RPC as POST to any path, or GET /healthz, GET /metrics`,
    );
  }
}

/** HTTP 404 body for GET /healthz on a server configured without a health method. */
export class HealthNotConfiguredError extends RpcError {
  constructor() {
    super(-32601, "this server has no health method: GET /healthz is not available");
  }
}

/** The server could not bind its address. */
export class ListenError extends Error {
  constructor(host: string, port: number) {
    super(`cannot listen on ${host}:${port}: the address is in use or not available`);
    this.name = "ListenError";
  }
}

/** The server options are inconsistent (unknown health method, clashing websocket paths). */
export class ServerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ServerConfigError";
  }
}

/** listen() was called on a server that is already listening or was closed. */
export class ServerStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ServerStateError";
  }
}
