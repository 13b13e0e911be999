/**
 * `npm run bench:prove -- --load base`: proving a devnet chain built at Base's target gas.
 *
 * Builds the chain: the devnet's L1 (anvil, 4 s slots) with SystemConfig's gas limit at `--gas-limit` (default
 * 400 000 000, Base's; what `npm start -- --gas-limit` does), a node in L1 mode with 2 s blocks and 200 ms
 * flashblocks, the batcher posting blobs, and `npm run load` sending its mainnet-like mix at `--gas-per-second`
 * (default 40 000 000: 80 M gas per 2 s block, Base's target) until the chain holds every range. The chain sequences
 * what it can; the figures name the gas it holds.
 *
 * Then proves consecutive ranges of `--ranges` blocks (default 10,100,600; intermediate roots every 30 blocks where
 * the size allows, else every 10) once per `--workers` count (default 1,2), each by its own enclave process started
 * with that --workers and a host started with the same --workers (above 1 the witness carries the chain witness the
 * parallel path runs on). Per run: prover_prove end to end at the host (witness + transfer + verify + derive +
 * execute + sign) and proven Mgas/s over it; the host's witness collection; the Prove frame's transfer (a
 * pass-through proxy in front of the enclave); the enclave's stages replayed in this process on the same frame with
 * the enclave's code, on a BlockPool of the same size (bench/prove-stages.ts), each with its Mgas/s, and the enclave
 * process's own round trip (from the forwarded frame to its whole response, which the stages make up); how the enclave
 * executed (its "range executed" log: parallel, or sequential and why); the enclave process's peak RSS; the CPU
 * seconds the host, the node and the enclave processes used over prover_prove (/proc, all their threads). Then the
 * speed-up from the fewest to the most workers per range, and the machine and load average.
 *
 * A range longer than the hosts' --max-blocks-per-frame (default 100) is proved in frames the enclave aggregates
 * (docs/host.md "Ranges in frames"): its row sums the frames' preimages, bytes, transfers and enclave round trips
 * (with the Aggregate), and the host's witness over the frames (each collected while the enclave proves the one
 * before, so the sum exceeds its share of the wall time); its stages are not replayed.
 *
 * The node keeps its witness records (`--witness-window`, docs/node/witnesses.md) unless `--node-witness-window 0`;
 * the bench prints what they hold on disk once the chain is built.
 *
 * Usage: npm run bench:prove -- --load base [--ranges 10,100 --workers 1,2 --gas-per-second 40000000
 * --max-blocks-per-frame 100 --node-witness-window 0]
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Preimage } from "../generated/protocol/index.js";
import { BlockPool } from "../src/proof/program/index.js";
import { type RunningHost, startHost } from "../test/host/spawn-host.js";
import { startTamperProxy, type TamperProxy } from "../test/host/tamper-proxy.js";
import { type LoadChain, type LoadReport, runLoadProcess, startLoadChain } from "../test/load/load-chain.js";
import { startBatcher } from "../test/node/l1-chain.js";
import {
  outputAt,
  type RangeRequest,
  rangeRequestOn,
  rpc,
  type ProveResultJson,
  type RunningEnclave,
  startEnclave,
  until,
} from "../test/proof/prove-chain.js";
import { l1Account, witnessHostArgs } from "../test/support/prover-chain.js";
import { cpuSeconds, peakRssMiB, resetPeakRss } from "./process-stats.js";
import { loadAverage, machineLine, replayStages, type StageFigures } from "./prove-stages.js";

export interface BaseLoadOptions {
  readonly ranges: readonly number[];
  readonly workers: readonly number[];
  readonly gasLimit: bigint;
  readonly gasPerSecond: number;
  readonly senders: number;
  /** The hosts' --witness-workers (undefined: each host's default, its --workers). */
  readonly witnessWorkers?: number;
  /** The hosts' --witness-run, each with every worker count (undefined: the host's default, forward). */
  readonly witnessRuns?: readonly string[];
  /** The hosts' --max-blocks-per-frame (undefined: the host's default, 100). */
  readonly maxBlocksPerFrame?: number;
  /** The node's --witness-window (undefined: the node's default; 0: no witness records, every witness executed). */
  readonly nodeWitnessWindow?: number;
}

