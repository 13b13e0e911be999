/** What the server's parts (HTTP routes, the JSON-RPC websocket, broadcast routes, the drain) share. */
import type { Logger } from "../log/index.js";
import type { MetricsRegistry } from "../metrics/index.js";
import type { RpcDispatcher } from "./dispatcher.js";
import type { InFlight } from "./in-flight.js";
import type { RpcLimits } from "./limits.js";
import type { RpcMetrics } from "./rpc-metrics.js";
import type { UwsApp } from "./uws-app.js";
import type { UwsGuard } from "./uws-guard.js";

export interface ServerCore {
  readonly app: UwsApp;
  /** Every uWS callback goes through it. */
  readonly guard: UwsGuard;
  /** HTTP exchanges and websocket messages in progress (the in-flight limit, the drain). */
  readonly inFlight: InFlight;
  readonly dispatcher: RpcDispatcher;
  readonly limits: RpcLimits;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
  readonly rpcMetrics: RpcMetrics;
  /** The server is draining or closed: new work is refused. */
  isDraining(): boolean;
}

export const MIB = 1024 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A body or message as text for the dispatcher: invalid UTF-8 is not JSON, and gives a text JSON.parse refuses. */
export function decodeUtf8OrInvalid(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return "\u0000";
  }
}
