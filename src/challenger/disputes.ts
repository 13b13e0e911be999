/**
 * The challenger on the proof job queue (docs/proposer.md "The challenger on the queue"): each disputed interval
 * is a job in the challenger's own namespace (`challenger:<address>`), so it never collides with the proposer's
 * ranges or another challenger's, and worker hosts prove the disputes in parallel; the proven ones are nullified
 * strictly in proposal order: once a dispute's proof is not ready, the later ones are enqueued but wait. A failed
 * job, a proof made for another proposal's interval, or one that does not fit the proposal is requeued.
 * Metrics: the namespace's jobs per state, the age of its oldest unfinished job, the open disputes, the
 * nullifications.
 */
import type { ProofRequest, ProofResult } from "../../generated/rpc/index.js";
import { ProofRequestCodec } from "../../generated/rpc/index.js";
import type { Logger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { type OnchainProposal, ProposalEncodingError } from "../proof/onchain/index.js";
import { type ProofJobQueue, PROOF_JOB_STATES, type QueuedRange } from "../proof-jobs/index.js";
import { type JobQueueConfig, serviceJobQueue } from "../service-queue/index.js";

/** A wrong proposal: the first wrong intermediate root's index and the request that proves its interval. */
export interface Dispute {
  readonly id: bigint;
  readonly proposal: OnchainProposal;
  readonly index: number;
  readonly request: ProofRequest;
}

/** What a check found: nothing more to do, look again later, or a dispute. */
export type Verdict = "settled" | "pending" | Dispute;

/** One pass over the watched proposals, in id order. */
export interface DisputeRound {
  /** Enqueues the dispute's interval and nullifies it once proven and every earlier dispute is settled. */
  resolve(dispute: Dispute): Promise<"settled" | "pending">;
  /** Updates the metrics. */
  end(): Promise<void>;
}

export interface DisputeQueue {
  round(): DisputeRound;
  close(): Promise<void>;
}

function challengerMetrics(registry: MetricsRegistry) {
  return {
    jobs: registry.gauge({
      name: "challenger_proof_jobs",
      help: "The challenger's proof jobs in the queue by state (queued, leased, succeeded, failed)",
      labelNames: ["state"],
    }),
    oldestJobAge: registry.gauge({
      name: "challenger_oldest_unfinished_job_age_seconds",
      help: "Age of the challenger's oldest queued or leased proof job (0 when there is none)",
    }),
    disputes: registry.gauge({
      name: "challenger_open_disputes",
      help: "Wrong proposals found in the last pass and not nullified yet",
    }),
    nullifications: registry.counter({
      name: "challenger_nullifications_total",
      help: "Proposals nullified",
    }),
  };
}

const wire = (request: ProofRequest): string => JSON.stringify(ProofRequestCodec.encode(request));

export function disputesOnQueue(
  config: JobQueueConfig,
  deps: {
    /** The challenger's namespace in the queue. */
    readonly namespace: string;
    readonly logger: Logger;
    readonly nullify: (dispute: Dispute, result: ProofResult, proveMs: number) => Promise<void>;
  },
): DisputeQueue {
  const { namespace, logger, nullify } = deps;
  const registry = new MetricsRegistry({ defaultLabels: { service: "challenger" } });
  const metrics = challengerMetrics(registry);
  const queue = serviceJobQueue(config, { registry, logger });

  async function requeue(jobs: ProofJobQueue, range: QueuedRange, dispute: Dispute, why: string) {
    await jobs.requeue(range, dispute.request);
    logger.warn({ id: dispute.id, start: range.startBlock, end: range.endBlock, why }, "dispute requeued");
  }

  function round(): DisputeRound {
    /** Set once a dispute is not settled: the later ones are enqueued but not nullified before it. */
    let blocked = false;
    let open = 0;
    return {
      async resolve(dispute) {
        const jobs = await queue.open();
        const { request } = dispute;
        const range: QueuedRange = {
          namespace,
          startBlock: request.claimed_l2_block_number - request.intermediate_block_interval,
          endBlock: request.claimed_l2_block_number,
        };
        const fields = { id: dispute.id, start: range.startBlock, end: range.endBlock, index: dispute.index };
        const { job, created } = await jobs.enqueue(range, request);
        if (created) logger.info(fields, "dispute enqueued");
        const settled = await (async (): Promise<boolean> => {
          if (wire(job.request) !== wire(request)) {
            // The interval was disputed before, in another proposal (another L1 head or roots): prove it anew.
            if (job.state === "succeeded" || job.state === "failed")
              await requeue(jobs, range, dispute, "the stored proof was made for another proposal");
            return false;
          }
          if (job.state === "failed") {
            await requeue(jobs, range, dispute, job.error ?? "failed");
            return false;
          }
          if (job.state !== "succeeded" || blocked) return false;
          const proveMs = (job.finishedAtMs ?? job.updatedAtMs) - job.createdAtMs;
          try {
            await nullify(dispute, job.result!, proveMs);
          } catch (error) {
            if (!(error instanceof ProposalEncodingError)) throw error;
            await requeue(jobs, range, dispute, error.message);
            return false;
          }
          metrics.nullifications.inc();
          return true;
        })();
        if (settled) return "settled";
        blocked = true;
        open += 1;
        return "pending";
      },
      async end() {
        metrics.disputes.set(open);
        const stats = await (await queue.open()).stats(namespace);
        for (const state of PROOF_JOB_STATES) metrics.jobs.labels({ state }).set(stats.depth[state]);
        metrics.oldestJobAge.set((stats.oldestUnfinishedAgeMs ?? 0) / 1000);
      },
    };
  }

  return { round, close: () => queue.close() };
}