/** One enclave process with its --workers, the proxy in front of it, and a host with the same --workers. */
interface Prover {
  readonly workers: number;
  /** The host's --witness-run (undefined: its default). */
  readonly witnessRun: string | undefined;
  readonly enclave: RunningEnclave;
  readonly proxy: TamperProxy;
  readonly host: RunningHost;
  /** This process's pool for the replay of the enclave's stages (undefined: sequential). */
  readonly pool: BlockPool | undefined;
}

interface RunFigures extends Omit<StageFigures, "mode"> {
  /** How the replay executed the range; "-" when not replayed (a range proved in several frames). */
  readonly mode: StageFigures["mode"] | "-";
  /** Prove frames the host sent (a range longer than --max-blocks-per-frame is proved in several). */
  readonly frames: number;
  /** The enclave's Aggregate round trip (ranges in frames). */
  readonly aggregateMs: number | undefined;
  readonly blocks: number;
  readonly workers: number;
  readonly witnessRun: string | undefined;
  readonly gas: number;
  readonly transactions: number;
  readonly totalMs: number;
  readonly witnessMs: number;
  readonly preimages: number;
  readonly frameBytes: number;
  readonly transferMs: number;
  /** From the frame forwarded to the enclave's whole response: the enclave process's verify to sign (summed over frames, with the Aggregate). */
  readonly enclaveMs: number;
  /** The enclave's own report: parallel, or sequential and why. */
  readonly enclaveMode: string;
  readonly enclavePeakRssMiB: number | undefined;
  /** How the host's own run executed the range: on its block workers, or sequentially (and why). */
  readonly hostMode: string;
  /** The host process's peak RSS so far and its block workers' largest heap (MiB). */
  readonly hostPeakRssMiB: number | undefined;
  readonly hostWorkerHeapMiB: number | undefined;
  /** CPU seconds each process used during prover_prove (all its threads; /proc): where the two cores went. */
  readonly cpu: ProcessCpu;
}

interface ProcessCpu {
  readonly host: number | undefined;
  readonly node: number | undefined;
  readonly enclave: number | undefined;
}

/** The CPU seconds the host, the node and the enclave processes have used so far. */
function processCpu(chain: LoadChain, prover: Prover): ProcessCpu {
  const of = (pid: number | undefined) => (pid === undefined ? undefined : cpuSeconds(pid));
  return {
    host: of(prover.host.child.pid),
    node: of(chain.node.process.pid),
    enclave: of(prover.enclave.child.pid),
  };
}

const cpuUsed = (after: ProcessCpu, before: ProcessCpu): ProcessCpu => {
  const used = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a - b;
  return {
    host: used(after.host, before.host),
    node: used(after.node, before.node),
    enclave: used(after.enclave, before.enclave),
  };
};

const cpuText = (cpu: ProcessCpu): string =>
  (["host", "node", "enclave"] as const)
    .map((name) => `${name} ${cpu[name] === undefined ? "?" : cpu[name]!.toFixed(1)}`)
    .join(", ");

/** Base's proposals carry a root every 30 blocks; shorter ranges every 10 (or every block). */
const intervalFor = (blocks: number): number => (blocks % 30 === 0 ? 30 : blocks % 10 === 0 ? 10 : 1);

const L2_BLOCK_SECONDS = 2;
/** Generous: on a loaded 2-core machine each blob's KZG check and each big block cost seconds of CPU. */
const SAFE_TIMEOUT_MS = 3_600_000;
/** A 600-block range at the target outlasts any short bound on a loaded machine. */
const PROVE_TIMEOUT_SECONDS = 7200;

