/**
 * The proposer PROCESS as a scheduler (PROPOSER_DATABASE_URL, --prove-ahead 2) on one prover chain
 * (test/support/prover-chain.ts) and one throwaway PostgreSQL queue. The test is the worker: it claims the jobs
 * the proposer enqueued and proves them through the chain's host (real proofs), so it decides the order in which
 * they finish.
 * - ranges are enqueued as soon as their ends are safe, at most two ahead of the latest proposal;
 * - proofs completed out of order are proposed in order; a duplicate result is ignored and changes nothing;
 * - the queue and the proposer survive a PostgreSQL restart: the stored jobs and results are intact and the next
 *   ranges are enqueued and proposed;
 * - the CHALLENGER process on the same queue: two wrong proposals (a parent and its child, each with a wrong first
 *   interval) become two jobs in the challenger's own namespace; with the child's proof finished first it waits,
 *   and once the parent's is done it nullifies the parent alone (the child is invalidated with it).
 */
import { type Hex, bytesToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTransport, type ProofResult, ProverClient } from "../../generated/rpc/index.js";
import { aggregateVerifierAbi, type OnchainProposal, ProposalStatus } from "../../src/proof/onchain/index.js";
import { openProofJobQueue, type ProofJobLease, type ProofJobQueue } from "../../src/proof-jobs/index.js";
import { startThrowawayCluster, type ThrowawayCluster } from "../merchant/support/throwaway-cluster.js";
import { l1Account, l1PrivateKey, type ProverChain, startProverChain } from "../support/prover-chain.js";
import { rogueProposer } from "./rogue.js";
import { type LogLine, type ServiceProcess, spawnService } from "./spawn-service.js";

const PROPOSER = 5;
const ROGUE = 6;
const CHALLENGER = 7;

let pc: ProverChain;
let cluster: ThrowawayCluster;
let queue: ProofJobQueue;
let proposer: ServiceProcess | undefined;
let challenger: ServiceProcess | undefined;
let prover: ProverClient;

beforeAll(async () => {
  [pc, cluster] = await Promise.all([
    startProverChain({
      calldata: true,
      proposers: [PROPOSER, ROGUE, CHALLENGER].map((i) => l1Account(i).address),
    }),
    startThrowawayCluster(),
  ]);
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
  challenger = spawnService(
    "challenger",
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
      ...["--metrics-listen", "127.0.0.1:0"],
    ],
    { CHALLENGER_PRIVATE_KEY: l1PrivateKey(CHALLENGER), CHALLENGER_DATABASE_URL: databaseUrl },
  );
}, 600_000);

afterAll(async () => {
  await proposer?.stop();
  await challenger?.stop();
  await queue?.close();
  await cluster?.stop();
  await pc?.stop();
});

const read = <T>(functionName: string, args: readonly unknown[] = []): Promise<T> =>
  pc.l1.readContract({
    address: pc.addresses.aggregateVerifier,
    abi: aggregateVerifierAbi,
    functionName,
    args,
  } as never) as Promise<T>;
const proposal = (id: bigint) => read<OnchainProposal>("getProposal", [id]);

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

  it("the challenger proves its disputes on the queue in its own namespace and nullifies in proposal order", async () => {
    const rogue = await rogueProposer(pc, ROGUE);
    const latest = await read<bigint>("latestBlock");
    const [bi, ibi] = [pc.blockInterval, pc.intermediateBlockInterval];
    await pc.waitForSafe(latest + 2n * bi);
    const rootAt = async (block: bigint): Promise<Hex> => bytesToHex((await pc.outputAt(block)).outputRoot);
    // Each wrong in its first interval only: the parent's claim is right, so the child is checked on its own.
    const parent = await rogue.propose(latest, (b) => b === latest + ibi, await rootAt(latest));
    const child = await rogue.propose(latest + bi, (b) => b === latest + bi + ibi, parent.rootClaim);

    const enqueuedDispute = (line: LogLine) => line.msg === "dispute enqueued";
    await challenger!.waitFor(enqueuedDispute, 2, 120_000);
    const namespace = `challenger:${l1Account(CHALLENGER).address.toLowerCase()}`;
    const disputes = await queue.list({ namespace });
    expect(disputes.map((job) => [job.range.startBlock, job.range.endBlock])).toEqual([
      [latest, latest + ibi],
      [latest + bi, latest + bi + ibi],
    ]);
    // The proposer's ranges are untouched by the challenger's.
    for (const job of await queue.list({ namespace: "proposer" })) expect(job.range.endBlock % bi).toBe(0n);

    // Claim until both disputes are held (the proposer's queued ranges come first when lower: held, not proved).
    const held: ProofJobLease[] = [];
    const leases = new Map<bigint, ProofJobLease>();
    while (leases.size < 2) {
      const lease = await queue.claim("test-worker");
      if (lease === null) throw new Error("the disputes were not claimable");
      if (lease.job.namespace === namespace) leases.set(lease.job.range.startBlock, lease);
      else held.push(lease);
    }
    const [first, second] = [leases.get(latest)!, leases.get(latest + bi)!];
    const checked = (line: LogLine) => line.msg === "proposal checked: wrong intermediate root";
    expect(await queue.complete(second, await prover.prover_prove(second.job.request))).toBe(true);
    // The child's proof is done but the parent's is not: the challenger keeps waiting, nullifying nothing.
    const seen = challenger!.lines.filter(checked).length;
    await challenger!.waitFor(checked, seen + 4, 120_000);
    expect(challenger!.lines.filter((line) => line.msg === "proposal nullified")).toEqual([]);
    expect((await proposal(child.id)).status).toBe(ProposalStatus.Proven);

    expect(await queue.complete(first, await prover.prover_prove(first.job.request))).toBe(true);
    const nullified = await challenger!.waitFor((line) => line.msg === "proposal nullified", 1, 180_000);
    expect(nullified).toMatchObject({ id: Number(parent.id), index: 0, invalidated: [Number(child.id)] });
    expect(nullified.root).toBe(await rootAt(latest + ibi));
    expect((await proposal(parent.id)).status).toBe(ProposalStatus.Nullified);
    expect((await proposal(child.id)).status).toBe(ProposalStatus.ParentNullified);
    await challenger!.waitFor(
      (line) => line.msg === "proposal not live: nothing to check" && line.id === Number(child.id),
      1,
      60_000,
    );
    expect(challenger!.lines.filter((line) => line.msg === "proposal nullified")).toHaveLength(1);
    for (const lease of held) expect(await queue.release(lease)).toBe(true);

    const metricsUrl = String(challenger!.lines.find((line) => line.msg === "serving metrics")?.metricsUrl);
    // The metrics follow at the end of the challenger's pass: read them until that pass has ended.
    const expected = [
      /challenger_proof_jobs\{[^}]*state="succeeded"[^}]*\} 2/,
      /challenger_nullifications_total\{[^}]*\} 1/,
      /challenger_open_disputes\{[^}]*\} 0/,
      /challenger_oldest_unfinished_job_age_seconds\{[^}]*\} 0/,
    ];
    const deadline = Date.now() + 60_000;
    let text = "";
    while (Date.now() < deadline) {
      text = await (await fetch(metricsUrl)).text();
      if (expected.every((pattern) => pattern.test(text))) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const pattern of expected) expect(text).toMatch(pattern);
  }, 900_000);
});
