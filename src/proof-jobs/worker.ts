/**
 * The generic worker loop: claim a job, prove it with the supplied function while a LeaseKeeper heartbeats, then
 * submit the result or the error. The prove function gets an AbortSignal that fires when the lease is lost (the
 * result would be refused) or the worker stops without draining. Queue calls that fail (the database restarting)
 * are retried: claims after `pollIntervalMs`, a result or error as long as the lease is held.
 * `stop()` aborts running proofs and gives their jobs back at once; `drain()` stops claiming and lets them finish.
 */
import { performance } from "node:perf_hooks";
import type { ProofResult } from "../../generated/rpc/index.js";
import { createSilentLogger, type Logger } from "../log/index.js";
import { InvalidQueueOptionsError, type LeaseLostError, WorkerStoppingError } from "./errors.js";
import type { ProofJob, ProofJobLease, ProofRange } from "./job.js";
import { LeaseKeeper } from "./lease-keeper.js";
import type { FailOutcome, ProofJobQueue } from "./queue.js";

/** Proves one job; should stop soon after `signal` fires (its reason is a LeaseLostError or WorkerStoppingError). */
export type ProveFunction = (job: ProofJob, signal: AbortSignal) => Promise<ProofResult>;

export type ProofWorkerEvent =
  | { readonly type: "claimed"; readonly jobId: number; readonly range: ProofRange; readonly attempt: number }
  | { readonly type: "completed"; readonly jobId: number; readonly accepted: boolean }
  | {
      readonly type: "failed";
      readonly jobId: number;
      readonly error: string;
      readonly outcome: FailOutcome | null;
    }
  | { readonly type: "lease-lost"; readonly jobId: number; readonly reason: LeaseLostError["reason"] }
  | { readonly type: "released"; readonly jobId: number }
  | { readonly type: "queue-error"; readonly operation: string; readonly error: unknown };

export interface ProofWorkerOptions {
  readonly queue: ProofJobQueue;
  /** This worker's name in the queue (host and process, for operators reading lease owners). */
  readonly owner: string;
  readonly prove: ProveFunction;
  /** Jobs proved at once. Default 1. */
  readonly concurrency?: number;
  /** Between heartbeats (ms). Default a third of the queue's lease. */
  readonly heartbeatIntervalMs?: number;
  /** Wait after finding no job, or after a queue call failed (ms). Default 1 000. */
  readonly pollIntervalMs?: number;
  /** Errors that retrying will not fix: the job fails at once instead of being retried. Default none. */
  readonly isPermanent?: (error: unknown) => boolean;
  readonly logger?: Logger;
  /** Every step, for metrics and tests. */
  readonly onEvent?: (event: ProofWorkerEvent) => void;
}

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : `non-error thrown: ${String(error)}`;

/**
 * A signal that fires with the reason of whichever source fires first; `unlink` drops its listeners from the
 * sources (the worker's stop signal lives as long as the worker, so per-job listeners must not pile up on it).
 */
function linkSignals(sources: readonly AbortSignal[]): { signal: AbortSignal; unlink: () => void } {
  const controller = new AbortController();
  const listeners = sources.map((source) => {
    const listener = (): void => controller.abort(source.reason);
    if (source.aborted) listener();
    else source.addEventListener("abort", listener, { once: true });
    return { source, listener };
  });
  return {
    signal: controller.signal,
    unlink: () => {
      for (const { source, listener } of listeners) source.removeEventListener("abort", listener);
    },
  };
}

type Outcome =
  { readonly ok: true; readonly result: ProofResult } | { readonly ok: false; readonly error: unknown };

export class ProofWorker {
  private readonly queue: ProofJobQueue;
  private readonly heartbeatIntervalMs: number;
  private readonly pollIntervalMs: number;
  private readonly logger: Logger;
  private readonly stopController = new AbortController();
  private claiming = true;
  private wake: (() => void) | undefined;
  private wakeSignal: Promise<void>;
  private readonly concurrency: number;
  private loops: Promise<void>[] | undefined;
  private active = 0;

  constructor(private readonly options: ProofWorkerOptions) {
    this.queue = options.queue;
    const leaseMs = this.queue.options.leaseMs;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? Math.max(1, Math.floor(leaseMs / 3));
    if (this.heartbeatIntervalMs >= leaseMs)
      throw new InvalidQueueOptionsError(
        "heartbeatIntervalMs",
        this.heartbeatIntervalMs,
        "must be below the lease",
      );
    this.concurrency = options.concurrency ?? 1;
    if (!Number.isSafeInteger(this.concurrency) || this.concurrency < 1)
      throw new InvalidQueueOptionsError("concurrency", this.concurrency, "must be an integer of at least 1");
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.logger = options.logger ?? createSilentLogger();
    this.wakeSignal = new Promise((resolve) => (this.wake = resolve));
  }

