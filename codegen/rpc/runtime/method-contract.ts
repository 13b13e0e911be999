/**
 * The contract between generated method descriptors (generated/rpc) and the hand-written JSON-RPC
 * server core (src/rpc). Codegen emits one RpcMethodSpec per OpenRPC method; handlers are
 * written by hand and bound to the specs to form a method table the server dispatches on. It lives
 * in the generated runtime so that generated/ needs nothing from src/; src/rpc re-exports it.
 */

/** Per-request information handed to every handler. */
export interface RequestContext {
  /** The transport that carried the request. */
  readonly transport: "http" | "ws";
  /** Aborted when the server is shutting down hard or the client went away. */
  readonly signal: AbortSignal;
  /** Response headers a handler may add (HTTP only; e.g. the pending snapshot index). */
  readonly responseHeaders: Map<string, string>;
  /**
   * Server-pushed notifications on the connection that carried the request: present on websocket
   * requests, absent on HTTP (a handler that needs it answers -32600/-32601-style errors without it).
   */
  readonly subscriptions?: SubscriptionHost;
}

/** One open subscription on one websocket connection. */
export interface Subscription {
  /** The subscription id returned to the client (0x-prefixed random 128-bit hex, as geth). */
  readonly id: string;
  /** True once unsubscribed, or the connection or server closed. */
  readonly closed: boolean;
  /**
   * Sends `{"jsonrpc":"2.0","method":<method>,"params":{"subscription":id,"result":result}}`;
   * `result` must already be JSON (encoded by a generated codec). Pushes made before the response
   * that returned the id has been sent are queued and sent right after it. Returns false when the
   * subscription is closed (the caller should stop producing) or the frame was dropped.
   */
  push(result: unknown): boolean;
}

/** Opens and closes subscriptions on the connection of the current request. */
export interface SubscriptionHost {
  /**
   * Opens a subscription. `onClose` runs exactly once: on cancel(), when the connection closes,
   * when the server closes, or when the request that opened it fails.
   * `method` is the notification method name (default "eth_subscription").
   */
  open(onClose: () => void, options?: { method?: string }): Subscription;
  /** Closes one of this connection's subscriptions; false when the id is unknown here. */
  cancel(id: string): boolean;
}

/** Generated description of one JSON-RPC method: its name and its wire codecs. */
export interface RpcMethodSpec<Params, Result> {
  readonly name: string;
  /** Parameter names in positional order. */
  readonly paramNames: readonly string[];
  /**
   * Validates raw JSON params (a positional array, a named object, or absent) and decodes them.
   * Throws InvalidParamsError (-32602) whose message names the parameter and what was expected.
   */
  decodeParams(raw: unknown): Params;
  /** Encodes typed params into their positional JSON form (client side). */
  encodeParams(params: Params): unknown[];
  /** Encodes a typed result into its JSON form (server side). */
  encodeResult(result: Result): unknown;
  /** Validates and decodes a JSON result (client side). Throws on a malformed result. */
  decodeResult(raw: unknown): Result;
}

/** A handler for one method, written by hand in src/ or enclave/. */
export type RpcHandler<Params, Result> = (params: Params, ctx: RequestContext) => Result | Promise<Result>;

/** A spec bound to its handler: what the server core dispatches on. */
export interface BoundMethod {
  readonly name: string;
  /** Decodes params, runs the handler and encodes the result. Throws RpcError subclasses. */
  invoke(rawParams: unknown, ctx: RequestContext): Promise<unknown>;
}

export type MethodTable = ReadonlyMap<string, BoundMethod>;

/** Binds one generated spec to a handler. */
export function bindMethod<P, R>(spec: RpcMethodSpec<P, R>, handler: RpcHandler<P, R>): BoundMethod {
  return {
    name: spec.name,
    async invoke(rawParams, ctx) {
      const params = spec.decodeParams(rawParams);
      const result = await handler(params, ctx);
      return spec.encodeResult(result);
    },
  };
}
