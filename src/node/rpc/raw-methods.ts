/**
 * Methods whose result is serialized off the event loop (a call worker answers JSON text): bound to
 * their generated spec for the params, but returning the server core's RawJsonResult instead of a typed
 * value, so the main thread forwards the text without re-encoding it (docs/node/limits.md "Block production
 * under load"). The server puts them in its method table in place of the typed handlers' binding.
 */
import type { BoundMethod, RequestContext, RpcMethodSpec } from "../../rpc/index.js";
import { RawJsonResult } from "../../rpc/index.js";

/** Binds `spec`'s param decoding to a handler that answers the result as JSON text. */
export function bindRawMethod<P, R>(
  spec: RpcMethodSpec<P, R>,
  handler: (params: P, ctx: RequestContext) => Promise<string>,
): BoundMethod {
  return {
    name: spec.name,
    async invoke(rawParams, ctx) {
      return new RawJsonResult(await handler(spec.decodeParams(rawParams), ctx));
    },
  };
}