  /** Starts claiming (once; later calls do nothing). */
  start(): this {
    this.loops ??= Array.from({ length: this.concurrency }, () => this.loop());
    return this;
  }

  /** Jobs being proved now. */
  get running(): number {
    return this.active;
  }

  /** Stops claiming, lets running proofs finish and submit, then resolves. */
  async drain(): Promise<void> {
    this.claiming = false;
    this.wake?.();
    await Promise.all(this.loops ?? []);
  }

  /** Stops claiming, aborts running proofs, gives their jobs back, then resolves. */
  async stop(): Promise<void> {
    this.claiming = false;
    this.stopController.abort(new WorkerStoppingError(this.options.owner));
    this.wake?.();
    await Promise.all(this.loops ?? []);
  }

  private emit(event: ProofWorkerEvent): void {
    this.options.onEvent?.(event);
  }

  private queueError(operation: string, error: unknown): void {
    this.logger.warn({ operation, err: error }, "proof queue call failed");
    this.emit({ type: "queue-error", operation, error });
  }

  /** Waits `ms`, or less when the worker stops or drains. */
  private async pause(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.wakeSignal, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  private async loop(): Promise<void> {
    while (this.claiming) {
      const claimSentAt = performance.now();
      let lease: ProofJobLease | null;
      try {
        lease = await this.queue.claim(this.options.owner);
      } catch (error) {
        this.queueError("claim", error);
        await this.pause(this.pollIntervalMs);
        continue;
      }
      if (lease === null) {
        await this.pause(this.pollIntervalMs);
        continue;
      }
      this.active += 1;
      try {
        await this.work(lease, claimSentAt);
      } finally {
        this.active -= 1;
      }
    }
  }

  private async work(lease: ProofJobLease, claimSentAt: number): Promise<void> {
    const { job } = lease;
    this.logger.info(
      { jobId: job.id, start: job.range.startBlock, end: job.range.endBlock, attempt: job.attempts },
      "proof job claimed",
    );
    this.emit({ type: "claimed", jobId: job.id, range: job.range, attempt: job.attempts });
    const keeper = new LeaseKeeper({
      queue: this.queue,
      lease,
      intervalMs: this.heartbeatIntervalMs,
      claimSentAt,
      onHeartbeatError: (error) => this.queueError("heartbeat", error),
    });
    const onLost = (): void => {
      const reason = (keeper.signal.reason as LeaseLostError).reason;
      this.logger.warn({ jobId: job.id, reason }, "proof job lease lost");
      this.emit({ type: "lease-lost", jobId: job.id, reason });
    };
    keeper.signal.addEventListener("abort", onLost, { once: true });
    const linked = linkSignals([keeper.signal, this.stopController.signal]);
    try {
      const { signal } = linked;
      let outcome: Outcome;
      try {
        outcome = { ok: true, result: await this.options.prove(job, signal) };
      } catch (error) {
        outcome = { ok: false, error };
      }
      if (!keeper.held) return;
      if (outcome.ok) await this.submit(keeper, "complete", () => this.complete(lease, outcome.result));
      else if (this.stopController.signal.aborted) await keeper.exclusive(() => this.release(lease));
      else await this.submit(keeper, "fail", () => this.fail(lease, outcome.error));
    } finally {
      linked.unlink();
      keeper.signal.removeEventListener("abort", onLost);
      keeper.stop();
    }
  }

  /** Runs `call` until it reaches the queue, while the lease is held. */
  private async submit(keeper: LeaseKeeper, operation: string, call: () => Promise<void>): Promise<void> {
    while (keeper.held) {
      try {
        await keeper.exclusive(call);
        return;
      } catch (error) {
        this.queueError(operation, error);
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(this.pollIntervalMs, this.heartbeatIntervalMs)),
        );
      }
    }
  }

  private async complete(lease: ProofJobLease, result: ProofResult): Promise<void> {
    const accepted = await this.queue.complete(lease, result);
    if (accepted) this.logger.info({ jobId: lease.job.id }, "proof job completed");
    else this.logger.warn({ jobId: lease.job.id }, "proof job result refused: the lease was no longer ours");
    this.emit({ type: "completed", jobId: lease.job.id, accepted });
  }

  private async fail(lease: ProofJobLease, error: unknown): Promise<void> {
    const message = describe(error);
    const permanent = this.options.isPermanent?.(error) === true;
    const outcome = await this.queue.fail(lease, message, { permanent });
    this.logger.warn({ jobId: lease.job.id, error: message, permanent, outcome }, "proof job attempt failed");
    this.emit({ type: "failed", jobId: lease.job.id, error: message, outcome });
  }

  private async release(lease: ProofJobLease): Promise<void> {
    try {
      if (await this.queue.release(lease)) this.emit({ type: "released", jobId: lease.job.id });
    } catch (error) {
      // The lease then expires on its own.
      this.queueError("release", error);
    }
  }
}