async function startProver(
  chain: LoadChain,
  workers: number,
  witnessWorkers: number | undefined,
  witnessRun: string | undefined,
  maxBlocksPerFrame: number | undefined,
): Promise<Prover> {
  // The heap the enclave sizes its request budget by (half of it): big blocks make big frames.
  const enclave = await startEnclave(["--rollup-config", chain.rollupPath, "--workers", String(workers)], {
    nodeFlags: ["--max-old-space-size=8192"],
  });
  if (enclave.address.kind !== "unix") throw new Error("expected a Unix socket enclave");
  const proxy = await startTamperProxy(enclave.address.path);
  const host = await startHost([
    ...witnessHostArgs(chain, proxy.path, "127.0.0.1:0"),
    ...["--workers", String(workers), "--proof-request-timeout", String(PROVE_TIMEOUT_SECONDS)],
    ...(witnessWorkers === undefined ? [] : ["--witness-workers", String(witnessWorkers)]),
    ...(witnessRun === undefined ? [] : ["--witness-run", witnessRun]),
    ...(maxBlocksPerFrame === undefined ? [] : ["--max-blocks-per-frame", String(maxBlocksPerFrame)]),
  ]);
  // Frames are summarised as they pass (proveOnce): a 600-block range's frames are not all held here.
  proxy.keepExchanges = false;
  const pool = workers > 1 ? new BlockPool({ workers }) : undefined;
  await pool?.start();
  return { workers, witnessRun, enclave, proxy, host, pool };
}

async function stopProver(prover: Prover): Promise<void> {
  await prover.host.stop();
  await prover.proxy.close();
  await prover.enclave.stop();
  await prover.pool?.close();
}

/** Gas used and transactions of blocks (agreed, claimed]. */
async function rangeLoad(
  nodeUrl: string,
  request: RangeRequest,
): Promise<{ gas: number; transactions: number }> {
  let gas = 0;
  let transactions = 0;
  for (let n = request.agreed + 1; n <= request.claimed; n++) {
    const block = await rpc<{ gasUsed: string; transactions: unknown[] }>(nodeUrl, "eth_getBlockByNumber", [
      `0x${n.toString(16)}`,
      false,
    ]);
    gas += Number(block.gasUsed);
    transactions += block.transactions.length;
  }
  return { gas, transactions };
}

async function proveOnce(
  chain: LoadChain,
  prover: Prover,
  request: RangeRequest,
  load: { gas: number; transactions: number },
): Promise<RunFigures> {
  const pid = prover.enclave.child.pid!;
  const peakReset = resetPeakRss(pid);
  const logsBefore = prover.host.logs.length;
  const enclaveLogsBefore = prover.enclave.logs.length;
  const frames: { preimages: number; frameBytes: number; hostFrameMs: number; enclaveMs: number }[] = [];
  let firstFrame: readonly Preimage[] | undefined;
  let aggregateMs: number | undefined;
  prover.proxy.onExchange = (exchange) => {
    if (exchange.request.kind === "Aggregate") aggregateMs = exchange.enclaveMs;
    if (exchange.request.kind !== "Prove") return;
    // Only the figures: an exchange holds its whole decoded frame (some 500 000 preimages at this gas).
    const { frameBytes, hostFrameMs, enclaveMs } = exchange;
    frames.push({ preimages: exchange.request.preimages.length, frameBytes, hostFrameMs, enclaveMs });
    // Only a range proved in one frame is replayed: the first frame is kept until a second one shows there are more.
    firstFrame = frames.length === 1 ? exchange.request.preimages : undefined;
  };
  const cpuBefore = processCpu(chain, prover);
  const t0 = performance.now();
  const proof = await rpc<ProveResultJson>(
    prover.host.url,
    "prover_prove",
    [request.params],
    PROVE_TIMEOUT_SECONDS * 1000,
  );
  const totalMs = performance.now() - t0;
  const cpu = cpuUsed(processCpu(chain, prover), cpuBefore);
  prover.proxy.onExchange = undefined;
  const enclavePeakRssMiB = peakRssMiB(pid);
  if (proof.Tee.proposals.at(-1)?.output_root !== request.roots.at(-1))
    throw new Error(`the proof's last root is not the node's at ${request.claimed}`);
  if (frames.length === 0) throw new Error("no Prove frame seen");
  const witnesses = prover.host.logs.slice(logsBefore).filter((line) => line.msg === "witness collected");
  const witness = witnesses[0] ?? {};
  const executed = prover.enclave.logs
    .slice(enclaveLogsBefore)
    .filter((line) => line.msg === "range executed");
  const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
  const stages =
    firstFrame === undefined
      ? { verifyMs: NaN, derivationMs: NaN, executionMs: NaN, signingMs: NaN, mode: "-" as const }
      : await replayStages(firstFrame, chain.rollup, prover.pool);
  if (!peakReset)
    console.log("(the enclave's peak RSS could not be reset: figures are peaks since its start)");
  const modes = [
    ...new Set(
      executed.map((line) =>
        line.mode === "parallel"
          ? "parallel"
          : `sequential${line.fallback === undefined ? "" : ` (fell back: ${String(line.fallback)})`}`,
      ),
    ),
  ];
  return {
    blocks: request.claimed - request.agreed,
    workers: prover.workers,
    witnessRun: prover.witnessRun,
    ...load,
    totalMs,
    // Summed over the frames (a frame's collection overlaps the enclave's work on the one before).
    witnessMs: sum(witnesses.map((line) => Number(line.totalMs ?? NaN))),
    preimages: sum(frames.map((f) => f.preimages)),
    frameBytes: sum(frames.map((f) => f.frameBytes)),
    transferMs: sum(frames.map((f) => f.hostFrameMs)),
    enclaveMs: sum(frames.map((f) => f.enclaveMs)) + (aggregateMs ?? 0),
    frames: frames.length,
    aggregateMs,
    ...stages,
    enclaveMode: modes.length === 0 ? "?" : modes.join(", "),
    enclavePeakRssMiB,
    hostMode:
      witness.execution === "parallel" || witness.execution === "forwarded"
        ? String(witness.execution)
        : `sequential${witness.fallback === undefined ? "" : ` (fell back: ${JSON.stringify(witness.fallback)})`}`,
    hostPeakRssMiB: mib(
      witnesses.length === 0
        ? undefined
        : Math.max(...witnesses.map((line) => Number(line.peakRssBytes ?? NaN))),
    ),
    hostWorkerHeapMiB: mib(witness.peakWorkerHeapBytes),
    cpu,
  };
}

