/**
 * The proposer as a scheduler (docs/proof-jobs.md "The proposer as scheduler"): each step enqueues every range
 * whose end is safe, up to `proveAhead` ranges beyond AggregateVerifier's latest block, on the proof job queue that
 * worker hosts drain; then submits the next range's proposal once its proof has completed. Proposals go out
 * strictly in order (always the range starting at latestBlock), so a proof that completes early waits for those
 * before it, and a result for a range already proposed (a late or duplicate one) is never looked at. A failed job,
 * or a proof whose L1 head was reorged out, whose parent no longer matches, or that was made for another proposer
 * or intermediate interval, is requeued with a fresh request.
 * Metrics: queue depth per state, the age of the oldest unfinished job, the lag of the latest proposal behind the
 * safe head.
 */
import { bytesToHex } from "viem";
import type { Logger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import {
  DEFAULT_NAMESPACE,
  PROOF_JOB_STATES,
  type ProofJob,
  type ProofJobQueue,
  type ProofRange,
} from "../proof-jobs/index.js";
import { startStepLoop, type StepOutcome } from "../service-kit/index.js";
import { serviceJobQueue } from "../service-queue/index.js";
import type { ProposerConfig, ProposerQueueConfig } from "./config.js";
import { L1HeadReorgedError } from "./errors.js";
import { type L1Head, proposerRanges, type ProposerRanges, type RunningProposer } from "./ranges.js";

function schedulerMetrics(registry: MetricsRegistry) {
  return {
    jobs: registry.gauge({
      name: "proposer_proof_jobs",
      help: "Proof jobs in the queue by state (queued, leased, succeeded, failed)",
      labelNames: ["state"],
    }),
    oldestJobAge: registry.gauge({
      name: "proposer_oldest_unfinished_job_age_seconds",
      help: "Age of the oldest queued or leased proof job (0 when there is none)",
    }),
    lag: registry.gauge({
      name: "proposer_lag_blocks",
      help: "The node's safe head minus AggregateVerifier's latest proposed block",
    }),
    proposals: registry.counter({
      name: "proposer_proposals_total",
      help: "Proposals landed",
    }),
  };
}

const rangeFields = (range: ProofRange) => ({ start: range.startBlock, end: range.endBlock });

export function startScheduler(
  config: ProposerConfig,
  queueConfig: ProposerQueueConfig,
  deps: { readonly logger: Logger },
): RunningProposer {
  const logger = deps.logger;
  const ranges: ProposerRanges = proposerRanges(config, logger);
  const registry = new MetricsRegistry({ defaultLabels: { service: "proposer" } });
  const metrics = schedulerMetrics(registry);
  const queue = serviceJobQueue(queueConfig, { registry, logger });
  /** The proposer's ranges: a challenger's on the same queue are in namespaces of their own. */
  const namespace = DEFAULT_NAMESPACE;

  /** Enqueues the ranges from `latest` whose ends are safe and that have no job yet, at most `proveAhead`. */
  async function enqueueAhead(
    jobs: ProofJobQueue,
    latest: bigint,
    interval: bigint,
    safe: bigint,
    l1Head: L1Head,
  ): Promise<void> {
    const known = new Set(
      (await jobs.list({ fromBlock: latest, limit: queueConfig.proveAhead, namespace })).map(
        (job) => job.range.startBlock,
      ),
    );
    for (let k = 0n; k < BigInt(queueConfig.proveAhead); k += 1n) {
      const range = { namespace, startBlock: latest + k * interval, endBlock: latest + (k + 1n) * interval };
      if (range.endBlock > safe) break;
      if (known.has(range.startBlock)) continue;
      const { created } = await jobs.enqueue(
        range,
        await ranges.request(range.startBlock, range.endBlock, l1Head),
      );
      if (created) logger.info({ ...rangeFields(range), l1HeadNumber: l1Head.number }, "range enqueued");
    }
  }

  async function observe(jobs: ProofJobQueue, lag: bigint): Promise<void> {
    const stats = await jobs.stats(namespace);
    for (const state of PROOF_JOB_STATES) metrics.jobs.labels({ state }).set(stats.depth[state]);
    metrics.oldestJobAge.set((stats.oldestUnfinishedAgeMs ?? 0) / 1000);
    metrics.lag.set(Number(lag));
  }

  /** Puts the job back with a request against the node's current L1 head. */
  async function redo(jobs: ProofJobQueue, job: ProofJob, why: string): Promise<void> {
    const status = await ranges.syncStatus();
    const request = await ranges.request(job.range.startBlock, job.range.endBlock, status.current_l1);
    await jobs.requeue({ ...job.range, namespace }, request);
    logger.warn({ ...rangeFields(job.range), why, l1HeadNumber: status.current_l1.number }, "range requeued");
  }

  /** Proposes the proven job of the range starting at `latest`; "wait" while its L1 head is not deep enough. */
  async function submit(jobs: ProofJobQueue, latest: bigint, job: ProofJob): Promise<StepOutcome> {
    const { request } = job;
    // A queue shared with an earlier configuration: the proof signs the proposer and the intermediate interval.
    if (
      bytesToHex(request.proposer) !== ranges.account.address.toLowerCase() ||
      request.intermediate_block_interval !== (await ranges.immutables()).intermediateBlockInterval
    ) {
      await redo(jobs, job, "the proof was made for another proposer or intermediate interval");
      return "wait";
    }
    if (bytesToHex(request.agreed_l2_output_root) !== (await ranges.parentRoot(latest)).toLowerCase()) {
      // Throws ParentMismatchError when the node disagrees with the chain too (a challenger's business).
      await ranges.checkParent(latest, (await ranges.node.optimism_outputAtBlock(latest)).outputRoot);
      await redo(jobs, job, "the proof's agreed output root is not the onchain parent's");
      return "wait";
    }
    if (!(await ranges.l1HeadDeepEnough(request.l1_head_number))) return "wait";
    try {
      await ranges.checkCanonical(request);
    } catch (error) {
      if (!(error instanceof L1HeadReorgedError)) throw error;
      await redo(jobs, job, error.message);
      return "wait";
    }
    const proveMs = (job.finishedAtMs ?? job.updatedAtMs) - job.createdAtMs;
    await ranges.propose(latest, request, job.result!, proveMs);
    metrics.proposals.inc();
    return "again";
  }

  async function step(): Promise<StepOutcome> {
    const jobs = await queue.open();
    const c = await ranges.immutables();
    const [latest, status] = await Promise.all([ranges.latestBlock(), ranges.syncStatus()]);
    const safe = status.safe_l2.number;
    await enqueueAhead(jobs, latest, c.blockInterval, safe, status.current_l1);
    await observe(jobs, safe > latest ? safe - latest : 0n);
    const job = await jobs.get({ namespace, startBlock: latest, endBlock: latest + c.blockInterval });
    if (job === null) {
      logger.debug({ latestBlock: latest, safe }, "waiting for the safe head");
      return "wait";
    }
    if (job.state === "failed") {
      await redo(jobs, job, job.error ?? "failed");
      return "wait";
    }
    if (job.state !== "succeeded") {
      logger.debug({ ...rangeFields(job.range), state: job.state }, "waiting for the next range's proof");
      return "wait";
    }
    return submit(jobs, latest, job);
  }

  logger.info(
    {
      proposer: ranges.account.address,
      verifier: config.verifier,
      queue: queueConfig.databaseUrl === undefined ? "sqlite" : "postgres",
      proveAhead: queueConfig.proveAhead,
    },
    "proposer started",
  );
  const loop = startStepLoop(step, {
    pollIntervalMs: config.pollIntervalMs,
    maxBackoffMs: config.maxBackoffMs,
    logger,
    failureMessage: "scheduling step failed",
  });
  const done = loop.done.then(async () => {
    await queue.close();
    logger.info("proposer stopped");
  });
  return {
    address: ranges.account.address,
    done,
    async stop(graceMs) {
      await loop.stop(graceMs);
      await done;
    },
  };
}
