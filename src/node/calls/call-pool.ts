/**
 * eth_call / eth_estimateGas / eth_createAccessList and heavy reads (eth_getProof) off the node's event
 * loop, so that the sequencer's snapshots and seals keep their cadence whatever the RPC side serves
 * (docs/node/limits.md "Block production under load"): a pool of worker threads (call-worker.ts), started on
 * demand up to a limit, each running one job at a time. The main thread resolves the block and its
 * environment; a worker reads the state from the node's SQLite file, plus the nodes the block being
 * built has written so far (sent as deltas: each worker keeps the overlay of one block). A read job
 * answers the JSON text of its result, serialized in the worker. Witness executions (debug_executionWitness,
 * debug_executePayload) run on workers of their own, over sealed state only.
 *
 * Every EVM execution has a deadline (geth's RPC EVM timeout): a job that overruns it is ended by
 * terminating its worker, and the caller gets -32000 `execution aborted (timeout = …)`. Jobs beyond the
 * workers wait in a bounded queue; a full queue answers -32005.
 */
import { Worker } from "node:worker_threads";
import { ExecutionFailedError, LimitExceededError } from "../../../generated/rpc/index.js";
import { workerEntryUrl } from "../../bundles/index.js";
import type { Logger } from "../../log/index.js";
import {
  type CallEnvironment,
  type CallMessage,
  type CallOutcome,
  IntrinsicGasError,
} from "../state/call.js";
import { NodeError, type NodeErrorOptions } from "../errors.js";
import type { BlockWitness } from "../execution-witness.js";
import { NodeLimitExceededError } from "../rpc/limits.js";
import type { BlockRead } from "./block-reads.js";
import type { BlockReadContext, CallContext, CallExecutor, PendingOverlay, ReadContext } from "./executor.js";
import type {
  AccessListResult,
  CallJob,
  CallWorkerData,
  EstimateResult,
  OverlayDelta,
  WitnessJob,
  WorkerReply,
} from "./protocol.js";

/** The worker's bundle when this runs from one, else the .mjs that loads call-worker.ts under tsx. */
const ENTRY = workerEntryUrl(
  "src/node/calls/call-worker.ts",
  new URL("./call-worker-entry.mjs", import.meta.url),
);

export interface CallPoolOptions {
  /** The node's SQLite file. */
  readonly dbPath: string;
  /** The L2 chain id (workers decode full blocks' transactions with its Common). */
  readonly chainId: bigint;
  /** Most worker threads (at least 1). */
  readonly workers: number;
  /** Deadline of one EVM execution, milliseconds. */
  readonly timeoutMs: number;
  /** Most jobs waiting for a worker (default 256). */
  readonly maxQueued?: number;
  /**
   * Most worker threads for witness executions (default DEFAULT_WITNESS_WORKERS); the witness service's own bound
   * (--rpc-witness-max-concurrent) says how many run at once.
   */
  readonly witnessWorkers?: number;
  readonly logger: Logger;
}

type JobInput =
  | { kind: "call"; env: CallEnvironment; msg: CallMessage }
  | { kind: "estimate"; env: CallEnvironment; msg: CallMessage; cap: bigint }
  | { kind: "access-list"; env: CallEnvironment; msg: CallMessage }
  | { kind: "proof"; stateRoot: Uint8Array; address: Uint8Array; storageKeys: Uint8Array }
  | { kind: "block-read"; read: BlockRead }
  | Omit<WitnessJob, "id" | "overlay">;

