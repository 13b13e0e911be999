/**
 * Per-method limits: how many calls of one method may run at once (e.g. the host's `prover_prove`, minutes of
 * CPU each), and whether the method may be called inside a batch. A call beyond the limit is answered -32005 at
 * once, without running; a call of a method refused in batches is answered -32600 when it comes in one.
 */
import type { RpcError } from "./errors.js";
import {
  InvalidLimitsError,
  MethodBusyError,
  NotAllowedInBatchError,
  ServerConfigError,
} from "./server-errors.js";

export interface MethodLimit {
  /** Calls of the method running at once, over every connection and transport; one more gets -32005. */
  readonly maxConcurrent: number;
  /** Whether the method may be called inside a JSON-RPC batch; default true. */
  readonly allowInBatch?: boolean;
  /** How the refusal names the limit (e.g. the flag that sets it, `--max-concurrent-proofs`). */
  readonly limitName?: string;
}

/** Limits by method name. */
export type MethodLimits = Readonly<Record<string, MethodLimit>>;

/** A slot taken for one call: release it once the call finished. */
export type Release = () => void;

const NO_LIMIT: Release = () => {};

export class MethodGates {
  private readonly limits = new Map<string, MethodLimit>();
  private readonly running = new Map<string, number>();

  /** Checks every limit; `known` tells whether a method is served (a limit on an unknown one is a typo). */
  constructor(limits: MethodLimits | undefined, known: (method: string) => boolean) {
    for (const [method, limit] of Object.entries(limits ?? {})) {
      if (!known(method)) throw new ServerConfigError(`method limit for ${method}: no such method is served`);
      if (!Number.isSafeInteger(limit.maxConcurrent) || limit.maxConcurrent <= 0) {
        throw new InvalidLimitsError(
          `limit maxConcurrent of ${method} must be a positive integer, got ${String(limit.maxConcurrent)}`,
          { limit: "maxConcurrent", method, value: String(limit.maxConcurrent) },
        );
      }
      this.limits.set(method, limit);
      this.running.set(method, 0);
    }
  }

  /** Calls of `method` running now. */
  runningCalls(method: string): number {
    return this.running.get(method) ?? 0;
  }

  /** Takes a slot for one call of `method`, or returns the error it is refused with. */
  enter(method: string, inBatch: boolean): Release | RpcError {
    const limit = this.limits.get(method);
    if (limit === undefined) return NO_LIMIT;
    if (inBatch && limit.allowInBatch === false) return new NotAllowedInBatchError(method);
    const running = this.running.get(method) ?? 0;
    if (running >= limit.maxConcurrent) {
      return new MethodBusyError(method, limit.maxConcurrent, limit.limitName ?? "maxConcurrent");
    }
    this.running.set(method, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running.set(method, (this.running.get(method) ?? 1) - 1);
    };
  }
}
