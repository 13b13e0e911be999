/**
 * The block pool: worker threads (worker.ts) that execute the blocks of a range concurrently, each block on the
 * parent header the witness carries for it (docs/proof.md "Parallel execution"). Workers start on first use and
 * stay for the next proofs; each has a bounded heap (resourceLimits) and reads the request's preimage table in
 * place (SharedArrayBuffers), never a copy of it. Jobs are handed out in block order; the caller is told of each
 * outcome as it arrives and may stop the rest (a broken chain of hashes makes the later blocks useless).
 */
import { Worker } from "node:worker_threads";
import type { BlockHeader, PayloadAttributes, RollupConfig } from "../../../chain/index.js";
import { workerEntryUrl } from "../../../bundles/index.js";
import type { SharedPreimageTable } from "../../preimages/index.js";
import type { BlockJob, BlockOutcome, BlockReply } from "./protocol.js";

/** The worker's bundle when this runs from one, else the .mjs that loads worker.ts under tsx. */
const ENTRY = workerEntryUrl(
  "src/proof/program/parallel/worker.ts",
  new URL("./worker-entry.mjs", import.meta.url),
);

/** Default V8 old-generation limit of one block worker (MiB): a block's state reads and sealing, with room. */
export const DEFAULT_WORKER_HEAP_MB = 1024;

/**
 * Block workers of an enclave (and the witnesses a host prepares) when --workers is not given: 1, sequential
 * only. On the devnet's small blocks handing a block to a worker costs more than executing it (docs/enclave.md
 * "Parallel execution" has the figures); operators proving heavy blocks set --workers to their cores.
 */
export const DEFAULT_BLOCK_WORKERS = 1;

export interface BlockPoolOptions {
  /** Worker threads (at least 1). */
  readonly workers: number;
  /** Old-generation heap limit of each worker, MiB (default DEFAULT_WORKER_HEAP_MB). */
  readonly maxHeapMb?: number;
}

/** One block of a range, as the pool runs it. */
export interface PoolBlock {
  readonly parent: BlockHeader;
  readonly attributes: PayloadAttributes;
  readonly transactions: readonly Uint8Array[];
}

interface Slot {
  readonly worker: Worker;
  /** Settles when the worker has loaded (its first message) or failed. */
  readonly ready: Promise<void>;
  busy: { readonly index: number; readonly done: (outcome: BlockOutcome) => void } | undefined;
}

export class BlockPool {
  readonly workers: number;
  private readonly maxHeapMb: number;
  private readonly slots: Slot[] = [];
  private runs = 0;
  private nextId = 0;
  /** The largest heap a worker reported after a job (bytes). */
  peakWorkerHeapBytes = 0;

  constructor(options: BlockPoolOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1)
      throw new RangeError(`workers must be a positive integer, got ${options.workers}`);
    this.workers = options.workers;
    this.maxHeapMb = options.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB;
  }

  private spawn(): Slot {
    const worker = new Worker(ENTRY, {
      name: "block-worker",
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb },
    });
    // The pool never keeps a process alive on its own (an enclave or host stopping ends its workers).
    worker.unref();
    let markReady: () => void = () => {};
    const slot: Slot = { worker, ready: new Promise((resolve) => (markReady = resolve)), busy: undefined };
    const fail = (reason: string) => {
      markReady();
      const index = this.slots.indexOf(slot);
      if (index !== -1) this.slots.splice(index, 1);
      const busy = slot.busy;
      slot.busy = undefined;
      busy?.done({ kind: "failed", reason });
    };
    worker.on("message", (reply: BlockReply | { readonly ready: true }) => {
      if ("ready" in reply) return markReady();
      this.peakWorkerHeapBytes = Math.max(this.peakWorkerHeapBytes, reply.heapUsed);
      const busy = slot.busy;
      slot.busy = undefined;
      busy?.done(reply.outcome);
    });
    worker.on("error", (error) => fail(`the block worker failed: ${error.message}`));
    worker.on("exit", (code) => fail(`the block worker exited with code ${code}`));
    this.slots.push(slot);
    return slot;
  }

  /**
   * Executes `blocks` over `table`, up to `workers` at once, in block order. `keep(index, outcome)` is called as
   * each outcome arrives; once it answers false no further block is started. Resolves with every outcome
   * (undefined for a block never started) when the started ones are done. An aborted `signal` ends the workers
   * and rejects with its reason.
   */
  async executeAll(
    blocks: readonly PoolBlock[],
    table: SharedPreimageTable,
    rollupConfig: RollupConfig,
    keep: (index: number, outcome: BlockOutcome) => boolean,
    signal?: AbortSignal,
  ): Promise<(BlockOutcome | undefined)[]> {
    signal?.throwIfAborted();
    const run = ++this.runs;
    const outcomes: (BlockOutcome | undefined)[] = new Array<BlockOutcome | undefined>(blocks.length);
    let next = 0;
    let stopped = false;
    let running = 0;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        stopped = true;
        for (const slot of this.slots.splice(0)) void slot.worker.terminate();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        signal?.removeEventListener("abort", onAbort);
        resolve(outcomes);
      };
      const dispatch = () => {
        while (!stopped && next < blocks.length) {
          const slot =
            this.slots.find((s) => s.busy === undefined) ??
            (this.slots.length < this.workers ? this.spawn() : undefined);
          if (slot === undefined) break;
          const index = next++;
          const block = blocks[index]!;
          running++;
          slot.busy = {
            index,
            done: (outcome) => {
              running--;
              outcomes[index] = outcome;
              if (!stopped && !keep(index, outcome)) stopped = true;
              if (!signal?.aborted) dispatch();
            },
          };
          const job: BlockJob = { id: this.nextId++, run, table, rollupConfig, ...block };
          slot.worker.postMessage(job);
        }
        if (running === 0 && (stopped || next >= blocks.length)) finish();
      };
      dispatch();
    });
  }

  /** Starts every worker now and waits until each has loaded (so the first range does not pay for it). */
  async start(): Promise<void> {
    while (this.slots.length < this.workers) this.spawn();
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  /** Ends every worker (a pool may still be used afterwards: it starts new ones). */
  async close(): Promise<void> {
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }
}
