/**
 * Proving at scale (`npm run bench:prove-scale`): the devnet (`src/devnet/main.ts --provers N --proposer`, 2 s L1
 * slots) with 1, 2 and 4 worker hosts, each with its own local-mode enclave, on one SQLite proof job queue, while
 * L2 carries a steady load of gas-burning contract calls. Once a proposal reaches the first loaded block, a window
 * of `--seconds` is measured:
 * - chain Mgas/s: gas of the L2 blocks made during the window, per second;
 * - proven Mgas/s: gas of the L2 blocks whose ranges the proposer landed onchain during the window, per second
 *   (at most the chain's rate when the workers keep up: then the lag says by how much they do);
 * - the proposer's lag (its proposer_lag_blocks metric: safe head minus the latest proposal), mean and max;
 * - per worker, the CPU its host and its enclave used, as a share of one core (the workers share this machine's
 *   cores, so more workers split the same CPU).
 * It prints the machine (CPU model, cores) and the load average before and after each run.
 * Usage: npm run bench:prove-scale [-- --workers 1,2,4 --seconds 120]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type Address, createPublicClient, createWalletClient, defineChain, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { aggregateVerifierAbi } from "../contracts/index.js";
import { devAccounts } from "../src/chain/index.js";

/** A JSON object from a line, or undefined. */
function jsonLine(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

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
        await new Promise((resolve) => setTimeout(resolve, 200));
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
/** Calls per second the load sends (about 4 Mgas/s of L2 at 430 000 gas each). */
const CALLS_PER_SECOND = 10;
/** A development account the devnet's services do not use. */
const LOAD_ACCOUNT = 8;

const { values } = parseArgs({
  options: { workers: { type: "string", default: "1,2,4" }, seconds: { type: "string", default: "120" } },
});
const workerCounts = values.workers.split(",").map(Number);
const windowSeconds = Number(values.seconds);

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
const cpu = cpus();
process.stdout.write(
  `machine: ${cpu[0]?.model ?? "unknown CPU"}, ${cpu.length} cores; load average ${load()}\n` +
    `window: ${windowSeconds} s once the proposals reach the loaded blocks; load: ${CALLS_PER_SECOND} calls/s of ~430k gas\n`,
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

/** The pid of the process whose command line contains `needle` (the devnet's children name their sockets). */
function pidWith(needle: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (cmdline.includes(needle)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

interface Ready {
  l2RpcUrl: string;
  l1RpcUrl: string;
  chainId: number;
  aggregateVerifier: Address;
}

async function run(workers: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "prove-scale-"));
  const proposerLines: Record<string, unknown>[] = [];
  let readyLine: Ready | undefined;
  let devnet: ReturnType<typeof startDevnet> | undefined;
  let stopLoad = false;
  try {
    devnet = startDevnet(
      [
        ...["--data-dir", dataDir, "--l1-port", "0", "--l1-beacon-port", "0", "--node-port", "0"],
        ...["--merchant-port", "0", "--batcher-metrics-port", "0", "--prover-port", "0"],
        ...["--l1-block-time", "2", "--provers", String(workers), "--proposer"],
      ],
      (line) => {
        const ready = jsonLine(line);
        if (ready?.msg === "devnet ready") readyLine = ready as unknown as Ready;
        const match = /^\[proposer\] (\{.*)$/.exec(line);
        const value = match === null ? undefined : jsonLine(match[1]!);
        if (value !== undefined) proposerLines.push(value);
      },
    );
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
    const loadDone = (async () => {
      while (!stopLoad) {
        const sends = Array.from({ length: CALLS_PER_SECOND }, () =>
          wallet.sendTransaction({ to: burner, gas: CALL_GAS, nonce: nonce++ }).catch(() => undefined),
        );
        await Promise.all([...sends, new Promise((resolve) => setTimeout(resolve, 1000))]);
      }
    })();

    const metricsUrl = await devnet.waitFor(() => {
      const line = proposerLines.find((value) => value.msg === "serving metrics");
      return line === undefined ? undefined : String(line.metricsUrl);
    }, 120_000);
    // The window opens once the proposals have reached the loaded blocks: the devnet's earlier blocks are empty.
    const loadedFrom = BigInt(deployed.blockNumber);
    const reached = () =>
      proposerLines.some(
        (value) => value.msg === "proposal landed" && BigInt(Number(value.endingBlock)) >= loadedFrom,
      )
        ? true
        : undefined;
    await devnet.waitFor(reached, 900_000);

    const roles = Array.from({ length: workers }, (_, index) => {
      const socket = join(dataDir, index === 0 ? "enclave.sock" : `enclave-${index}.sock`);
      return {
        host: pidWith(`--vsock-cid ${socket}`),
        enclave: pidWith(`--listen ${socket}`),
      };
    });
    const cpuAt = () =>
      roles.map((role) => [role.host, role.enclave].map((pid) => (pid === undefined ? 0 : cpuSeconds(pid))));
    const read = <T>(functionName: string, args: readonly unknown[] = []) =>
      l1.readContract({
        address: ready.aggregateVerifier,
        abi: aggregateVerifierAbi,
        functionName,
        args,
      } as never) as Promise<T>;

    const startCpu = cpuAt();
    const startMs = Date.now();
    const startHead = await l2.getBlockNumber();
    const startProposed = await read<bigint>("latestBlock");
    const lags: number[] = [];
    while (Date.now() - startMs < windowSeconds * 1000) {
      const text = await (await fetch(metricsUrl)).text();
      const match = /proposer_lag_blocks\{[^}]*\} (\d+)/.exec(text);
      if (match !== null) lags.push(Number(match[1]));
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    const seconds = (Date.now() - startMs) / 1000;
    const endCpu = cpuAt();
    const [endHead, endProposed] = await Promise.all([l2.getBlockNumber(), read<bigint>("latestBlock")]);
    stopLoad = true;
    await loadDone;
    const gasOf = async (from: bigint, to: bigint): Promise<bigint> => {
      let gas = 0n;
      for (let n = from + 1n; n <= to; n++) gas += (await l2.getBlock({ blockNumber: n })).gasUsed;
      return gas;
    };
    const [chainGas, provenGas] = await Promise.all([
      gasOf(startHead, endHead),
      gasOf(startProposed, endProposed),
    ]);
    const mgas = (gas: bigint) => (Number(gas) / 1e6 / seconds).toFixed(2);
    const cores = roles.map((_, i) =>
      [0, 1].map((k) => ((endCpu[i]![k]! - startCpu[i]![k]!) / seconds).toFixed(2)).join(" + "),
    );
    const meanLag = lags.length === 0 ? NaN : lags.reduce((a, b) => a + b, 0) / lags.length;
    process.stdout.write(
      `| ${workers} | ${mgas(chainGas)} | ${mgas(provenGas)} | ${endProposed - startProposed} blocks | ` +
        `${meanLag.toFixed(1)} / ${Math.max(...lags)} | ${cores.join("; ")} | ${load()} |\n`,
    );
  } finally {
    stopLoad = true;
    await devnet?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.stdout.write(
  "| workers | chain Mgas/s | proven Mgas/s | proposed in window | lag blocks mean / max | CPU per worker (host + enclave, cores) | load after |\n" +
    "| --- | --- | --- | --- | --- | --- | --- |\n",
);
for (const workers of workerCounts) await run(workers);
