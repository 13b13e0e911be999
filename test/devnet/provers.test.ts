/**
 * `npm start -- --provers 2 --proposer` end to end: the devnet runs two local-mode enclaves, each signer
 * registered, and two hosts in worker mode on one proof job queue (a SQLite file in the data directory); the proposer
 * schedules on that queue. Ranges are proved through both worker hosts, each exactly once (one attempt, one
 * completion), and the proposals land onchain in order, each on the one before. Everything is awaited on log lines
 * the devnet passes through, never on sleeps.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, createPublicClient, http } from "viem";
import { afterAll, describe, expect, it, onTestFailed } from "vitest";
import { aggregateVerifierAbi, teeProverRegistryAbi } from "../../contracts/index.js";
import { jsonLine, type ServiceChild, startServiceChild } from "../../src/devnet/child.js";
import { type OnchainProposal, ProposalStatus } from "../../src/proof/onchain/index.js";
import { openProofJobQueue } from "../../src/proof-jobs/index.js";

/** Proposals the test waits for: enough ranges that both workers are busy at once. */
const PROPOSALS = 4;

const dataDir = mkdtempSync(join(tmpdir(), "devnet-provers-"));
let devnet: ServiceChild | undefined;

afterAll(async () => {
  await devnet?.stop(90_000);
  rmSync(dataDir, { recursive: true, force: true });
});

/** A line the devnet passes through from one of its children: `[role] {json}`. */
interface ChildLine {
  readonly role: string;
  readonly value: Record<string, unknown>;
}

describe("npm start -- --provers 2 --proposer", () => {
  it("proves each range once through two worker hosts on one queue and lands the proposals in order", async () => {
    const lines: ChildLine[] = [];
    const raw: string[] = [];
    // On a failure, what the devnet printed last says where it stood.
    onTestFailed(() => {
      process.stderr.write(`the devnet's last lines:\n${raw.slice(-60).join("\n")}\n`);
    });
    devnet = startServiceChild(
      "devnet",
      "src/devnet/main.ts",
      [
        ...["--data-dir", dataDir, "--l1-port", "0", "--l1-beacon-port", "0", "--node-port", "0"],
        ...["--merchant-port", "0", "--batcher-metrics-port", "0", "--prover-port", "0"],
        ...["--l1-block-time", "1", "--l2-block-time", "1"],
        ...["--block-interval", "2", "--intermediate-block-interval", "2"],
        ...["--provers", "2", "--proposer"],
      ],
      (line) => {
        raw.push(line.slice(0, 400));
        const match = /^\[([a-z0-9 ]+)\] (\{.*)$/.exec(line);
        const value = match === null ? undefined : jsonLine(match[2]!);
        if (value !== undefined) lines.push({ role: match![1]!, value });
      },
      // The queue is the data directory's SQLite file, whatever the environment names.
      { DATABASE_URL: "" },
    );
    const child = devnet;
    const from = (role: string, msg: string) =>
      lines.filter((line) => line.role === role && line.value.msg === msg).map((line) => line.value);
    /** Resolves once `role` has printed `count` lines of `msg`. */
    const waitFor = async (role: string, msg: string, count: number, timeoutMs: number) => {
      if (from(role, msg).length < count)
        await child.waitForLine(() => (from(role, msg).length >= count ? true : undefined), timeoutMs);
      return from(role, msg);
    };

    const ready = await child.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "devnet ready"
        ? (value as {
            l1RpcUrl: string;
            aggregateVerifier: Address;
            teeProverRegistry: Address;
            provers: { url: string; signer: Address }[];
          })
        : undefined;
    }, 300_000);
    expect(ready.provers).toHaveLength(2);
    expect(new Set(ready.provers.map((prover) => prover.signer)).size).toBe(2);
    const l1 = createPublicClient({ transport: http(ready.l1RpcUrl, { timeout: 60_000 }) });
    for (const { signer } of ready.provers)
      expect(
        await l1.readContract({
          address: ready.teeProverRegistry,
          abi: teeProverRegistryAbi,
          functionName: "isValidSigner",
          args: [signer],
        }),
      ).toBe(true);
    expect(from("host", "proof worker started")).toHaveLength(1);
    expect(from("host 1", "proof worker started")).toHaveLength(1);

    const landed = (await waitFor("proposer", "proposal landed", PROPOSALS, 480_000)).slice(0, PROPOSALS);
    expect(landed.map((line) => [line.startingBlock, line.endingBlock])).toEqual(
      Array.from({ length: PROPOSALS }, (_, k) => [2 * k, 2 * k + 2]),
    );
    const read = <T>(functionName: string, args: readonly unknown[]) =>
      l1.readContract({
        address: ready.aggregateVerifier,
        abi: aggregateVerifierAbi,
        functionName,
        args,
      } as never) as Promise<T>;
    let parentId = 0n;
    for (const line of landed) {
      const proposal = await read<OnchainProposal>("getProposal", [BigInt(line.id as number)]);
      expect(proposal.status).toBe(ProposalStatus.Proven);
      expect(proposal.parentId).toBe(parentId);
      parentId = BigInt(line.id as number);
    }

    // Each range proved exactly once: one attempt per job, one completion per job across both hosts, and both
    // hosts proved some of them.
    const queue = await openProofJobQueue({ sqlitePath: join(dataDir, "proof-jobs.db") });
    try {
      const jobs = (await queue.list({ namespace: "proposer" })).filter(
        (job) => job.range.endBlock <= BigInt(2 * PROPOSALS),
      );
      expect(jobs.map((job) => [job.range.startBlock, job.range.endBlock, job.state, job.attempts])).toEqual(
        Array.from({ length: PROPOSALS }, (_, k) => [BigInt(2 * k), BigInt(2 * k + 2), "succeeded", 1]),
      );
      const completed = ["host", "host 1"].map((role) =>
        from(role, "proof job completed").map((line) => line.jobId),
      );
      const all = completed.flat();
      expect(new Set(all).size).toBe(all.length);
      for (const job of jobs) expect(all).toContain(job.id);
      for (const ids of completed) expect(ids.length).toBeGreaterThan(0);
    } finally {
      await queue.close();
    }
  }, 900_000);
});
