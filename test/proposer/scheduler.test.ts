/**
 * The proposer PROCESS as a scheduler (PROPOSER_DATABASE_URL, --prove-ahead 2) on one prover chain
 * (test/support/prover-chain.ts) and one throwaway PostgreSQL queue. The test is the worker: it claims the jobs
 * the proposer enqueued and proves them through the chain's host (real proofs), so it decides the order in which
 * they finish.
 * - ranges are enqueued as soon as their ends are safe, at most two ahead of the latest proposal;
 * - proofs completed out of order are proposed in order; a duplicate result is ignored and changes nothing;
 * - the queue and the proposer survive a PostgreSQL restart: the stored jobs and results are intact and the next
 *   ranges are enqueued and proposed.
 */
import { type Hex, bytesToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTransport, type ProofResult, ProverClient } from "../../generated/rpc/index.js";
import { aggregateVerifierAbi } from "../../src/proof/onchain/index.js";
import { openProofJobQueue, type ProofJobLease, type ProofJobQueue } from "../../src/proof-jobs/index.js";
import { startThrowawayCluster, type ThrowawayCluster } from "../merchant/support/throwaway-cluster.js";
import { l1PrivateKey, type ProverChain, startProverChain } from "../support/prover-chain.js";
import { type LogLine, type ServiceProcess, spawnService } from "./spawn-service.js";

const PROPOSER = 5;

let pc: ProverChain;
let cluster: ThrowawayCluster;
let queue: ProofJobQueue;
let proposer: ServiceProcess | undefined;
let prover: ProverClient;

beforeAll(async () => {
  [pc, cluster] = await Promise.all([startProverChain({ calldata: true }), startThrowawayCluster()]);
  const databaseUrl = await cluster.createDatabase("scheduler");
  // The test's own leases outlast any proof here: it decides when each result is submitted.
  queue = await openProofJobQueue({ databaseUrl, sqlitePath: "", options: { leaseMs: 600_000 } });
  prover = new ProverClient(httpTransport(pc.hostUrl, { timeoutMs: 300_000 }));
  proposer = spawnService(
    "proposer",
    [
      ...["--l1-rpc-url", pc.l1RpcUrl, "--rollup-rpc-url", pc.l2RpcUrl, "--prover-url", pc.hostUrl],
      ...[
        "--verifier",
        pc.addresses.aggregateVerifier,
        "--poll-interval-ms",
        "250",
        "--max-backoff-ms",
        "1000",
      ],
      ...["--prove-ahead", "2", "--metrics-listen", "127.0.0.1:0", "--log-level", "debug"],
    ],
    { PROPOSER_PRIVATE_KEY: l1PrivateKey(PROPOSER), PROPOSER_DATABASE_URL: databaseUrl },
  );
}, 600_000);

afterAll(async () => {
  await proposer?.stop();
  await queue?.close();
  await cluster?.stop();
  await pc?.stop();
});

const read = <T>(functionName: string): Promise<T> =>
  pc.l1.readContract({
    address: pc.addresses.aggregateVerifier,
    abi: aggregateVerifierAbi,
    functionName,
    args: [],
  } as never) as Promise<T>;

const enqueued = (line: LogLine) => line.msg === "range enqueued";
const landed = (line: LogLine) => line.msg === "proposal landed";
const waiting = (line: LogLine) => line.msg === "waiting for the next range's proof";
const count = (match: (line: LogLine) => boolean) => proposer!.lines.filter(match).length;

/** Waits for `steps` more proposer steps that found the next range's proof not done. */
const moreSteps = (steps: number) => proposer!.waitFor(waiting, count(waiting) + steps, 60_000);

async function claimAndProve(): Promise<{ lease: ProofJobLease; result: ProofResult }> {
  const lease = await queue.claim("test-worker");
  if (lease === null) throw new Error("no job to claim");
  return { lease, result: await prover.prover_prove(lease.job.request) };
}

describe("the proposer as a scheduler on a proof job queue", () => {
  it("enqueues two ranges ahead and proposes out-of-order proofs in order, ignoring a duplicate result", async () => {
    await proposer!.waitFor(enqueued, 2, 300_000);
    // Two ahead at most: with the safe head past a third range's end, still two jobs.
    await pc.waitForSafe(3n * pc.blockInterval);
    await moreSteps(2);
    expect((await queue.list()).map((job) => [job.range.startBlock, job.range.endBlock])).toEqual([
      [0n, 4n],
      [4n, 8n],
    ]);

    const [first, second] = [await claimAndProve(), await claimAndProve()];
    expect(first!.lease.job.range.startBlock).toBe(0n);
    expect(await queue.complete(second!.lease, second!.result)).toBe(true);
    await moreSteps(3);
    expect(await read<bigint>("latestBlock")).toBe(0n);
    expect(count(landed)).toBe(0);

    expect(await queue.complete(first!.lease, first!.result)).toBe(true);
    // A second submission of the range, with another result: refused, the stored result unchanged.
    expect(await queue.complete(first!.lease, second!.result)).toBe(false);
    await proposer!.waitFor(landed, 2, 300_000);
    const lines = proposer!.lines.filter(landed);
    expect(lines.map((line) => [line.startingBlock, line.endingBlock])).toEqual([
      [0, 4],
      [4, 8],
    ]);
    expect(await read<bigint>("latestBlock")).toBe(8n);
    const stored = await queue.get(first!.lease.job.range);
    expect(stored!.result).toEqual(first!.result);
    expect(lines[0]!.rootClaim).toBe(bytesToHex(first!.result.Tee.aggregate_proposal.output_root) as Hex);

    // The metrics: queue depth by state, the lag behind the safe head.
    const metricsUrl = String(proposer!.lines.find((line) => line.msg === "serving metrics")?.metricsUrl);
    await proposer!.waitFor(enqueued, 4, 120_000);
    const text = await (await fetch(metricsUrl)).text();
    expect(text).toMatch(/proposer_proof_jobs\{[^}]*state="succeeded"[^}]*\} 2/);
    expect(text).toMatch(/proposer_lag_blocks\{[^}]*\} \d+/);
    expect(text).toMatch(/proposer_oldest_unfinished_job_age_seconds\{[^}]*\} [\d.]+/);
  }, 900_000);

  it("survives a PostgreSQL restart with its jobs and results intact", async () => {
    const failuresBefore = count((line) => line.msg === "scheduling step failed");
    await cluster.stopServer();
    await proposer!.waitFor((line) => line.msg === "scheduling step failed", failuresBefore + 1, 60_000);
    await cluster.startServer();

    const jobs = await queue.list();
    expect(jobs.map((job) => job.state)).toEqual(["succeeded", "succeeded", "queued", "queued"]);
    const next = await claimAndProve();
    expect(next.lease.job.range).toEqual({ startBlock: 8n, endBlock: 12n });
    expect(await queue.complete(next.lease, next.result)).toBe(true);
    await proposer!.waitFor(landed, 3, 300_000);
    expect(await read<bigint>("latestBlock")).toBe(12n);
  }, 900_000);
});