interface Job {
  readonly id: number;
  readonly input: JobInput;
  readonly overlay: PendingOverlay | undefined;
  readonly signal: AbortSignal | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Block reads (a few blocks decoded and serialized: milliseconds) have a worker of their own, so they never
 * wait behind EVM executions (up to the deadline) or proofs (up to 1024 keys); `heavy` jobs use up to
 * `workers` workers; witness executions (whole blocks, no deadline) have up to `witnessWorkers` of their own.
 */
type Role = "reads" | "heavy" | "witness";

const roleOf = (input: JobInput): Role =>
  input.kind === "block-read" ? "reads" : input.kind === "witness" ? "witness" : "heavy";

/** Witness workers a pool starts at most by default: Base's node runs 3 witness executions at once. */
export const DEFAULT_WITNESS_WORKERS = 3;

interface Slot {
  readonly role: Role;
  readonly worker: Worker;
  readonly ready: Promise<void>;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The overlay this worker holds: its block and how many of the block's nodes it has received. */
  overlay: { blockId: string; sent: number } | undefined;
  /** Set once the worker is being replaced: it takes no more jobs. */
  retired: boolean;
}

/** The worker thread stopped while running a job (a crash, not a timeout). */
export class CallWorkerExitedError extends NodeError {
  constructor(message: string, options?: NodeErrorOptions) {
    super(message, "call-worker-exited", options);
  }
}

/** The execution failed inside the worker with an error other than intrinsic gas; `details.name` is its class. */
export class CallFailedError extends NodeError {
  constructor(name: string, message: string) {
    super(message, "call-failed", { details: { name } });
  }
}

/** 32-byte words end to end. */
function packWords(words: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(words.length * 32);
  for (const [i, w] of words.entries()) {
    if (w.length !== 32) throw new RangeError(`a storage key is 32 bytes, got ${w.length}`);
    out.set(w, i * 32);
  }
  return out;
}

/** The overlay's entries from position `from` of its write order on: O(new entries). */
function entriesFrom(overlay: PendingOverlay, from: number): [string, Uint8Array][] {
  const out: [string, Uint8Array][] = [];
  for (let i = from; i < overlay.keys.length; i++) {
    const key = overlay.keys[i]!;
    out.push([key, overlay.nodes.get(key)!]);
  }
  return out;
}

export class CallPool implements CallExecutor {
  private readonly slots: Slot[] = [];
  /** Jobs waiting for a worker of their role (see `Role`). */
  private readonly queues: Record<Role, Job[]> = { reads: [], heavy: [], witness: [] };
  private nextId = 1;
  private closed = false;
  private readonly maxQueued: number;

  constructor(private readonly options: CallPoolOptions) {
    if (!(options.workers >= 1)) throw new RangeError("a call pool needs at least one worker");
    this.maxQueued = options.maxQueued ?? 256;
  }

  call(context: CallContext, msg: CallMessage, signal?: AbortSignal): Promise<CallOutcome> {
    return this.submit(
      { kind: "call", env: context.env, msg },
      context.overlay,
      signal,
    ) as Promise<CallOutcome>;
  }

  estimate(
    context: CallContext,
    msg: CallMessage,
    cap: bigint,
    signal?: AbortSignal,
  ): Promise<EstimateResult> {
    const input: JobInput = { kind: "estimate", env: context.env, msg, cap };
    return this.submit(input, context.overlay, signal) as Promise<EstimateResult>;
  }

  accessList(context: CallContext, msg: CallMessage, signal?: AbortSignal): Promise<AccessListResult> {
    const input: JobInput = { kind: "access-list", env: context.env, msg };
    return this.submit(input, context.overlay, signal) as Promise<AccessListResult>;
  }

  proofJson(
    context: ReadContext,
    address: Uint8Array,
    storageKeys: readonly Uint8Array[],
    signal?: AbortSignal,
  ): Promise<string> {
    const input: JobInput = {
      kind: "proof",
      stateRoot: context.stateRoot,
      address,
      storageKeys: packWords(storageKeys),
    };
    return this.submit(input, context.overlay, signal) as Promise<string>;
  }

