/**
 * Host processes in worker mode (`--worker`, the queue's URL in DATABASE_URL) on one prover chain
 * (test/support/prover-chain.ts: anvil, our node, the batcher, a local-mode enclave registered in
 * TEEProverRegistry) and one throwaway PostgreSQL queue:
 * - two worker hosts share the queue and each range is proved exactly once, each result the node's claim signed;
 * - a worker host killed with SIGKILL mid-proof has its range proved by another host once its lease expires, never
 *   before.
 */
import { bytesToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openProofJobQueue, type ProofJob, type ProofJobQueue } from "../../src/proof-jobs/index.js";
import { startThrowawayCluster, type ThrowawayCluster } from "../merchant/support/throwaway-cluster.js";
import type { LogLine, LogProcess } from "../support/log-process.js";
import {
  claimedLine,
  completedLine,
  ownerOf,
  rangeRequest,
  span,
  startWorkerHost,
} from "../support/proof-jobs.js";
import { type ProverChain, startProverChain } from "../support/prover-chain.js";

const LEASE_SECONDS = 8;

let pc: ProverChain;
let cluster: ThrowawayCluster;
let databaseUrl: string;
let queue: ProofJobQueue;
const hosts: LogProcess[] = [];

beforeAll(async () => {
  [pc, cluster] = await Promise.all([startProverChain({ calldata: true }), startThrowawayCluster()]);
  databaseUrl = await cluster.createDatabase("host_workers");
  queue = await openProofJobQueue({ databaseUrl, sqlitePath: "" });
}, 600_000);

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.kill()));
  await queue?.close();
  await cluster?.stop();
  await pc?.stop();
});

async function workerHost(): Promise<LogProcess> {
  const host = await startWorkerHost(pc, { databaseUrl, leaseSeconds: LEASE_SECONDS });
  hosts.push(host);
  return host;
}

/** Polls the queue until every job of `ranges` has succeeded. */
async function succeeded(ranges: ReturnType<typeof span>[], timeoutMs = 300_000): Promise<ProofJob[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await Promise.all(ranges.map((range) => queue.get(range)));
    if (jobs.every((job) => job?.state === "succeeded")) return jobs as ProofJob[];
    if (Date.now() > deadline)
      throw new Error(`jobs not proved: ${JSON.stringify(jobs.map((j) => j?.state))}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The hosts' "proof job completed" lines once there are `count` of them (each line arrives on its own pipe). */
async function completionLines(
  workers: readonly LogProcess[],
  count: number,
  timeoutMs = 60_000,
): Promise<LogLine[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = workers.flatMap((host) => host.lines.filter(completedLine));
    if (lines.length >= count) return lines;
    if (Date.now() > deadline) throw new Error(`${lines.length} of ${count} completion lines logged`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function expectClaimOfNodeSigned(job: ProofJob): Promise<void> {
  const claimed = await pc.outputAt(job.range.endBlock);
  const aggregate = job.result!.Tee.aggregate_proposal;
  expect(aggregate.l2_block_number).toBe(job.range.endBlock);
  expect(bytesToHex(aggregate.output_root)).toBe(bytesToHex(claimed.outputRoot));
  expect(aggregate.signature.length).toBe(65);
}

describe("host processes as proof job workers", () => {
  it("two worker hosts share the queue and each range is proved exactly once", async () => {
    const [one, two] = await Promise.all([workerHost(), workerHost()]);
    try {
      const ranges = [span(0n, 4n), span(4n, 4n), span(8n, 4n)];
      await pc.waitForSafe(12n);
      for (const range of ranges) await queue.enqueue(range, await rangeRequest(pc, range));
      const jobs = await succeeded(ranges);

      // A host logs a job's completion after the queue has it: wait for the lines, not only the queue.
      const completions = await completionLines([one!, two!], jobs.length);
      expect(completions.map((line) => line.jobId).sort()).toEqual(jobs.map((job) => job.id).sort());
      for (const job of jobs) {
        expect(job.attempts).toBe(1);
        await expectClaimOfNodeSigned(job);
      }
      // While one host proves, the other claims the next range.
      for (const host of [one!, two!]) expect(host.lines.filter(completedLine).length).toBeGreaterThan(0);
    } finally {
      // Stopped whatever the outcome: a host left running would claim the next test's range.
      await Promise.all([one!.stop(), two!.stop()]);
    }
  }, 600_000);

  it("a worker host killed mid-proof has its range proved by another once the lease expires", async () => {
    const pair = await Promise.all([workerHost(), workerHost()]);
    const range = span(12n, 4n);
    await pc.waitForSafe(range.endBlock);
    const { job } = await queue.enqueue(range, await rangeRequest(pc, range));
    // Whichever host claims the range is killed at once; the other is running all along.
    const claim = await Promise.any(pair.map((host) => host.waitFor(claimedLine(job.id), 1, 120_000)));
    const victim = pair.find((host) => host.lines.includes(claim))!;
    const rescuer = pair.find((host) => host !== victim)!;
    await victim.kill();
    expect(victim.lines.filter(completedLine)).toEqual([]);

    const [proved] = await succeeded([range]);
    const rescue = await rescuer.waitFor(claimedLine(job.id), 1, 1_000);
    expect(proved!.attempts).toBe(2);
    expect(proved!.error).toContain(`the lease of ${ownerOf(victim)} expired`);
    // Not before the victim's lease ran out: at least one lease after its claim.
    const claimGapMs = Date.parse(String(rescue.time)) - Date.parse(String(claim.time));
    expect(claimGapMs).toBeGreaterThanOrEqual(LEASE_SECONDS * 1000 - 1000);
    await expectClaimOfNodeSigned(proved!);
  }, 600_000);
});
