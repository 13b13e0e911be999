/** Named errors of the proof job queue: one root, ProofJobsError, with a kind per concrete class. */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type ProofJobsErrorKind =
  | "invalid-range"
  | "invalid-queue-options"
  | "corrupt-job"
  | "job-vanished"
  | "unsupported-database-url"
  | "lease-lost"
  | "worker-stopping";

/** Root of the proof job queue's errors. */
export abstract class ProofJobsError extends SuiteError<ProofJobsErrorKind> {
  readonly package = "proof-jobs";

  constructor(message: string, kind: ProofJobsErrorKind, details: ErrorDetails, cause?: unknown) {
    super(message, { kind, details, cause });
  }
}

/** A range to enqueue is empty or reversed, or its request proves a different block than the range ends at. */
export class InvalidRangeError extends ProofJobsError {
  constructor(reason: string, details: ErrorDetails) {
    super(`invalid proof range: ${reason}`, "invalid-range", details);
  }
}

/** A queue option is out of range (a lease of 0 ms, a heartbeat longer than the lease, no attempts). */
export class InvalidQueueOptionsError extends ProofJobsError {
  constructor(
    readonly option: string,
    readonly value: unknown,
    reason: string,
  ) {
    super(`invalid proof queue option ${option}=${String(value)}: ${reason}`, "invalid-queue-options", {
      option,
      value,
    });
  }
}

/** A stored request or result does not decode as a ProofRequest or ProofResult (the row was written by hand). */
export class CorruptJobError extends ProofJobsError {
  constructor(
    readonly jobId: number,
    readonly column: "request" | "result",
    cause: unknown,
  ) {
    super(`proof job ${jobId}: stored ${column} does not decode`, "corrupt-job", { jobId, column }, cause);
  }
}

/** The job of a range that conflicted on insert is gone: someone deleted proof_jobs rows by hand. */
export class JobVanishedError extends ProofJobsError {
  constructor(readonly range: { readonly startBlock: bigint; readonly endBlock: bigint }) {
    super(`the proof job of range ${range.startBlock}-${range.endBlock} vanished`, "job-vanished", {
      startBlock: range.startBlock,
      endBlock: range.endBlock,
    });
  }
}

/** A database URL names neither PostgreSQL (`postgres://`, `postgresql://`) nor a SQLite file. */
export class UnsupportedDatabaseUrlError extends ProofJobsError {
  constructor(readonly scheme: string) {
    super(
      `unsupported proof queue database URL scheme ${scheme}: use postgres:// or a SQLite path`,
      "unsupported-database-url",
      { scheme },
    );
  }
}

/**
 * The reason a prove function's AbortSignal fires when its lease is gone: the queue refused a heartbeat (the lease
 * expired and the job was reclaimed), or no heartbeat succeeded within one lease (the worker fenced itself).
 */
export class LeaseLostError extends ProofJobsError {
  constructor(
    readonly jobId: number,
    readonly reason: "refused" | "expired-locally",
  ) {
    super(
      reason === "refused"
        ? `proof job ${jobId}: the queue refused the heartbeat, the lease is gone`
        : `proof job ${jobId}: no heartbeat succeeded within the lease, stopping before another worker claims it`,
      "lease-lost",
      { jobId, reason },
    );
  }
}

/** The reason a prove function's AbortSignal fires when its worker stops without draining. */
export class WorkerStoppingError extends ProofJobsError {
  constructor(readonly owner: string) {
    super(`proof worker ${owner} is stopping`, "worker-stopping", { owner });
  }
}
