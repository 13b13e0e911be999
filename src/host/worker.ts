/**
 * The host as a proof job worker (docs/proof-jobs.md, `--worker`): claims range jobs from the shared queue
 * (PostgreSQL, or SQLite on one machine), proves each through the host's own ProofService (the same validation,
 * witness collection, routing and registry checks as prover_prove), heartbeats while proving and submits the
 * result. A worker killed mid-proof loses nothing: its lease expires and another worker claims the job.
 */
import { hostname } from "node:os";
import type { Logger } from "../log/index.js";
import type { Counter, MetricsRegistry } from "../metrics/index.js";
import {
  openProofJobQueue,
  type ProofJobQueue,
  ProofWorker,
  type ProofWorkerEvent,
} from "../proof-jobs/index.js";
import type { HostWorkerConfig } from "./config.js";
import { InvalidProofRequestError, type ProofService } from "./proof-service.js";

export interface HostWorkerDeps {
  readonly proofs: ProofService;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
  /** This worker's name in the queue's leases (default host name and pid). */
  readonly owner?: string;
}

export interface HostWorker {
  readonly owner: string;
  readonly queue: ProofJobQueue;
  /** Stops claiming, lets running proofs finish and submit, closes the queue. */
  drain(): Promise<void>;
  /** Stops claiming, aborts running proofs and gives their jobs back at once, closes the queue. */
  stop(): Promise<void>;
}

/** A request the host refuses will be refused again: the job fails at once instead of being retried. */
const isPermanent = (error: unknown): boolean => error instanceof InvalidProofRequestError;

function eventCounter(metrics: MetricsRegistry): Counter<"event"> {
  return metrics.counter({
    name: "prover_proof_job_events_total",
    help: "Proof job worker steps: claimed, completed, refused (a result the queue did not accept), failed, lease-lost, released, queue-error",
    labelNames: ["event"],
  });
}

const eventLabel = (event: ProofWorkerEvent): string =>
  event.type === "completed" && !event.accepted ? "refused" : event.type;

/** Opens the queue and starts claiming. */
export async function startHostWorker(config: HostWorkerConfig, deps: HostWorkerDeps): Promise<HostWorker> {
  // The devnet ends a dead host's leases by this name (src/devnet/main.ts expireLeasesOfDeadHost).
  const owner = deps.owner ?? `${hostname()}:${process.pid}`;
  const logger = deps.logger.child({ component: "proof-worker", owner });
  const queue = await openProofJobQueue({
    ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
    sqlitePath: config.sqlitePath ?? "",
    options: { leaseMs: config.leaseMs, backoffMs: config.backoffMs },
  });
  const events = eventCounter(deps.metrics);
  const worker = new ProofWorker({
    queue,
    owner,
    concurrency: config.concurrency,
    prove: (job, signal) => deps.proofs.prove(job.request, signal),
    isPermanent,
    logger,
    onEvent: (event) => events.labels({ event: eventLabel(event) }).inc(),
  }).start();
  logger.info(
    {
      queue: queue.kind,
      concurrency: config.concurrency,
      leaseSeconds: config.leaseMs / 1000,
    },
    "proof worker started",
  );
  let closed: Promise<void> | undefined;
  const closeQueue = (): Promise<void> => (closed ??= queue.close());
  return {
    owner,
    queue,
    drain: () => worker.drain().finally(closeQueue),
    // Also after drain(): aborts what is still running.
    stop: () => worker.stop().finally(closeQueue),
  };
}
