/**
 * How the witness path talks to its endpoints: every fetch is a read, so one that failed on the network (a
 * keep-alive connection the server closed, an HTTP 5xx or 429) is tried again with a growing pause, at most
 * FETCH_ATTEMPTS times in all; a timeout or an answer that does not check is not retried. Block witnesses are
 * fetched ahead under a bound on the requests in flight per endpoint.
 */
import { EndpointUnavailableError } from "../../chain-rpc/index.js";

/** Tries of one fetch that fails on the network (not on a timeout or an answer that does not check). */
export const FETCH_ATTEMPTS = 3;

/** Runs `fn` until it succeeds, the error is not a transient one, or FETCH_ATTEMPTS are spent. */
export async function withRetries<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await fn();
    } catch (error) {
      const retry =
        error instanceof EndpointUnavailableError &&
        error.details.timedOut !== true &&
        attempt < FETCH_ATTEMPTS;
      if (!retry) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/** At most `limit` tasks run at once; the rest start in the order they were given. */
/**
 * Dispatches requests in the order their turns were taken, whatever order their preparations finish in: a turn waits
 * until the turn before it dispatched (or gave up). The host reads block witnesses block by block, and a node
 * executes the calls it is sent in arrival order, so the block needed first must be asked first.
 */
export class DispatchOrder {
  private last: Promise<void> = Promise.resolve();

  /** A turn: `ready` resolves once the previous turn is done; call `done` once this one dispatched or failed. */
  take(): { readonly ready: Promise<void>; readonly done: () => void } {
    const ready = this.last;
    let done!: () => void;
    this.last = new Promise<void>((resolve) => (done = resolve));
    return { ready, done };
  }
}

export class BoundedRunner {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`a concurrency bound must be at least 1, got ${limit}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
