/** Limits applied to untrusted input before it is parsed or dispatched, and to what the server answers. */
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
  /** Largest serialized response of one call, in bytes; beyond it the call is answered -32005. */
  readonly maxResponseBytes: number;
  /**
   * Largest sum of the responses of one batch, in bytes (geth's `--rpc.batch-response-max-size`): the call
   * that crosses it and every later one are answered -32005, and calls not yet started never run.
   */
  readonly maxBatchResponseBytes: number;
  /** Subscriptions one websocket connection may hold open at once (-32005 beyond). */
  readonly maxSubscriptionsPerConnection: number;
  /** Calls of one batch that run at the same time (the others wait their turn, in order). */
  readonly batchConcurrency: number;
}

/**
 * geth's defaults for bodies (5 MiB), batches (1000 requests) and batch responses (25 MB); 10 000 requests
 * in flight; one response at most 25 MB too; 128 subscriptions per connection; 16 calls of a batch at once.
 */
export const DEFAULT_RPC_LIMITS: RpcLimits = {
  maxBodyBytes: 5 * 1024 * 1024,
  maxBatchLength: 1000,
  maxInFlight: 10_000,
  maxResponseBytes: 25_000_000,
  maxBatchResponseBytes: 25_000_000,
  maxSubscriptionsPerConnection: 128,
  batchConcurrency: 16,
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

/**
 * A budget one batch shares across its calls (e.g. the storage keys of every eth_getProof of a batch):
 * `cost` reads a call's raw params (it must not throw on malformed ones; return 0 for what it does not
 * price). Calls are priced in order before any runs; a call that takes the batch's total over `limit` is
 * answered -32005 naming the budget and does not run.
 */
export interface BatchBudget {
  /** Name shown in the error, e.g. the flag that sets the limit. */
  readonly name: string;
  readonly limit: number;
  cost(method: string, params: unknown): number;
}

/** UTF-8 length of a string without encoding it when its UTF-16 length settles the question. */
export function exceedsBytes(text: string, limit: number): { over: boolean; bytes: number } {
  // Every UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, two units, is 4 bytes).
  if (text.length > limit) return { over: true, bytes: Buffer.byteLength(text) };
  if (text.length * 3 <= limit) return { over: false, bytes: text.length };
  const bytes = Buffer.byteLength(text);
  return { over: bytes > limit, bytes };
}