  /**
   * Builds a block on a sealed parent with every read recorded, or answers a sealed block's witness from its record
   * (`sealed`), on a witness worker (its own SQLite reader and trie-node cache), so witnesses neither hold the event
   * loop nor wait behind calls.
   */
  witness(
    input: Omit<WitnessJob, "kind" | "id" | "overlay">,
    signal?: AbortSignal,
  ): Promise<{ blockHash: Uint8Array; witness: BlockWitness; recorded: boolean }> {
    return this.submit({ kind: "witness", ...input }, undefined, signal) as Promise<{
      blockHash: Uint8Array;
      witness: BlockWitness;
      recorded: boolean;
    }>;
  }

  /** Runs on a worker, which reads the blocks itself: `_context` is for the in-thread executor. */
  blockReadJson(read: BlockRead, _context: BlockReadContext, signal?: AbortSignal): Promise<string> {
    return this.submit({ kind: "block-read", read }, undefined, signal) as Promise<string>;
  }

  /**
   * Starts a call worker and the read worker ahead of the first job (a worker's start-up loads the EVM
   * and the store: seconds on a loaded machine, which the first heavy reads would otherwise wait for).
   */
  warmUp(): void {
    if (this.closed) return;
    for (const role of ["heavy", "reads"] as const)
      if (!this.slots.some((s) => s.role === role)) this.spawn(role);
  }

