/**
 * Proving at scale (`npm run bench:prove-scale`): the devnet (`src/devnet/main.ts --provers N --proposer`, 2 s L1
 * slots) with N worker hosts, each with its own local-mode enclave, on one SQLite proof job queue, while L2 carries
 * a steady load of gas-burning contract calls (`--calls-per-second`, ~430k gas each). Measuring starts once a
 * proposal reaches the first loaded block (the devnet's earlier blocks are empty). Two modes:
 *
 * Throughput (default; `-- --workers 1,2,4 --seconds 300`): one devnet per worker count, a window of `--seconds`:
 * - chain Mgas/s: gas of the L2 blocks made during the window, per second;
 * - proven Mgas/s: gas of the L2 blocks whose ranges the proposer landed onchain during the window, per second
 *   (at most the chain's rate when the workers keep up: then the lag says by how much they do);
 * - ranges proved in the window and the median proof time (a worker's claim to its completion);
 * - the proposer's lag (its proposer_lag_blocks metric: safe head minus the latest proposal), mean and max;
 * - per worker, the CPU its host and its enclave used, as a share of one core (the workers share this machine's
 *   cores, so more workers split the same CPU).
 *
 * Bounded lag (`-- --lag-minutes 10 --workers 2`): one devnet with the first worker count, the proposer's lag
 * sampled every 2 s for that many minutes; per minute the lag's min / median / max, the proposals landed and the
 * ranges proved, then the lag's trend (least-squares slope) and whether it grew: "grew" when the last minute's
 * median lies above the first minute's max, "bounded" otherwise.
 * With `--kill-worker` (needs 2 or more workers): at `--kill-at-minute` (default 1), the next job a worker other
 * than the first claims is let run 5 s and its host is killed with SIGKILL mid-proof; the job's next claim and its
 * completion are then reported against the lease the workers hold (their `--job-lease`) and the median proof time:
 * the range's delay is its first claim to its completion minus that median.
 *
 * Backlog drains (`-- --backlog-ranges 6 --workers 1,2 [--backlog-rounds 2]`): one devnet with the largest worker
 * count makes and proves that many ranges of loaded chain; then the load stops, the proposer and the challenger are
 * paused (SIGSTOP) and per worker count in turn (every round repeats the counts) the hosts of the other workers are
 * paused, the same ranges requeued and the time until all are proved again taken from a standing start: proven
 * Mgas/s = their gas / that time, per worker the ranges it proved and the CPU of its host and enclave, the median
 * proof and the load average before and after; then the mean per count and its ratio to the first count. Every count
 * proves the same blocks, so the ratio compares the provers, not the chain.
 *
 * Every figure comes with the load average (this machine is shared): before and after each run, and per minute.
 * `--log FILE` appends every devnet output line (with a millisecond timestamp) to FILE.
 * Usage: npm run bench:prove-scale [-- --workers 1,2,4 --seconds 300]
 *        npm run bench:prove-scale -- --lag-minutes 10 --workers 2 [--kill-worker] [--calls-per-second 10]
 *        npm run bench:prove-scale -- --backlog-ranges 6 --workers 1,2 [--backlog-rounds 2]
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type Address, createPublicClient, createWalletClient, defineChain, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { aggregateVerifierAbi } from "../contracts/index.js";
import { devAccounts } from "../src/chain/index.js";
import { DEFAULT_NAMESPACE, openProofJobQueue } from "../src/proof-jobs/index.js";

/** A JSON object from a line, or undefined. */
function jsonLine(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The devnet as a child process (`tsx src/devnet/main.ts`): its output lines, and a wait for a condition on them. */
function startDevnet(args: readonly string[], onLine: (line: string) => void) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/devnet/main.ts", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, DATABASE_URL: "" },
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  createInterface({ input: child.stdout }).on("line", onLine);
  return {
    /** Polls `probe` until it returns a value; throws after `timeoutMs` or when the devnet exits. */
    async waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = probe();
        if (value !== undefined) return value;
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`the devnet ${child.exitCode !== null ? "exited" : "timed out"} waiting`);
        await sleep(200);
      }
    },
    async stop(): Promise<void> {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runtime: a loop of 16 384 iterations (about 430 000 gas), behind an init code returning it. */
const BURNER_INIT: Hex = "0x600d600c600039600d6000f36140005b600190038060035700";
const CALL_GAS = 600_000n;
/** A development account the devnet's services do not use. */
const LOAD_ACCOUNT = 8;
/** How long after its claim a job's host is killed (mid-proof: the witness collection alone takes longer). */
const KILL_AFTER_CLAIM_MS = 5_000;

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "1,2,4" },
    seconds: { type: "string", default: "300" },
    "lag-minutes": { type: "string" },
    "kill-worker": { type: "boolean", default: false },
    "kill-at-minute": { type: "string", default: "1" },
    "calls-per-second": { type: "string", default: "10" },
    log: { type: "string" },
    "backlog-ranges": { type: "string" },
    "backlog-rounds": { type: "string", default: "2" },
  },
});
const workerCounts = values.workers.split(",").map(Number);
const windowSeconds = Number(values.seconds);
const lagMinutes = values["lag-minutes"] === undefined ? undefined : Number(values["lag-minutes"]);
const callsPerSecond = Number(values["calls-per-second"]);
const killAtMinute = Number(values["kill-at-minute"]);
const logFile = values.log;
const backlogRanges = values["backlog-ranges"] === undefined ? undefined : Number(values["backlog-ranges"]);
const backlogRounds = Number(values["backlog-rounds"]);
if (backlogRanges !== undefined && (!Number.isInteger(backlogRanges) || backlogRanges < 1))
  throw new Error("--backlog-ranges: 1 or more");
