/**
 * The queue's contract, kept by both backends (PostgreSQL for several machines, SQLite for one): a job per range,
 * enqueued once; claimed atomically by one worker at a time under a lease the worker renews by heartbeats; a result
 * or failure accepted only from the current, unexpired lease; retried with exponential backoff after a failure or
 * an expired lease until its attempts are spent.
 */
import type { ProofRequest, ProofResult } from "../../generated/rpc/index.js";
import { InvalidQueueOptionsError } from "./errors.js";
import type { ProofJob, ProofJobLease, ProofJobState, QueuedRange } from "./job.js";

export interface ProofJobQueueOptions {
  /** How long a claim or heartbeat holds a job (ms). Default 90 000: three missed 30 s heartbeats. */
  readonly leaseMs?: number;
  /** Claims per job before it is `failed` (an expired lease counts as one). Default 5. */
  readonly maxAttempts?: number;
  /** Delay before the first retry (ms); doubled per attempt up to `maxBackoffMs`. Default 5 000. */
  readonly backoffMs?: number;
  /** Longest delay between retries (ms). Default 300 000. */
  readonly maxBackoffMs?: number;
}

export type ResolvedQueueOptions = Required<ProofJobQueueOptions>;

export const DEFAULT_QUEUE_OPTIONS: ResolvedQueueOptions = {
  leaseMs: 90_000,
  maxAttempts: 5,
  backoffMs: 5_000,
  maxBackoffMs: 300_000,
};

/** The most jobs one `list` call returns. */
export const MAX_LIST_LIMIT = 1_000;

export function resolveQueueOptions(options: ProofJobQueueOptions = {}): ResolvedQueueOptions {
  const resolved = { ...DEFAULT_QUEUE_OPTIONS, ...options };
  const positive = (name: keyof ResolvedQueueOptions, min: number): void => {
    const value = resolved[name];
    if (!Number.isSafeInteger(value) || value < min)
      throw new InvalidQueueOptionsError(name, value, `must be an integer of at least ${min}`);
  };
  positive("leaseMs", 1);
  positive("maxAttempts", 1);
  positive("backoffMs", 0);
  positive("maxBackoffMs", resolved.backoffMs);
  return resolved;
}

export interface EnqueueOutcome {
  readonly job: ProofJob;
  /** False when the range was already enqueued: the stored job (and its first request) is returned unchanged. */
  readonly created: boolean;
}

/** What became of a job whose attempt failed. */
export interface FailOutcome {
  readonly state: Extract<ProofJobState, "queued" | "failed">;
  /** When it may be claimed again (meaningful when `queued`). */
  readonly availableAtMs: number;
}

export interface FailOptions {
  /** The failure will not go away by retrying (a request the enclave refuses): fail the job now. */
  readonly permanent?: boolean;
}

/** Jobs per state, and the age of the oldest job not yet finished. */
export interface QueueStats {
  readonly depth: Readonly<Record<ProofJobState, number>>;
  /** Now minus the creation time of the oldest `queued` or `leased` job; null when there is none. */
  readonly oldestUnfinishedAgeMs: number | null;
}

export interface ListQuery {
  /** Only this namespace's jobs. Default every namespace. */
  readonly namespace?: string;
  /** Jobs whose range starts at or above this block. Default 0. */
  readonly fromBlock?: bigint;
  /** Only jobs in these states. Default all. */
  readonly states?: readonly ProofJobState[];
  /** At most this many (capped at MAX_LIST_LIMIT). Default 100. */
  readonly limit?: number;
}

export interface ProofJobQueue {
  readonly kind: "postgres" | "sqlite";
  readonly options: ResolvedQueueOptions;
  /** Creates the tables if missing; safe to run from several processes at once. */
  migrate(): Promise<void>;
  /**
   * Adds the range's job unless the range is already enqueued in its namespace (then returns the stored job).
   * Ranges name their namespace (`range.namespace`, default `"proposer"`) here and in `requeue` and `get`.
   */
  enqueue(range: QueuedRange, request: ProofRequest): Promise<EnqueueOutcome>;
  /**
   * Leases the claimable job of the lowest range (of any namespace) to `owner`, or returns null. Claimable: `queued` and past its
   * backoff. Leases that expired are first returned to the queue (after a backoff) or failed (attempts spent).
   */
  claim(owner: string): Promise<ProofJobLease | null>;
  /** Extends the lease by `leaseMs` from now; null when the lease is no longer this one's or has expired. */
  heartbeat(lease: ProofJobLease): Promise<{ expiresAtMs: number } | null>;
  /** Stores the result and finishes the job; false (and nothing stored) when the lease is not current. */
  complete(lease: ProofJobLease, result: ProofResult): Promise<boolean>;
  /** Records the failure and requeues with backoff (or fails the job); null when the lease is not current. */
  fail(lease: ProofJobLease, error: string, options?: FailOptions): Promise<FailOutcome | null>;
  /** Gives the job back at once without spending an attempt (a worker stopping); false when not current. */
  release(lease: ProofJobLease): Promise<boolean>;
  /**
   * Ends the leases `owner` holds as if they had expired now (requeued, or failed when their attempts are spent):
   * for a supervisor that saw that worker's process die, so its jobs need not wait out the lease. Only for an owner
   * known dead: a live worker's lease ended this way is proved twice. Returns how many leases ended.
   */
  expireLeasesOf(owner: string): Promise<number>;
  /**
   * Puts a finished (`failed` or `succeeded`) job back in the queue with its attempts reset and, when given, a new
   * request for the same range (a proof whose L1 head was reorged out must be redone against another head); its
   * result is dropped. Null when the range has no finished job (a queued or leased one is left alone).
   */
  requeue(range: QueuedRange, request?: ProofRequest): Promise<ProofJob | null>;
  /** The job of exactly this range in its namespace, or null. */
  get(range: QueuedRange): Promise<ProofJob | null>;
  /** Jobs in range order (by start block). */
  list(query?: ListQuery): Promise<ProofJob[]>;
  /** Depth and job age of one namespace, or of the whole queue (what the workers drain). */
  stats(namespace?: string): Promise<QueueStats>;
  close(): Promise<void>;
}

/** Succeeded jobs from `fromBlock` on, in range order: what a proposer submits in order. */
export function results(
  queue: ProofJobQueue,
  fromBlock: bigint,
  limit?: number,
  namespace?: string,
): Promise<ProofJob[]> {
  return queue.list({
    fromBlock,
    states: ["succeeded"],
    limit,
    ...(namespace === undefined ? {} : { namespace }),
  });
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return 100;
  return Math.max(1, Math.min(MAX_LIST_LIMIT, Math.floor(limit)));
}