  /** Jobs running and waiting, and workers alive: for metrics and tests. */
  get stats(): { running: number; queued: number; workers: number } {
    return {
      running: this.slots.filter((s) => s.job !== undefined).length,
      queued: this.queued,
      workers: this.slots.length,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const waiting = [
      ...this.queues.reads.splice(0),
      ...this.queues.heavy.splice(0),
      ...this.queues.witness.splice(0),
    ];
    for (const job of waiting) job.reject(new ExecutionFailedError("the node is shutting down"));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        slot.retired = true;
        clearTimeout(slot.timer);
        slot.job?.reject(new ExecutionFailedError("the node is shutting down"));
        return slot.worker.terminate();
      }),
    );
  }

  private submit(input: JobInput, overlay: PendingOverlay | undefined, signal: AbortSignal | undefined) {
    return new Promise<unknown>((resolve, reject) => {
      if (this.closed) return reject(new ExecutionFailedError("the node is shutting down"));
      if (signal?.aborted === true) return reject(new ExecutionFailedError("request aborted"));
      const job: Job = { id: this.nextId++, input, overlay, signal, resolve, reject };
      const role = roleOf(input);
      const slot = this.idleSlot(role, overlay?.blockId);
      if (slot !== undefined) return this.dispatch(slot, job);
      if (this.queued >= this.maxQueued) {
        return reject(
          new LimitExceededError(
            `too many calls waiting: ${this.queued} queued behind ${this.slots.length} busy call worker(s)`,
          ),
        );
      }
      const queue = this.queues[role];
      queue.push(job);
      signal?.addEventListener(
        "abort",
        () => {
          const at = queue.indexOf(job);
          if (at >= 0) {
            queue.splice(at, 1);
            job.reject(new ExecutionFailedError("request aborted"));
          }
        },
        { once: true },
      );
    });
  }

  /** An idle worker of `role`, preferring one that already holds `blockId`'s overlay; a new one if below the limit. */
  private idleSlot(role: Role, blockId: string | undefined): Slot | undefined {
    const mine = this.slots.filter((s) => s.role === role);
    const idle = mine.filter((s) => s.job === undefined && !s.retired);
    const warm = idle.find((s) => blockId !== undefined && s.overlay?.blockId === blockId);
    if (warm !== undefined || idle.length > 0) return warm ?? idle[0];
    if (mine.length < this.workersFor(role)) return this.spawn(role);
    return undefined;
  }

  private workersFor(role: Role): number {
    if (role === "reads") return 1;
    if (role === "witness") return this.options.witnessWorkers ?? DEFAULT_WITNESS_WORKERS;
    return this.options.workers;
  }

  private spawn(role: Role): Slot {
    const workerData: CallWorkerData = { dbPath: this.options.dbPath, chainId: this.options.chainId };
    const worker = new Worker(ENTRY, { workerData, name: "call-worker" });
    let markReady: () => void = () => {};
    const slot: Slot = {
      role,
      worker,
      ready: new Promise<void>((resolve) => (markReady = resolve)),
      job: undefined,
      timer: undefined,
      overlay: undefined,
      retired: false,
    };
    worker.on("message", (reply: WorkerReply) => {
      if (reply.kind === "ready") markReady();
      else this.onReply(slot, reply);
    });
    worker.on("error", (error) => {
      this.options.logger.error({ err: error }, "call worker failed");
      this.replace(slot, new CallWorkerExitedError(`the call worker failed: ${error.message}`));
    });
    worker.on("exit", (code) => {
      if (!slot.retired)
        this.replace(slot, new CallWorkerExitedError(`the call worker exited with code ${code}`));
    });
    this.slots.push(slot);
    return slot;
  }

  private dispatch(slot: Slot, job: Job): void {
    slot.job = job;
    const overlay = job.overlay;
    let delta: OverlayDelta | undefined;
    if (overlay !== undefined) {
      const from = slot.overlay?.blockId === overlay.blockId ? slot.overlay.sent : 0;
      delta = { blockId: overlay.blockId, from, entries: entriesFrom(overlay, from) };
      slot.overlay = { blockId: overlay.blockId, sent: from + delta.entries.length };
    }
    const message = { ...job.input, id: job.id, overlay: delta } as CallJob;
    void slot.ready.then(() => {
      if (slot.job === job && !slot.retired) slot.worker.postMessage(message);
    });
  }

  private onReply(slot: Slot, reply: Exclude<WorkerReply, { kind: "ready" }>): void {
    const job = slot.job;
    if (job === undefined || job.id !== reply.id) return;
    if (reply.kind === "run-started") {
      clearTimeout(slot.timer);
      slot.timer = setTimeout(() => this.timeOut(slot, job), this.options.timeoutMs);
      return;
    }
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    switch (reply.kind) {
      case "call-result":
        job.resolve(reply.outcome);
        break;
      case "estimate-result":
      case "access-list-result":
        job.resolve(reply.result);
        break;
      case "json-result":
        job.resolve(reply.json);
        break;
      case "witness-result":
        job.resolve({ blockHash: reply.blockHash, witness: reply.witness, recorded: reply.recorded });
        break;
      case "limit-exceeded":
        job.reject(new NodeLimitExceededError(reply.limit, reply.max, reply.requested, reply.what));
        break;
      case "intrinsic-gas":
        job.reject(new IntrinsicGasError(reply.gas, reply.intrinsic));
        break;
      case "failed":
        // The worker may not have applied this job's overlay delta: send the next one in full.
        slot.overlay = undefined;
        job.reject(new CallFailedError(reply.name, reply.message));
        break;
    }
    this.next(slot);
  }

  private timeOut(slot: Slot, job: Job): void {
    if (slot.job !== job) return;
    this.options.logger.warn(
      { timeoutMs: this.options.timeoutMs, kind: job.input.kind },
      "call exceeded its deadline: its worker is replaced",
    );
    this.replace(slot, new ExecutionFailedError(`execution aborted (timeout = ${this.options.timeoutMs}ms)`));
  }

  /** Ends `slot`'s worker, fails its job with `error`, and gives the queue a new worker. */
  private replace(slot: Slot, error: Error): void {
    if (slot.retired) return;
    slot.retired = true;
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    job?.reject(error);
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    void slot.worker.terminate();
    if (!this.closed && this.queues[slot.role].length > 0) this.next(this.spawn(slot.role));
  }

  private get queued(): number {
    return this.queues.reads.length + this.queues.heavy.length + this.queues.witness.length;
  }

  private next(slot: Slot): void {
    const job = this.queues[slot.role].shift();
    if (job !== undefined) this.dispatch(slot, job);
  }
}