const mib = (bytes: unknown): number | undefined => (typeof bytes === "number" ? bytes / 2 ** 20 : undefined);
const mibText = (value: number | undefined): string =>
  value === undefined ? "?" : `${value.toFixed(0)} MiB`;

/** Runs `npm run load` for the chain time `ranges` need; resolves with the first L2 block after its setup. */
function startLoad(
  chain: LoadChain,
  options: BaseLoadOptions,
  blocks: number,
): { firstLoaded: Promise<number>; report: Promise<LoadReport> } {
  let resolveFirst: (n: number) => void = () => undefined;
  let rejectFirst: (error: unknown) => void = () => undefined;
  const firstLoaded = new Promise<number>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  const run = runLoadProcess(
    [
      ...["--rpc", chain.node.url, "--gas-per-second", String(options.gasPerSecond)],
      ...["--duration", String((blocks + 4) * L2_BLOCK_SECONDS), "--senders", String(options.senders)],
      ...["--drain", "10"],
    ],
    (value) => {
      const event = value as { msg?: string; second?: number; sentGas?: number; includedGas?: number };
      if (event.msg === "load setup done") {
        console.log("  load setup done");
        void rpc<string>(chain.node.url, "eth_blockNumber", []).then(
          (n) => resolveFirst(Number(n) + 1),
          (error: unknown) => rejectFirst(error),
        );
      } else if (event.msg === "load second" && (event.second ?? 0) % 10 === 0)
        console.log(
          `  second ${event.second}: sent ${((event.sentGas ?? 0) / 1e6).toFixed(1)} Mgas, included ${((event.includedGas ?? 0) / 1e6).toFixed(1)} Mgas, load average ${loadAverage()}`,
        );
    },
  );
  const report = run.then((done) => {
    const last = done.lines.at(-1) as LoadReport | undefined;
    if (done.code !== 0 || last?.msg !== "load report")
      throw new Error(`npm run load exited with ${done.code}: ${done.stderr.slice(-2000)}`);
    return last;
  });
  report.catch(() => undefined);
  // A generator that ends before its setup is done (refused, timed out) ends the wait for its first block.
  const setupOrExit = Promise.race([
    firstLoaded,
    report.then(() => {
      throw new Error("npm run load ended before its setup was done");
    }),
  ]);
  return { firstLoaded: setupOrExit, report };
}

