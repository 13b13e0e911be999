/**
 * Block witnesses fetched ahead: as soon as the agreed L2 head is known, the witness of every block of the range
 * is requested from the strategy, at most `concurrency` at once, in block order. A read the program misses waits on
 * the block witnesses in order until the value has arrived; a block witness that failed is remembered and thrown
 * when a read stays missing, so the error names the endpoint and the block rather than a missing preimage.
 */
import { WitnessFetchError } from "./errors.js";
import { BoundedRunner, withRetries } from "./requests.js";
import type { L2StateSource } from "./strategies.js";

/** Most blocks of one range fetched ahead (a longer range reads the rest as it misses them). */
export const MAX_PREFETCH_BLOCKS = 4096;

export interface PrefetchOptions {
  readonly source: L2StateSource;
  /** The L2 endpoint (named in errors). */
  readonly endpoint: string;
  readonly first: bigint;
  readonly last: bigint;
  readonly concurrency: number;
  /** Takes a block's values (the oracle keys each by its keccak256). */
  readonly put: (values: readonly Uint8Array[]) => void;
  readonly signal?: AbortSignal;
  /** Told of every block witness fetched: its values, bytes and milliseconds. */
  readonly onFetched?: (count: number, bytes: number, ms: number) => void;
}

export class BlockWitnessPrefetch {
  private readonly tasks: Promise<void>[] = [];
  /** tasks[0 … settled) are known to be done. */
  private settled = 0;
  private failure: WitnessFetchError | undefined;
  private stopped = false;

  constructor(private readonly options: PrefetchOptions) {
    const runner = new BoundedRunner(options.concurrency);
    const last =
      options.last - options.first >= BigInt(MAX_PREFETCH_BLOCKS)
        ? options.first + BigInt(MAX_PREFETCH_BLOCKS) - 1n
        : options.last;
    for (let n = options.first; n <= last; n++) {
      const number = n;
      this.tasks.push(runner.run(() => this.fetch(number)));
    }
  }

  private async fetch(number: bigint): Promise<void> {
    if (this.stopped || this.options.signal?.aborted === true) return;
    const t = performance.now();
    try {
      const values = await withRetries(() => this.options.source.blockWitness(number), this.options.signal);
      this.options.put(values);
      this.options.onFetched?.(
        values.length,
        values.reduce((sum, v) => sum + v.length, 0),
        performance.now() - t,
      );
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      this.failure ??= new WitnessFetchError(
        `L2 block ${number}'s witness from ${this.options.endpoint} (${this.options.source.name}): ${message}`,
        { hint: "state", block: number, endpoint: this.options.endpoint, strategy: this.options.source.name },
        { cause },
      );
    }
  }

  /**
   * Waits on the block witnesses, in block order, until `has()`; true then. False when every block witness has
   * arrived without it; the first failed block witness is thrown instead when there was one.
   */
  async waitFor(has: () => boolean): Promise<boolean> {
    while (this.settled < this.tasks.length) {
      if (has()) return true;
      await this.tasks[this.settled];
      this.settled++;
    }
    if (has()) return true;
    if (this.failure !== undefined) throw this.failure;
    return false;
  }

  /** Starts no more fetches (the run is over). */
  stop(): void {
    this.stopped = true;
  }
}
