/**
 * The block pool: worker threads (worker.ts) that execute the blocks of a range concurrently, each block on the
 * parent header the witness carries for it (docs/proof.md "Parallel execution"). Workers start on first use and
 * stay for the next proofs; each has a bounded heap (resourceLimits) and reads the request's preimage table in
 * place (SharedArrayBuffers), never a copy of it. Jobs are handed out in block order; the caller is told of each
 * outcome as it arrives and may stop the rest (a broken chain of hashes makes the later blocks useless).
 */
import { Worker } from "node:worker_threads";
import type { BlockHeader, PayloadAttributes, RollupConfig } from "../../../chain/index.js";
import { workerEntryUrl, workerStartData } from "../../../bundles/index.js";
import type { SharedPreimageTable } from "../../preimages/index.js";
import { PreimageMismatchError } from "../../../chain/index.js";
import { PreimageVerificationError } from "../errors.js";
import type {
  BlobJob,
  BlobOutcome,
  BlockJob,
  BlockOutcome,
  BlockReply,
  VerifyJob,
  VerifyOutcome,
} from "./protocol.js";

/** The block worker's entry (WORKER_ENTRIES). */
export const BLOCK_WORKER_ENTRY = "src/proof/program/parallel/worker.ts";

/**
 * The worker's bundle when this runs from one (the enclave image: its own file), else the .mjs that loads worker.ts
 * under tsx.
 */
const ENTRY = workerEntryUrl(BLOCK_WORKER_ENTRY, new URL("./worker-entry.mjs", import.meta.url));

/** Default V8 old-generation limit of one block worker (MiB): a block's state reads and sealing, with room. */
export const DEFAULT_WORKER_HEAP_MB = 1024;

/**
 * Block workers of an enclave (and the witnesses a host prepares) when --workers is not given: 1, sequential
 * only. On the devnet's small blocks handing a block to a worker costs more than executing it (docs/enclave.md
 * "Parallel execution" has the figures); operators proving heavy blocks set --workers to their cores.
 */
export const DEFAULT_BLOCK_WORKERS = 1;

/**
 * Fewest entries in one share of a parallel preimage check (`verifyAll`): a smaller request is checked by fewer
 * workers, since handing out a share costs a message each way.
 */
export const VERIFY_SHARE_ENTRIES = 16_384;
/** Shares per worker in a parallel preimage check: later shares go to whichever worker finishes first. */
const VERIFY_SHARES_PER_WORKER = 4;

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
  busy:
    | { readonly index: number; readonly done: (outcome: BlockOutcome | VerifyOutcome | BlobOutcome) => void }
    | undefined;
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
      workerData: workerStartData(BLOCK_WORKER_ENTRY),
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
  executeAll(
    blocks: readonly PoolBlock[],
    table: SharedPreimageTable,
    rollupConfig: RollupConfig,
    keep: (index: number, outcome: BlockOutcome) => boolean,
    signal?: AbortSignal,
  ): Promise<(BlockOutcome | undefined)[]> {
    const run = ++this.runs;
    return this.runJobs<BlockOutcome>(
      blocks.length,
      (index, id) => ({ kind: "block", id, run, table, rollupConfig, ...blocks[index]! }),
      keep,
      signal,
    );
  }

  /**
   * Checks every keccak256- and sha256-keyed value of `table` against its key on the workers, in shares of at
   * least VERIFY_SHARE_ENTRIES entries handed out in order. Resolves only when every share verified; rejects with
   * PreimageMismatchError for the first entry that does not hash to its key (the lowest among the shares that
   * found one), with PreimageVerificationError when a share was not checked (a worker failed), and with the
   * signal's reason when it is aborted. The caller reads nothing from the table before this resolves.
   */
  async verifyAll(table: SharedPreimageTable, signal?: AbortSignal): Promise<void> {
    const run = ++this.runs;
    const shares = Math.min(
      this.workers * VERIFY_SHARES_PER_WORKER,
      Math.max(1, Math.ceil(table.count / VERIFY_SHARE_ENTRIES)),
    );
    const bounds = (index: number) => ({
      from: Math.floor((table.count * index) / shares),
      to: Math.floor((table.count * (index + 1)) / shares),
    });
    const outcomes = await this.runJobs<VerifyOutcome>(
      shares,
      (index, id) => ({ kind: "verify", id, run, table, ...bounds(index) }),
      (_index, outcome) => outcome.kind === "verified",
      signal,
    );
    // In share order: a mismatch or failure of an earlier share is reported before a later one's, and a share
    // never started (the hand-out stopped at a mismatch or failure) counts as unverified.
    for (let index = 0; index < shares; index++) {
      const outcome = outcomes[index];
      if (outcome?.kind === "verified") continue;
      if (outcome?.kind === "mismatch") throw new PreimageMismatchError(outcome.key, outcome.actualHash);
      throw new PreimageVerificationError(outcome?.reason ?? "not checked", bounds(index));
    }
  }

  /**
   * Checks on the workers, one job per blob, that the field elements `table` carries under each commitment's element
   * keys have exactly that KZG commitment. Answers per commitment the sha256 of the blob the elements make, or
   * undefined when they were not checked (missing or malformed elements, another commitment, a worker that failed):
   * nothing is refused here, since derivation checks in full any blob it reads that was not checked.
   */
  async checkBlobs(
    table: SharedPreimageTable,
    commitments: readonly Uint8Array[],
    signal?: AbortSignal,
  ): Promise<(Uint8Array | undefined)[]> {
    const run = ++this.runs;
    const outcomes = await this.runJobs<BlobOutcome>(
      commitments.length,
      (index, id) => ({ kind: "blob", id, run, table, commitment: commitments[index]! }),
      () => true,
      signal,
    );
    return outcomes.map((outcome) => (outcome?.kind === "blob-checked" ? outcome.digest : undefined));
  }

  /**
   * Hands out `count` jobs (`job(index, id)`) in index order, up to `workers` at once. `keep(index, outcome)` is
   * called as each outcome arrives; once it answers false no further job is started. Resolves with every outcome
   * (undefined for a job never started) when the started ones are done; an aborted `signal` ends the workers and
   * rejects with its reason.
   */
  private async runJobs<Outcome extends BlockOutcome | VerifyOutcome | BlobOutcome>(
    count: number,
    job: (index: number, id: number) => BlockJob | VerifyJob | BlobJob,
    keep: (index: number, outcome: Outcome) => boolean,
    signal?: AbortSignal,
  ): Promise<(Outcome | undefined)[]> {
    signal?.throwIfAborted();
    const outcomes: (Outcome | undefined)[] = new Array<Outcome | undefined>(count);
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
        while (!stopped && next < count) {
          const slot =
            this.slots.find((s) => s.busy === undefined) ??
            (this.slots.length < this.workers ? this.spawn() : undefined);
          if (slot === undefined) break;
          const index = next++;
          running++;
          slot.busy = {
            index,
            done: (outcome) => {
              running--;
              // A failed slot reports { kind: "failed" }, which both outcome types carry.
              outcomes[index] = outcome as Outcome;
              if (!stopped && !keep(index, outcome as Outcome)) stopped = true;
              if (!signal?.aborted) dispatch();
            },
          };
          slot.worker.postMessage(job(index, this.nextId++));
        }
        if (running === 0 && (stopped || next >= count)) finish();
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
