/**
 * The main job end to end: `src/devnet/main.ts` as a real process starts the L1, the chain node on it, the batcher,
 * deploys the dev token and starts the merchant service; a restart on the same data directory reuses the chain, the
 * token and the order store; SIGINT, delivered twice as a terminal's Ctrl-C is, stops everything with exit code 0.
 * On the restarted devnet a deposit made with `npm run deposit` (viem's OP Stack actions) arrives on L2 and the
 * safe head passes its block; after a kill -9 of the devnet, the next start stops the children it left and resumes.
 * The prover side: the ready line names the prover host and the verifiers, each start's (new) enclave signer is
 * registered in TEEProverRegistry, the verifiers are deployed once, and `npm run prove -- --blocks 2` (a process)
 * gets the aggregate proposal accepted by TEEVerifier and by an eth_call of AggregateVerifier.propose. No process
 * the devnet starts (node, batcher, deployer, merchant, host, enclave, proposer, challenger) has a private key on its
 * command line (sampled from /proc through the three starts).
 * The third start is `--proposer --provers 2`: two local-mode enclaves, each signer registered, and two hosts in
 * worker mode on one proof job queue (a SQLite file in the data directory) on which the proposer schedules; the
 * ranges are proved through both worker hosts, each exactly once (one attempt, one completion), and the proposals
 * land onchain in order, each on the one before.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, createPublicClient, type Hex, http, parseEther } from "viem";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { aggregateVerifierAbi, eip3009TokenAbi, teeProverRegistryAbi } from "../../contracts/index.js";
import { devAccounts } from "../../src/chain/index.js";
import { DEVNET_ROLES, devnetAccount } from "../../src/devnet/accounts.js";
import { type ServiceChild, jsonLine, runToCompletion, startServiceChild } from "../../src/devnet/child.js";
import { type OnchainProposal, ProposalStatus } from "../../src/proof/onchain/index.js";
import { openProofJobQueue } from "../../src/proof-jobs/index.js";
import { sampleCommandLines } from "../support/process-tree.js";

interface DevnetReady {
  l1RpcUrl: string;
  l2RpcUrl: string;
  portal: Address;
  nodeUrl: string;
  token: Address;
  merchantUrl: string;
  merchantApiKeyFile: string;
  buyer: Address;
  proverUrl: string;
  enclaveSigner: Address;
  teeVerifier: Address;
  aggregateVerifier: Address;
  teeProverRegistry: Address;
  blockInterval: number;
  intermediateBlockInterval: number;
  configHash: Hex;
  proposer: Address;
  proposerRunning: boolean;
  provers: { url: string; signer: Address }[];
}

/** A line the devnet passes through from one of its children: `[role] {json}`. */
interface ChildLine {
  readonly role: string;
  readonly value: Record<string, unknown>;
}

/** Proposals the third start waits for: enough ranges that both worker hosts are busy at once. */
const PROPOSALS = 4;

const dataDir = mkdtempSync(join(tmpdir(), "devnet-test-"));
const running: ServiceChild[] = [];
/** Command lines of every process the devnet starts, sampled while it starts (secrets must never be among them). */
const commandLines = new Set<string>();

async function startDevnet(
  extra: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<{ child: ServiceChild; ready: DevnetReady; lines: ChildLine[] }> {
  const lines: ChildLine[] = [];
  const child = startServiceChild(
    "devnet",
    "src/devnet/main.ts",
    [
      "--data-dir",
      dataDir,
      "--l1-port",
      "0",
      "--l1-beacon-port",
      "0",
      "--node-port",
      "0",
      "--merchant-port",
      "0",
      "--batcher-metrics-port",
      "0",
      // Any free port for the hosts too: the default 8555 may be another test's.
      "--prover-port",
      "0",
      "--l1-block-time",
      "1",
      "--l2-block-time",
      "1",
      // Proposals of 2 blocks: `npm run prove -- --blocks 2` is the AggregateVerifier's next range.
      "--block-interval",
      "2",
      "--intermediate-block-interval",
      "2",
      ...extra,
    ],
    (line) => {
      const match = /^\[([a-z0-9 ]+)\] (\{.*)$/.exec(line);
      const value = match === null ? undefined : jsonLine(match[2]!);
      if (value !== undefined) lines.push({ role: match![1]!, value });
    },
    env,
  );
  running.push(child);
  const stopSampling = sampleCommandLines(child.process.pid!, commandLines);
  try {
    const ready = await child.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "devnet ready" ? (value as unknown as DevnetReady) : undefined;
    }, 300_000);
    return { child, ready, lines };
  } finally {
    stopSampling();
  }
}