/** What the node's witness records (src/node/witness-record.ts) hold on disk: blocks, and bytes per block. */
function witnessRecordsLine(nodeDataDir: string): string {
  const db = new Database(join(nodeDataDir, "chain.sqlite"), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        "SELECT count(*) AS n, sum(length(reads)) AS reads, sum(length(keys)) AS keys FROM witness_records",
      )
      .get() as { n: number; reads: number | null; keys: number | null };
    if (row.n === 0) return "the node's witness records: none (--witness-window 0)";
    const bytes = (row.reads ?? 0) + (row.keys ?? 0);
    return `the node's witness records: ${row.n} blocks, ${(bytes / row.n / 1024).toFixed(0)} KiB per block (${((row.reads ?? 0) / row.n / 32).toFixed(0)} values read per block), ${(bytes / 2 ** 20).toFixed(1)} MiB in all`;
  } finally {
    db.close();
  }
}

const mgasPerSecond = (gas: number, ms: number): string =>
  Number.isFinite(ms) && ms > 0 ? (gas / 1e6 / (ms / 1000)).toFixed(1) : "?";
const seconds = (ms: number): string => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : "?");

function printFigures(figures: readonly RunFigures[]): void {
  const stage = (f: RunFigures, ms: number) => `${seconds(ms)} (${mgasPerSecond(f.gas, ms)})`;
  console.log(
    "| blocks (interval) | workers | gas (per block) | txs | prover_prove | proven Mgas/s | witness (Mgas/s) | transfer | enclave round trip (Mgas/s) | verify | derive | execute (Mgas/s) | sign | enclave executed | enclave peak RSS | host executed | host peak RSS (worker heap) | CPU s (host, node, enclave) |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const f of figures)
    console.log(
      `| ${f.blocks} (${intervalFor(f.blocks)}) | ${f.workers}${f.witnessRun === undefined ? "" : ` (${f.witnessRun})`} | ${(f.gas / 1e6).toFixed(0)} M (${(f.gas / f.blocks / 1e6).toFixed(1)} M) | ${f.transactions} | ${seconds(f.totalMs)} | ${mgasPerSecond(f.gas, f.totalMs)} | ${stage(f, f.witnessMs)} | ${seconds(f.transferMs)} (${(f.frameBytes / 2 ** 20).toFixed(0)} MiB, ${f.preimages} preimages${f.frames > 1 ? `, ${f.frames} frames` : ""}) | ${stage(f, f.enclaveMs)}${f.aggregateMs === undefined ? "" : `, Aggregate ${seconds(f.aggregateMs)}`} | ${stage(f, f.verifyMs)} | ${stage(f, f.derivationMs)} | ${stage(f, f.executionMs)} [${f.mode}] | ${seconds(f.signingMs)} | ${f.enclaveMode} | ${mibText(f.enclavePeakRssMiB)} | ${f.hostMode} | ${mibText(f.hostPeakRssMiB)} (${mibText(f.hostWorkerHeapMiB)}) | ${cpuText(f.cpu)} |`,
    );
  for (const blocks of new Set(figures.map((f) => f.blocks)))
    for (const witnessRun of new Set(figures.map((f) => f.witnessRun))) {
      const runs = figures
        .filter((f) => f.blocks === blocks && f.witnessRun === witnessRun)
        .sort((a, b) => a.workers - b.workers);
      if (runs.length < 2) continue;
      const [few, many] = [runs[0]!, runs.at(-1)!];
      console.log(
        `${blocks} blocks${witnessRun === undefined ? "" : ` (--witness-run ${witnessRun})`}, ${few.workers} → ${many.workers} workers: end to end ${(few.totalMs / many.totalMs).toFixed(2)}×, the enclave's round trip ${(few.enclaveMs / many.enclaveMs).toFixed(2)}×, the host's witness ${(few.witnessMs / many.witnessMs).toFixed(2)}×, execution replayed ${Number.isNaN(few.executionMs / many.executionMs) ? "- (not replayed: frames)" : `${(few.executionMs / many.executionMs).toFixed(2)}×`}`,
      );
    }
}

export async function benchProveBaseLoad(options: BaseLoadOptions): Promise<void> {
  const started = Date.now();
  console.log(
    `bench:prove --load base: ranges ${options.ranges.join(", ")}, workers ${options.workers.join(", ")}${options.witnessWorkers === undefined ? "" : ` (the hosts' own run on ${options.witnessWorkers})`}${options.witnessRuns === undefined ? "" : `, --witness-run ${options.witnessRuns.join(", ")}`}, gas limit ${options.gasLimit}, load ${(options.gasPerSecond / 1e6).toFixed(0)} Mgas/s`,
  );
  console.log(machineLine());
  const chain = await startLoadChain({
    gasLimit: options.gasLimit,
    l1BlockSeconds: 4,
    l2BlockSeconds: L2_BLOCK_SECONDS,
    node: {
      flashblockIntervalMs: 200,
      logLevel: "warn",
      ...(options.nodeWitnessWindow === undefined
        ? {}
        : { extraArgs: ["--witness-window", String(options.nodeWitnessWindow)] }),
    },
  });
  const batcher = startBatcher({
    l1RpcUrl: chain.l1.anvil.rpcUrl,
    l2RpcUrl: chain.node.url,
    rollupConfigPath: chain.rollupPath,
  });
  const provers: Prover[] = [];
  try {
    const total = options.ranges.reduce((sum, n) => sum + n, 0);
    const load = startLoad(chain, options, total);
    const first = await load.firstLoaded;
    const agreed = [first];
    for (const size of options.ranges) agreed.push(agreed.at(-1)! + size);
    const last = agreed.at(-1)!;
    const head = async () => Number(await rpc<string>(chain.node.url, "eth_blockNumber", []));
    await until(`L2 block ${last}`, async () => ((await head()) >= last ? true : undefined), SAFE_TIMEOUT_MS);
    const report = await load.report;
    console.log(
      `chain built: blocks ${first}…${last}, load sent ${(report.sent.gasPerSecond / 1e6).toFixed(1)} Mgas/s, included ${(report.included.gasPerSecond / 1e6).toFixed(1)} Mgas/s (${report.included.succeeded} succeeded, ${report.included.reverted} reverted), the chain sequenced ${(report.chain.gasPerSecond / 1e6).toFixed(1)} Mgas/s (${(report.chain.averageBlockGasUsed / 1e6).toFixed(1)} M per block, largest ${(report.chain.maxBlockGasUsed / 1e6).toFixed(1)} M); load average ${loadAverage()}`,
    );
    await until(
      `the safe head at ${last}`,
      async () => ((await outputAt(chain.node.url, 0)).syncStatus.safe_l2.number >= last ? true : undefined),
      SAFE_TIMEOUT_MS,
    );
    await batcher.stop();
    console.log(
      `safe at ${last} after ${((Date.now() - started) / 1000).toFixed(0)} s; load average ${loadAverage()}`,
    );
    console.log(witnessRecordsLine(chain.node.dataDir));
    for (const witnessRun of options.witnessRuns ?? [undefined])
      for (const workers of options.workers)
        provers.push(
          await startProver(chain, workers, options.witnessWorkers, witnessRun, options.maxBlocksPerFrame),
        );
    const figures: RunFigures[] = [];
    for (const [i, blocks] of options.ranges.entries()) {
      const request = await rangeRequestOn(
        { l1: chain.l1.anvil.client, l2RpcUrl: chain.node.url, chainId: chain.rollup.l2ChainId },
        agreed[i]!,
        agreed[i]! + blocks,
        intervalFor(blocks),
        l1Account(5).address,
      );
      const gas = await rangeLoad(chain.node.url, request);
      for (const prover of provers) {
        const run = await proveOnce(chain, prover, request, gas);
        figures.push(run);
        console.log(
          `  ${blocks} blocks, ${prover.workers} worker(s)${prover.witnessRun === undefined ? "" : `, --witness-run ${prover.witnessRun}`}: ${seconds(run.totalMs)}, ${mgasPerSecond(run.gas, run.totalMs)} Mgas/s proven, witness ${seconds(run.witnessMs)} (host ${run.hostMode}, peak RSS ${mibText(run.hostPeakRssMiB)}); CPU s ${cpuText(run.cpu)}; load average ${loadAverage()}`,
        );
      }
    }
    console.log();
    printFigures(figures);
    console.log(
      `load average at the end: ${loadAverage()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
    );
  } finally {
    for (const prover of provers) await stopProver(prover);
    await batcher.stop().catch(() => undefined);
    await chain.stop();
  }
}
