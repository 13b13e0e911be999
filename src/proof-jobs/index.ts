/**
 * Proof jobs (library, rank 1; imports only foundation packages; docs/proof-jobs.md): the queue of L2 range proofs
 * that provers share, and the worker loop that drains it.
 *
 * Public surface: the queue (`openProofJobQueue` on PostgreSQL or SQLite, `ProofJobQueue` with its options, stats
 * and list queries, `results` in range order, `DEFAULT_NAMESPACE`), the job model (`ProofJob`, `ProofRange`,
 * `QueuedRange`, leases, `PROOF_JOB_STATES`), the worker (`ProofWorker`, `ProveFunction`, its events), and the
 * errors (`ProofJobsError` root).
 *
 * Concepts owned:
 * - a **proof job**: one L2 range (`startBlock` agreed, `endBlock` claimed) with its prover_prove request, enqueued
 *   once per range within its namespace, and its attempts, lease, result and last error;
 * - a **lease**: a claim by one worker, renewed by heartbeats and fenced by a token, so a job is never proved twice
 *   at once and a late or duplicate result is ignored; an expired lease or a failure requeues the job with backoff;
 * - the **queue** (`ProofJobQueue`) on PostgreSQL (`DATABASE_URL`, several machines) or SQLite (one machine), and
 *   its queries: depth per state, age of the oldest unfinished job, succeeded results in range order;
 * - the **worker** (`ProofWorker`): claim → prove with a supplied function while heartbeating → submit, with stop
 *   and drain. Proving itself (enclaves, routing) belongs to the host that supplies the function.
 */
export {
  CorruptJobError,
  InvalidQueueOptionsError,
  InvalidRangeError,
  JobVanishedError,
  LeaseLostError,
  ProofJobsError,
  type ProofJobsErrorKind,
  UnsupportedDatabaseUrlError,
  WorkerStoppingError,
} from "./errors.js";
export {
  MAX_NAMESPACE_LENGTH,
  PROOF_JOB_STATES,
  type ProofJob,
  type ProofJobLease,
  type ProofJobLeaseInfo,
  type ProofJobState,
  type ProofRange,
  type QueuedRange,
} from "./job.js";
export { DEFAULT_NAMESPACE } from "./schema.js";
export { openProofJobQueue, type ProofJobQueueConfig } from "./open-queue.js";
export {
  DEFAULT_QUEUE_OPTIONS,
  type EnqueueOutcome,
  type FailOptions,
  type FailOutcome,
  type ListQuery,
  MAX_LIST_LIMIT,
  type ProofJobQueue,
  type ProofJobQueueOptions,
  type QueueStats,
  type ResolvedQueueOptions,
  results,
} from "./queue.js";
export { type ProofWorkerEvent, type ProofWorkerOptions, ProofWorker, type ProveFunction } from "./worker.js";