/** Whether the registry holds `signer` valid (registered with the active image hash). */
async function validSigner(ready: DevnetReady, signer: Address): Promise<boolean> {
  return createPublicClient({ transport: http(ready.l1RpcUrl, { timeout: 60_000 }) }).readContract({
    address: ready.teeProverRegistry,
    abi: teeProverRegistryAbi,
    functionName: "isValidSigner",
    args: [signer],
  });
}

afterAll(async () => {
  for (const child of running) await child.stop(90_000);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start (the devnet)", () => {
  it("serves the chain, the minted token and the merchant API, and restarts on the same state", async () => {
    // When each phase ended (printed with the test's output): where this long scenario spends its time in CI.
    const began = Date.now();
    const phases: string[] = [];
    const phase = (name: string): void => {
      phases.push(`${name} ${((Date.now() - began) / 1000).toFixed(1)} s`);
    };
    /** The third start's children's lines, for the timeline printed with the phases. */
    let thirdLines: ChildLine[] = [];
    onTestFinished(() => {
      console.log(`devnet.test phases: ${phases.join(", ")}`);
      // Each role's messages after the third start, first and last time and count: where a slow run waited.
      const seen = new Map<string, number[]>();
      /** The error the first line of a message carried (a warning's cause), if any. */
      const firstError = new Map<string, string>();
      for (const { role, value } of thirdLines) {
        const at = typeof value.time === "string" ? Date.parse(value.time) : NaN;
        if (Number.isNaN(at)) continue;
        const key = `[${role}] ${String(value.msg)}`;
        seen.set(key, [...(seen.get(key) ?? []), (at - began) / 1000]);
        if (value.err !== undefined && !firstError.has(key))
          firstError.set(key, JSON.stringify(value.err).slice(0, 300));
      }
      const timeline = [...seen]
        .sort(([, a], [, b]) => a[0]! - b[0]!)
        .map(
          ([key, at]) =>
            `${key} ×${at.length} ${at[0]!.toFixed(1)}-${at.at(-1)!.toFixed(1)} s` +
            (firstError.has(key) ? ` (first: ${firstError.get(key)})` : ""),
        );
      if (timeline.length > 0) console.log(`devnet.test third start's timeline:\n  ${timeline.join("\n  ")}`);
    });
    const first = await startDevnet();
    phase("first start");
    const client = createPublicClient({ transport: http(first.ready.nodeUrl, { timeout: 60_000 }) });
    const balance = await client.readContract({
      address: first.ready.token,
      abi: eip3009TokenAbi,
      functionName: "balanceOf",
      args: [first.ready.buyer],
    });
    expect(balance).toBe(1_000_000n * 10n ** 6n);
    // The merchant API needs the key the devnet's merchant keeps in its data directory.
    expect((await fetch(`${first.ready.merchantUrl}/orders`)).status).toBe(401);
    const orders = await fetch(`${first.ready.merchantUrl}/orders`, {
      headers: { authorization: `Bearer ${readFileSync(first.ready.merchantApiKeyFile, "utf8").trim()}` },
    });
    expect(orders.status).toBe(200);
    const headBefore = await client.getBlockNumber();
    // The prover side: the host answers, its enclave's signer is registered, the verifiers are on the L1 with
    // the devnet's values.
    expect(first.ready.proverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${first.ready.proverUrl}/healthz`)).status).toBe(200);
    expect(await validSigner(first.ready, first.ready.enclaveSigner)).toBe(true);
    const l1 = createPublicClient({ transport: http(first.ready.l1RpcUrl, { timeout: 60_000 }) });
    const verifierValue = (functionName: string) =>
      l1.readContract({
        address: first.ready.aggregateVerifier,
        abi: aggregateVerifierAbi,
        functionName,
      } as never);
    expect(await verifierValue("BLOCK_INTERVAL")).toBe(2n);
    expect(await verifierValue("INTERMEDIATE_BLOCK_INTERVAL")).toBe(2n);
    expect(await verifierValue("CONFIG_HASH")).toBe(first.ready.configHash);
    expect(await verifierValue("TEE_VERIFIER")).toBe(first.ready.teeVerifier);

    // A terminal's Ctrl-C signals npm, tsx and the devnet alike, so the devnet sees it more than once: the
    // second delivery, while the services stop, must not end the devnet before its children.
    first.child.process.kill("SIGINT");
    await first.child.waitForLine(
      (line) => (line.includes("SIGINT: stopping the services") ? true : undefined),
      30_000,
    );
    first.child.process.kill("SIGINT");
    expect(await first.child.exited).toEqual({ code: 0, signal: null });
    phase("first stop");
    await expect(fetch(first.ready.nodeUrl)).rejects.toThrow(); // the node stopped with it

    const second = await startDevnet();
    expect(second.ready.token).toBe(first.ready.token);
    // Restart: the same verifiers, a new enclave signer, registered too.
    expect(second.ready.aggregateVerifier).toBe(first.ready.aggregateVerifier);
    expect(second.ready.teeVerifier).toBe(first.ready.teeVerifier);
    expect(second.ready.enclaveSigner).not.toBe(first.ready.enclaveSigner);
    expect(await validSigner(second.ready, second.ready.enclaveSigner)).toBe(true);
    phase("second start");
    // The README's one-command proof, run alongside the deposit below: everything from <data-dir>/devnet.json.
    const proved = runToCompletion(
      "src/devnet/prove.ts",
      ["--data-dir", dataDir, "--blocks", "2"],
      600_000,
    ).then(
      (out) => ({ out }),
      (error: unknown) => ({ out: String(error) }),
    );
    const again = createPublicClient({ transport: http(second.ready.nodeUrl, { timeout: 60_000 }) });
    expect(await again.getBlockNumber()).toBeGreaterThanOrEqual(headBefore);
    // The restarted merchant keeps the same key.
    expect(
      (
        await fetch(`${second.ready.merchantUrl}/orders`, {
          headers: {
            authorization: `Bearer ${readFileSync(second.ready.merchantApiKeyFile, "utf8").trim()}`,
          },
        })
      ).status,
    ).toBe(200);

    // A deposit made on L1 with viem's OP Stack actions (npm run deposit) arrives on L2 with its mint and value,
    // and the safe head passes its block as the batcher's channels land on L1.
    const [sender, recipient] = [devAccounts(10)[0]!.address, devAccounts(10)[9]!.address];
    const [senderBefore, recipientBefore] = await Promise.all(
      [sender, recipient].map((address) => again.getBalance({ address })),
    );
    const output = await runToCompletion(
      "src/devnet/deposit.ts",
      [
        ...["--l1-rpc-url", second.ready.l1RpcUrl, "--l2-rpc-url", second.ready.l2RpcUrl],
        ...["--portal", second.ready.portal, "--to", recipient, "--mint", "2", "--value", "1.5"],
        ...["--timeout-s", "150"],
      ],
      180_000,
    );
    phase("deposit on L2");
    const deposit = JSON.parse(output) as { l2Status: string; l2Block: number; l2TxHash: string };
    expect(deposit.l2Status).toBe("success");
    const receipt = await again.getTransactionReceipt({ hash: deposit.l2TxHash as `0x${string}` });
    expect(receipt.blockNumber).toBe(BigInt(deposit.l2Block));
    expect(await again.getBalance({ address: recipient })).toBe(recipientBefore! + parseEther("1.5"));
    expect(await again.getBalance({ address: sender })).toBe(senderBefore! + parseEther("0.5"));
    const deadline = Date.now() + 180_000;
    let safe = (await again.getBlock({ blockTag: "safe" })).number;
    while (safe < receipt.blockNumber && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      safe = (await again.getBlock({ blockTag: "safe" })).number;
    }
    expect(safe).toBeGreaterThanOrEqual(receipt.blockNumber);
    phase("deposit safe");
    const lines = (await proved).out.trim().split("\n");
    phase("npm run prove");
    expect(lines.some((line) => line.startsWith("curl -s") && line.includes('"method":"prover_prove"'))).toBe(
      true,
    );
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      msg: "proof accepted",
      range: { start: 0, end: 2 },
      teeVerifier: "accepted",
      aggregateVerifier: "accepted",
    });

    // kill -9 of the devnet itself leaves its children running; the next start stops them first and resumes.
    const { pids } = JSON.parse(readFileSync(join(dataDir, "devnet.pids"), "utf8")) as { pids: number[] };
    expect(pids).toHaveLength(6);
    const runsHere = (pid: number): boolean => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(dataDir);
      } catch {
        return false;
      }
    };
    second.child.process.kill("SIGKILL");
    await second.child.exited;
    expect(pids.filter(runsHere)).toEqual(pids);
    const headBeforeKill = await again.getBlockNumber();
    // The third start also runs the proposer and the challenger, and two worker hosts on one proof job queue.
    // The queue is the data directory's SQLite file, whatever the environment names.
    const third = await startDevnet(["--proposer", "--provers", "2"], { DATABASE_URL: "" });
    phase("third start");
    thirdLines = third.lines;
    expect(third.ready.proposerRunning).toBe(true);
    expect(pids.filter(runsHere)).toEqual([]);
    expect(third.ready.token).toBe(first.ready.token);
    expect(third.ready.aggregateVerifier).toBe(first.ready.aggregateVerifier);
    expect(third.ready.provers).toHaveLength(2);
    expect(new Set(third.ready.provers.map((prover) => prover.signer)).size).toBe(2);
    for (const { signer } of third.ready.provers) expect(await validSigner(third.ready, signer)).toBe(true);
    const resumed = createPublicClient({ transport: http(third.ready.nodeUrl, { timeout: 60_000 }) });
    expect(await resumed.getBlockNumber()).toBeGreaterThanOrEqual(headBeforeKill);
    expect(await resumed.getBalance({ address: recipient })).toBe(recipientBefore! + parseEther("1.5"));

    const from = (role: string, msg: string) =>
      third.lines.filter((line) => line.role === role && line.value.msg === msg).map((line) => line.value);
    /** Resolves once `role` has printed `count` lines of `msg`. */
    const waitFor = async (role: string, msg: string, count: number, timeoutMs: number) => {
      if (from(role, msg).length < count)
        await third.child.waitForLine(() => (from(role, msg).length >= count ? true : undefined), timeoutMs);
      return from(role, msg);
    };
    expect(from("host", "proof worker started")).toHaveLength(1);
    expect(from("host 1", "proof worker started")).toHaveLength(1);
    // The proposals land in order on the AggregateVerifier, each on the one before, each proven.
    const landed = (await waitFor("proposer", "proposal landed", PROPOSALS, 480_000)).slice(0, PROPOSALS);
    phase(`${PROPOSALS} proposals landed`);
    // The hosts forward the node's block witnesses (answered from its records), none executed again by the host.
    const collected = [...from("host", "witness collected"), ...from("host 1", "witness collected")];
    expect(collected.length).toBeGreaterThan(0);
    expect(new Set(collected.map((line) => line.execution))).toEqual(new Set(["forwarded"]));
    for (const line of landed) {
      const at = typeof line.time === "string" ? Date.parse(line.time) : NaN; // the logs' ISO time
      if (!Number.isNaN(at))
        phases.push(`(proposal ${String(line.endingBlock)} at ${((at - began) / 1000).toFixed(1)} s)`);
    }
    expect(landed.map((line) => [line.startingBlock, line.endingBlock])).toEqual(
      Array.from({ length: PROPOSALS }, (_, k) => [2 * k, 2 * k + 2]),
    );
    const thirdL1 = createPublicClient({ transport: http(third.ready.l1RpcUrl, { timeout: 60_000 }) });
    let parentId = 0n;
    for (const line of landed) {
      const proposal = (await thirdL1.readContract({
        address: third.ready.aggregateVerifier,
        abi: aggregateVerifierAbi,
        functionName: "getProposal",
        args: [BigInt(line.id as number)],
      } as never)) as OnchainProposal;
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

  it.runIf(process.platform === "linux")(
    "never puts a secret on the command line of a process it starts (ps shows them to every local user)",
    () => {
      // Sampled through the three starts above: the first deploys the token, the third runs the proposer and
      // the challenger.
      // A service started from its bundle (src/bundles) shows its source path with .mjs for .ts.
      const lines = [...commandLines].map((line) => line.replace(/\.mjs\b/g, ".ts"));
      for (const part of [
        "src/node/main.ts",
        "src/batcher/main.ts",
        "src/merchant/main.ts",
        "src/merchant/cli.ts deploy-token",
        "src/host/main.ts",
        "enclave/main.ts",
        "src/proposer/main.ts",
        "src/challenger/main.ts",
      ])
        expect(
          lines.some((l) => l.includes(part)),
          part,
        ).toBe(true);
      const keys = Object.keys(DEVNET_ROLES).map((role) =>
        devnetAccount(role as keyof typeof DEVNET_ROLES)
          .privateKey.slice(2)
          .toLowerCase(),
      );
      for (const line of lines) for (const key of keys) expect(line.toLowerCase()).not.toContain(key);
    },
  );
});
