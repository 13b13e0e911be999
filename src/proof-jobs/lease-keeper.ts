/**
 * Keeps one claimed job's lease alive while it is proved: a heartbeat every `intervalMs` (the next one is
 * scheduled when the last one answered, so they never pile up), and a local deadline one lease after the last
 * renewal was *sent* (the database renewed it later than that, so the local deadline never outlasts the stored
 * one). The signal fires with a LeaseLostError when the queue refuses a heartbeat or the local deadline passes
 * without a renewal (the database unreachable for a whole lease): the worker stops before another may claim the job.
 */
import { performance } from "node:perf_hooks";
import { LeaseLostError } from "./errors.js";
import type { ProofJobLease } from "./job.js";
import type { ProofJobQueue } from "./queue.js";

export interface LeaseKeeperOptions {
  readonly queue: ProofJobQueue;
  readonly lease: ProofJobLease;
  readonly intervalMs: number;
  /** performance.now() when the claim was sent: the lease runs from no earlier than that. */
  readonly claimSentAt: number;
  /** A heartbeat that failed to reach the queue (it is retried at the next interval). */
  readonly onHeartbeatError?: (error: unknown) => void;
}

export class LeaseKeeper {
  private readonly controller = new AbortController();
  private deadline: number;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private watchdogTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Set while the worker submits: no heartbeat is sent then. */
  private suspended = false;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(private readonly options: LeaseKeeperOptions) {
    this.deadline = options.claimSentAt + options.queue.options.leaseMs;
    this.armWatchdog();
    this.scheduleHeartbeat();
  }

  /** Fires with a LeaseLostError when the lease is gone. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The lease is still this worker's: not refused, and within a lease of the last renewal sent. */
  get held(): boolean {
    return !this.controller.signal.aborted && performance.now() < this.deadline;
  }

  /**
   * Runs `call` (the job's result, failure or release) with no heartbeat in flight: a heartbeat that reached the
   * database after the result would be refused and taken for a lost lease. The local deadline still applies.
   */
  async exclusive<T>(call: () => Promise<T>): Promise<T> {
    this.suspended = true;
    clearTimeout(this.heartbeatTimer);
    await this.inFlight;
    try {
      return await call();
    } finally {
      this.suspended = false;
      this.scheduleHeartbeat();
    }
  }

  /** Stops heartbeating (the job is finished or given back). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.heartbeatTimer);
    clearTimeout(this.watchdogTimer);
  }

  private lose(reason: "refused" | "expired-locally"): void {
    if (this.controller.signal.aborted) return;
    this.stop();
    this.controller.abort(new LeaseLostError(this.options.lease.job.id, reason));
  }

  private armWatchdog(): void {
    clearTimeout(this.watchdogTimer);
    this.watchdogTimer = setTimeout(
      () => {
        if (performance.now() >= this.deadline) this.lose("expired-locally");
        else this.armWatchdog();
      },
      Math.max(0, this.deadline - performance.now()),
    );
  }

  private scheduleHeartbeat(): void {
    if (this.stopped || this.suspended) return;
    clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = setTimeout(() => {
      this.inFlight = this.beat();
    }, this.options.intervalMs);
  }

  private async beat(): Promise<void> {
    const sentAt = performance.now();
    try {
      const renewed = await this.options.queue.heartbeat(this.options.lease);
      if (this.stopped) return;
      if (renewed === null) {
        this.lose("refused");
        return;
      }
      this.deadline = Math.max(this.deadline, sentAt + this.options.queue.options.leaseMs);
      this.armWatchdog();
    } catch (error) {
      this.options.onHeartbeatError?.(error);
    }
    this.scheduleHeartbeat();
  }
}
