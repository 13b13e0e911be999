/** Limits applied to untrusted input before it is parsed or dispatched. */
import { InvalidLimitsError } from "./server-errors.js";

export interface RpcLimits {
  /** Largest accepted HTTP body and websocket message, in bytes (HTTP 413 / websocket close 1009 beyond). */
  readonly maxBodyBytes: number;
  /** Most requests in one batch (-32600 beyond). */
  readonly maxBatchLength: number;
  /**
   * Most HTTP requests and websocket messages processed at once (a batch counts once); beyond it
   * HTTP answers 503 and websocket calls get -32005, without running anything.
   */
  readonly maxInFlight: number;
}

/** geth's defaults for bodies (5 MiB) and batches (1000 requests); 10 000 requests in flight. */
export const DEFAULT_RPC_LIMITS: RpcLimits = {
  maxBodyBytes: 5 * 1024 * 1024,
  maxBatchLength: 1000,
  maxInFlight: 10_000,
};

export { InvalidLimitsError };

/** Fills defaults and checks that every limit is a positive safe integer. */
export function resolveLimits(partial: Partial<RpcLimits> | undefined): RpcLimits {
  const limits = { ...DEFAULT_RPC_LIMITS, ...partial };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new InvalidLimitsError(`limit ${name} must be a positive integer, got ${String(value)}`, {
        limit: name,
        value: String(value),
      });
    }
  }
  return limits;
}