if (!Number.isInteger(backlogRounds) || backlogRounds < 1) throw new Error("--backlog-rounds: 1 or more");
if (workerCounts.some((n) => !Number.isInteger(n) || n < 1))
  throw new Error("--workers: counts of 1 or more");
if (values["kill-worker"] && (lagMinutes === undefined || workerCounts[0]! < 2))
  throw new Error("--kill-worker needs --lag-minutes and 2 or more --workers");

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
const cpu = cpus();
process.stdout.write(
  `machine: ${cpu[0]?.model ?? "unknown CPU"}, ${cpu.length} cores; load average ${load()}\n` +
    `load: ${callsPerSecond} calls/s of ~430k gas; measured once the proposals reach the loaded blocks\n`,
);

/** CPU seconds (user + system) of a process so far, from /proc; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The pids of the processes whose command lines contain every needle (the devnet's children name their sockets). */
function pidsWith(...needles: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (needles.every((needle) => cmdline.includes(needle))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const pidWith = (needle: string): number | undefined => pidsWith(needle)[0];

const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Ready {
  l2RpcUrl: string;
  l1RpcUrl: string;
  chainId: number;
  aggregateVerifier: Address;
}

/** A worker's step on a job, from its host's log ("proof job claimed" / "proof job completed"). */
interface JobEvent {
  readonly atMs: number;
  /** The worker: 0 for `[host]`, n for `[host n]`. */
  readonly worker: number;
  readonly kind: "claimed" | "completed";
  readonly jobId: number;
  readonly start?: number;
  readonly end?: number;
  readonly attempt?: number;
}

/** The proof time of every job claimed and completed by the same worker, at or after `sinceMs`, in seconds. */
function proofSeconds(events: readonly JobEvent[], sinceMs = 0): number[] {
  const out: number[] = [];
  for (const done of events) {
    if (done.kind !== "completed") continue;
    const claim = events.findLast(
      (e) =>
        e.kind === "claimed" && e.jobId === done.jobId && e.worker === done.worker && e.atMs <= done.atMs,
    );
    if (claim !== undefined && claim.atMs >= sinceMs) out.push((done.atMs - claim.atMs) / 1000);
  }
  return out;
}

/** A devnet with `workers` provers under load, started and measured from the first proposal of a loaded block. */
async function startLoadedDevnet(workers: number) {
  const dataDir = mkdtempSync(join(tmpdir(), "prove-scale-"));
  const proposerLines: Record<string, unknown>[] = [];
  const jobs: JobEvent[] = [];
  let leaseSeconds: number | undefined;
  let readyLine: Ready | undefined;
  let stopLoad = false;
  let loadDone: Promise<void> = Promise.resolve();
  const devnet = startDevnet(
    [
      ...["--data-dir", dataDir, "--l1-port", "0", "--l1-beacon-port", "0", "--node-port", "0"],
      ...["--merchant-port", "0", "--batcher-metrics-port", "0", "--prover-port", "0"],
      ...["--l1-block-time", "2", "--provers", String(workers), "--proposer"],
    ],
    (line) => {
      const atMs = Date.now();
      if (logFile !== undefined) appendFileSync(logFile, `${atMs} ${line}\n`);
      const ready = jsonLine(line);
      if (ready?.msg === "devnet ready") readyLine = ready as unknown as Ready;
      const proposer = /^\[proposer\] (\{.*)$/.exec(line);
      const value = proposer === null ? undefined : jsonLine(proposer[1]!);
      if (value !== undefined) proposerLines.push(value);
      const host = /^\[host(?: (\d+))?\] (\{.*)$/.exec(line);
      const fields = host === null ? undefined : jsonLine(host[2]!);
      if (host === null || fields === undefined) return;
      if (typeof fields.leaseSeconds === "number") leaseSeconds = fields.leaseSeconds;
      const kind =
        fields.msg === "proof job claimed"
          ? "claimed"
          : fields.msg === "proof job completed"
            ? "completed"
            : undefined;
      if (kind === undefined) return;
      jobs.push({
        atMs,
        worker: host[1] === undefined ? 0 : Number(host[1]),
        kind,
        jobId: Number(fields.jobId),
        ...(kind === "claimed"
          ? { start: Number(fields.start), end: Number(fields.end), attempt: Number(fields.attempt) }
          : {}),
      });
    },
  );
  const stopLoadNow = async (): Promise<void> => {
    stopLoad = true;
    await loadDone;
  };
  const stop = async (): Promise<void> => {
    await stopLoadNow();
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const ready = await devnet.waitFor(() => readyLine, 300_000);
    const l2Chain = defineChain({
      id: ready.chainId,
      name: "L2",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [ready.l2RpcUrl] } },
    });
    const l2 = createPublicClient({ chain: l2Chain, transport: http(ready.l2RpcUrl, { timeout: 60_000 }) });
    const l1 = createPublicClient({ transport: http(ready.l1RpcUrl, { timeout: 60_000 }) });
    const account = privateKeyToAccount(devAccounts(LOAD_ACCOUNT + 1)[LOAD_ACCOUNT]!.privateKey);
    const wallet = createWalletClient({ account, chain: l2Chain, transport: http(ready.l2RpcUrl) });
    const deployed = await l2.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ data: BURNER_INIT, gas: 200_000n }),
      timeout: 120_000,
    });
    const burner = deployed.contractAddress!;
    let nonce = await l2.getTransactionCount({ address: account.address, blockTag: "pending" });
    loadDone = (async () => {
      while (!stopLoad) {
        const sends = Array.from({ length: callsPerSecond }, () =>
          wallet.sendTransaction({ to: burner, gas: CALL_GAS, nonce: nonce++ }).catch(() => undefined),
        );
        await Promise.all([...sends, sleep(1000)]);
      }
    })();

    const metricsUrl = await devnet.waitFor(() => {
      const line = proposerLines.find((value) => value.msg === "serving metrics");
      return line === undefined ? undefined : String(line.metricsUrl);
    }, 120_000);
    const loadedFrom = BigInt(deployed.blockNumber);
    await devnet.waitFor(
      () =>
        proposerLines.some(
          (value) => value.msg === "proposal landed" && BigInt(Number(value.endingBlock)) >= loadedFrom,
        ) || undefined,
      900_000,
    );
    const sockets = Array.from({ length: workers }, (_, index) =>
      join(dataDir, index === 0 ? "enclave.sock" : `enclave-${index}.sock`),
    );
    return {
      devnet,
      dataDir,
      loadedFrom,
      stopLoad: stopLoadNow,
      l1,
      l2,
      ready,
      jobs,
      proposerLines,
      leaseSeconds: () => leaseSeconds,
      /** Each worker's host and enclave process ids. */
      roles: sockets.map((socket) => ({
        host: pidWith(`--vsock-cid ${socket}`),
        enclave: pidWith(`--listen ${socket}`),
      })),
      /** The proposer's lag in blocks now (proposer_lag_blocks), or undefined when the metric is not there. */
      async lag(): Promise<number | undefined> {
        const text = await (await fetch(metricsUrl)).text();
        const match = /proposer_lag_blocks\{[^}]*\} (\d+)/.exec(text);
        return match === null ? undefined : Number(match[1]);
      },
      latestProposed: () =>
        l1.readContract({
          address: ready.aggregateVerifier,
          abi: aggregateVerifierAbi,
          functionName: "latestBlock",
        } as never) as Promise<bigint>,
      /** Gas used by L2 blocks (from, to]. */
      async gasOf(from: bigint, to: bigint): Promise<bigint> {
        let gas = 0n;
        for (let n = from + 1n; n <= to; n++) gas += (await l2.getBlock({ blockNumber: n })).gasUsed;
        return gas;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

type LoadedDevnet = Awaited<ReturnType<typeof startLoadedDevnet>>;

/** Throughput of `workers` provers over a window of `windowSeconds`: one table row. */
async function throughput(workers: number): Promise<void> {
  const run = await startLoadedDevnet(workers);
  try {
    const cpuAt = () =>
      run.roles.map((role) =>
        [role.host, role.enclave].map((pid) => (pid === undefined ? 0 : cpuSeconds(pid))),
      );
    const startCpu = cpuAt();
    const startMs = Date.now();
    const [startHead, startProposed] = await Promise.all([run.l2.getBlockNumber(), run.latestProposed()]);
    const lags: number[] = [];
    while (Date.now() - startMs < windowSeconds * 1000) {
      const lag = await run.lag();
      if (lag !== undefined) lags.push(lag);
      await sleep(2000);
    }
    const seconds = (Date.now() - startMs) / 1000;
    const endCpu = cpuAt();
    const [endHead, endProposed] = await Promise.all([run.l2.getBlockNumber(), run.latestProposed()]);
    const [chainGas, provenGas] = await Promise.all([
      run.gasOf(startHead, endHead),
      run.gasOf(startProposed, endProposed),
    ]);
    const proofs = proofSeconds(run.jobs, startMs);
    const mgas = (gas: bigint) => (Number(gas) / 1e6 / seconds).toFixed(2);
    const cores = run.roles.map((_, i) =>
      [0, 1].map((k) => ((endCpu[i]![k]! - startCpu[i]![k]!) / seconds).toFixed(2)).join(" + "),
    );
    const meanLag = lags.length === 0 ? NaN : lags.reduce((a, b) => a + b, 0) / lags.length;
    process.stdout.write(
      `| ${workers} | ${seconds.toFixed(0)} s | ${mgas(chainGas)} | ${mgas(provenGas)} | ` +
        `${endProposed - startProposed} blocks | ${proofs.length} (${median(proofs).toFixed(1)} s) | ` +
        `${meanLag.toFixed(1)} / ${Math.max(...lags)} | ${cores.join("; ")} | ${load()} |\n`,
    );
  } finally {
    await run.stop();
  }
}

/** The kill-a-worker check's facts, filled in as they happen. */
interface Kill {
  jobId: number;
  worker: number;
  range: string;
  claimedAtMs: number;
  killedAtMs: number;
}

/** Waits for a job claimed by a worker other than the first, lets it run KILL_AFTER_CLAIM_MS, kills its host. */
async function killWorkerMidProof(run: LoadedDevnet): Promise<Kill> {
  const since = Date.now();
  for (;;) {
    const claim = run.jobs.find((e) => e.kind === "claimed" && e.worker > 0 && e.atMs >= since);
    if (claim !== undefined) {
      await sleep(Math.max(0, claim.atMs + KILL_AFTER_CLAIM_MS - Date.now()));
      const done = run.jobs.some((e) => e.kind === "completed" && e.jobId === claim.jobId);
      const pid = run.roles[claim.worker]?.host;
      if (!done && pid !== undefined) {
        process.kill(pid, "SIGKILL");
        const kill = {
          jobId: claim.jobId,
          worker: claim.worker,
          range: `${claim.start}-${claim.end}`,
          claimedAtMs: claim.atMs,
          killedAtMs: Date.now(),
        };
        process.stdout.write(
          `killed worker ${kill.worker} (host pid ${pid}) ${((kill.killedAtMs - kill.claimedAtMs) / 1000).toFixed(1)} s ` +
            `into job ${kill.jobId} (blocks ${kill.range}); load average ${load()}\n`,
        );
        return kill;
      }
    }
    await sleep(500);
  }
}

/** The proposer's lag over `minutes` with `workers` provers, per minute; with --kill-worker, the kill check. */
async function boundedLag(workers: number, minutes: number): Promise<void> {
  const run = await startLoadedDevnet(workers);
  try {
    process.stdout.write(
      `workers: ${workers}; ${minutes} minutes from the first proposal of a loaded block; lag sampled every 2 s\n\n` +
        "| minute | lag blocks min / median / max | proposals landed | ranges proved | load average |\n" +
        "| --- | --- | --- | --- | --- |\n",
    );
    const startMs = Date.now();
    const samples: { atMs: number; lag: number }[] = [];
    const perMinute: number[][] = [];
    let kill: Promise<Kill> | undefined;
    for (let minute = 0; minute < minutes; minute++) {
      if (values["kill-worker"] && minute === killAtMinute) kill = killWorkerMidProof(run);
      const from = startMs + minute * 60_000;
      const to = from + 60_000;
      const lags: number[] = [];
      while (Date.now() < to) {
        const lag = await run.lag().catch(() => undefined);
        if (lag !== undefined) {
          lags.push(lag);
          samples.push({ atMs: Date.now(), lag });
        }
        await sleep(2000);
      }
      perMinute.push(lags);
      const landed = run.proposerLines.filter(
        (v) =>
          v.msg === "proposal landed" &&
          Date.parse(String(v.time)) >= from &&
          Date.parse(String(v.time)) < to,
      ).length;
      const proved = run.jobs.filter((e) => e.kind === "completed" && e.atMs >= from && e.atMs < to).length;
      process.stdout.write(
        `| ${minute + 1} | ${Math.min(...lags)} / ${median(lags)} / ${Math.max(...lags)} | ${landed} | ${proved} | ${load()} |\n`,
      );
    }
    // Least squares over every sample: blocks of lag per minute.
    const xs = samples.map((s) => (s.atMs - startMs) / 60_000);
    const ys = samples.map((s) => s.lag);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = ys.reduce((a, b) => a + b, 0) / ys.length;
    const slope =
      xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
    const firstMax = Math.max(...perMinute[0]!);
    const lastMedian = median(perMinute.at(-1)!);
    process.stdout.write(
      `\nlag trend ${slope.toFixed(2)} blocks/minute; last minute's median ${lastMedian} against the first minute's ` +
        `max ${firstMax}: ${lastMedian > firstMax ? "GREW" : "bounded"}; proof time median ` +
        `${median(proofSeconds(run.jobs, startMs)).toFixed(1)} s; load average ${load()}\n`,
    );
    if (kill !== undefined) await reportKill(run, await kill);
  } finally {
    await run.stop();
  }
}

/**
 * How long the killed worker's job waited: its next claim and completion against the lease and the proof time. The
 * kill comes before the first heartbeat (a third of the lease), so the lease would run out one lease after the claim.
 */
async function reportKill(run: LoadedDevnet, kill: Kill): Promise<void> {
  const lease = run.leaseSeconds();
  const done = await run.devnet.waitFor(
    () => run.jobs.find((e) => e.kind === "completed" && e.jobId === kill.jobId),
    ((lease ?? 90) + 900) * 1000,
  );
  const reclaim = run.jobs.find(
    (e) => e.kind === "claimed" && e.jobId === kill.jobId && e.atMs > kill.killedAtMs,
  );
  const typical = median(proofSeconds(run.jobs));
  const took = (done.atMs - kill.claimedAtMs) / 1000;
  const delay = took - typical;
  const after = (ms: number) => ((ms - kill.killedAtMs) / 1000).toFixed(1);
  // Where the lease would have run out: the devnet ends a reaped host's leases at once (docs/devnet.md), so the
  // re-claim normally comes long before it.
  const expiredAtMs = kill.claimedAtMs + (lease ?? NaN) * 1000;
  const reclaimed =
    reclaim === undefined
      ? "?"
      : reclaim.atMs < expiredAtMs
        ? `${((expiredAtMs - reclaim.atMs) / 1000).toFixed(1)} s before its lease would have run out (the devnet ended it when the host died)`
        : `${((reclaim.atMs - expiredAtMs) / 1000).toFixed(1)} s after its lease ran out`;
  process.stdout.write(
    `\nkill check: job ${kill.jobId} (blocks ${kill.range}); lease ${lease ?? "?"} s from the claim (it would have run ` +
      `out ${after(expiredAtMs)} s after the kill); claimed again by worker ${reclaim?.worker ?? "?"} ` +
      `${reclaim === undefined ? "?" : after(reclaim.atMs)} s after the kill (attempt ${reclaim?.attempt ?? "?"}; ` +
      `${reclaimed}), proved ${after(done.atMs)} s after the kill by worker ` +
      `${done.worker}. First claim to proof ${took.toFixed(1)} s against a median proof of ${typical.toFixed(1)} s: ` +
      `delayed ${delay.toFixed(1)} s, ${lease !== undefined && delay <= lease ? "within" : "MORE than"} one lease; ` +
      `load average ${load()}\n`,
  );
}

/**
 * Backlog drains: the devnet runs with as many workers as the largest count while `backlogRanges` ranges of loaded
 * chain are made and proved; then the load stops, the proposer and the challenger are paused (SIGSTOP: nothing new
 * is enqueued) and, per worker count in turn (`backlogRounds` times over), the hosts of the other workers are paused,
 * the same ranges requeued at once and the time until every one is proved again is taken. Proven Mgas/s = gas of
 * the ranges / that time: every count proves the same blocks from a standing start, so the ratio compares the
 * provers, not the chain. Per worker, the CPU of its host and enclave over the drain, as a share of one core.
 */
async function backlogDrains(counts: readonly number[], ranges: number, rounds: number): Promise<void> {
  const most = Math.max(...counts);
  const run = await startLoadedDevnet(most);
  const queue = await openProofJobQueue({ sqlitePath: join(run.dataDir, "proof-jobs.db") });
  const paused = new Set<number>();
  const pause = (pid: number | undefined, on: boolean): void => {
    if (pid === undefined) return;
    process.kill(pid, on ? "SIGSTOP" : "SIGCONT");
    if (on) paused.add(pid);
    else paused.delete(pid);
  };
  try {
    const loaded = () =>
      queue
        .list({ namespace: DEFAULT_NAMESPACE, fromBlock: run.loadedFrom, limit: ranges })
        .then((jobs) => jobs.filter((job) => job.state === "succeeded"));
    process.stdout.write(`building ${ranges} ranges of loaded chain from block ${run.loadedFrom}\n`);
    const buildDeadline = Date.now() + 1_800_000;
    while ((await loaded()).length < ranges) {
      if (Date.now() > buildDeadline)
        throw new Error(`${ranges} loaded ranges were not proved in 30 minutes`);
      await sleep(2000);
    }
    await run.stopLoad();
    const schedulers = pidsWith(join(run.dataDir, "proof-jobs.db"), "--rollup-rpc-url");
    for (const pid of schedulers) pause(pid, true);
    // The workers finish what they hold; nothing new comes.
    for (;;) {
      const { depth } = await queue.stats();
      if (depth.queued === 0 && depth.leased === 0) break;
      await sleep(500);
    }
    const jobs = (await loaded()).slice(0, ranges);
    let gas = 0n;
    for (const job of jobs) gas += await run.gasOf(job.range.startBlock, job.range.endBlock);
    const blocks = jobs.reduce((n, job) => n + Number(job.range.endBlock - job.range.startBlock), 0);
    process.stdout.write(
      `backlog: ${jobs.length} ranges, blocks ${jobs[0]!.range.startBlock}-${jobs.at(-1)!.range.endBlock} ` +
        `(${blocks} blocks, ${(Number(gas) / 1e6).toFixed(0)} Mgas); the load stopped, the proposer paused; ` +
        `${rounds} round(s) of ${counts.join(", ")} workers\n\n` +
        "| workers | drain | proven Mgas/s | ranges per worker | median proof | CPU per worker (host + enclave, cores) | load before | load after |\n" +
        "| --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    const rates = new Map<number, number[]>();
    for (let round = 0; round < rounds; round++) {
      for (const workers of counts) {
        run.roles.forEach((role, index) => pause(role.host, index >= workers));
        const pids = run.roles.slice(0, workers).map((role) => [role.host, role.enclave]);
        const cpuAt = () => pids.map((pair) => pair.map((pid) => (pid === undefined ? 0 : cpuSeconds(pid))));
        const loadBefore = load();
        const startCpu = cpuAt();
        const startMs = Date.now();
        for (const job of jobs) await queue.requeue({ namespace: job.namespace, ...job.range });
        for (;;) {
          const done = await Promise.all(
            jobs.map((job) => queue.get({ namespace: job.namespace, ...job.range })),
          );
          if (done.some((job) => job?.state === "failed"))
            throw new Error(`a backlog job failed: ${done.find((job) => job?.state === "failed")?.error}`);
          if (done.every((job) => job?.state === "succeeded")) break;
          await sleep(250);
        }
        const seconds = (Date.now() - startMs) / 1000;
        const endCpu = cpuAt();
        const rate = Number(gas) / 1e6 / seconds;
        rates.set(workers, [...(rates.get(workers) ?? []), rate]);
        const completed = run.jobs.filter((e) => e.kind === "completed" && e.atMs >= startMs);
        const perWorker = run.roles
          .slice(0, workers)
          .map((_, index) => completed.filter((e) => e.worker === index).length);
        const cores = pids.map((_, i) =>
          [0, 1].map((k) => ((endCpu[i]![k]! - startCpu[i]![k]!) / seconds).toFixed(2)).join(" + "),
        );
        process.stdout.write(
          `| ${workers} | ${seconds.toFixed(1)} s | ${rate.toFixed(2)} | ${perWorker.join(" + ")} | ` +
            `${median(proofSeconds(run.jobs, startMs)).toFixed(1)} s | ${cores.join("; ")} | ${loadBefore} | ${load()} |\n`,
        );
      }
    }
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const one = rates.get(counts[0]!)!;
    process.stdout.write(
      `\n${counts
        .map((n) => `${n} worker(s): mean ${mean(rates.get(n)!).toFixed(2)} Mgas/s`)
        .join("; ")}; against ${counts[0]}: ${counts
        .slice(1)
        .map((n) => `${n} → ${(mean(rates.get(n)!) / mean(one)).toFixed(2)}×`)
        .join(", ")}; load average ${load()}\n`,
    );
  } finally {
    for (const pid of [...paused]) pause(pid, false);
    await queue.close();
    await run.stop();
  }
}

if (backlogRanges !== undefined) await backlogDrains(workerCounts, backlogRanges, backlogRounds);
else if (lagMinutes !== undefined) await boundedLag(workerCounts[0]!, lagMinutes);
else {
  process.stdout.write(
    `window: ${windowSeconds} s per worker count\n\n` +
      "| workers | window | chain Mgas/s | proven Mgas/s | proposed in window | ranges proved (median proof) | lag blocks mean / max | CPU per worker (host + enclave, cores) | load after |\n" +
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
  );
  for (const workers of workerCounts) await throughput(workers);
}
