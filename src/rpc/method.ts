/**
 * The contract between generated method descriptors (generated/) and the hand-written JSON-RPC
 * server core (src/rpc). Codegen emits one RpcMethodSpec per OpenRPC method; handlers are
 * written by hand and bound to the specs to form a method table the server dispatches on.
 */

/** Per-request information handed to every handler. */
export interface RequestContext {
  /** The transport that carried the request. */
  readonly transport: "http" | "ws";
  /** Aborted when the server is shutting down hard or the client went away. */
  readonly signal: AbortSignal;
  /** Response headers a handler may add (HTTP only; e.g. the pending snapshot index). */
  readonly responseHeaders: Map<string, string>;
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
