/**
 * The JSON-RPC server core (library, rank 1; docs/rpc.md) on uWebSockets.js.
 *
 * Public surface: `createRpcServer` (HTTP, websocket, broadcast routes, shutdown), the limits (`RpcLimits`,
 * `DEFAULT_RPC_LIMITS`, per-method limits), request bodies (`readBody`), `UwsGuard` and `InFlight`, `RawJsonResult`,
 * the method definitions, `exitOnShutdownSignals`, and the errors (`RpcError` and the server's errors).
 *
 * Concepts owned: the JSON-RPC 2.0 envelope and batches on the wire, the server's limits, error codes at the edge.
 */
export { createRpcServer } from "./server.js";
export type {
  BroadcastRouteOptions,
  CloseOptions,
  RpcServer,
  RpcServerOptions,
  WebSocketOptions,
} from "./server.js";
export { type BatchBudget, DEFAULT_RPC_LIMITS, type RpcLimits } from "./limits.js";
export type { MethodLimit, MethodLimits } from "./method-limits.js";
export { type BodyHandlers, readBody } from "./http-body.js";
export { exitOnShutdownSignals } from "./shutdown.js";
export {
  defaultIsBadInput,
  type GuardFailure,
  GuardedResponse,
  type HttpAnswer,
  type RouteOptions,
  statusLine,
  UwsGuard,
  type UwsGuardOptions,
} from "./uws-guard.js";
export { InFlight, type InFlightWork } from "./in-flight.js";
export { RawJsonResult } from "./envelope.js";
export * from "./errors.js";
export * from "./method.js";
export * from "./server-errors.js";
