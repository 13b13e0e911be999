/**
 * bench:load — does the devnet sequence Base's target (80 M gas per 2 s block) with its 200 ms flashblock cadence
 * under `npm run load`?
 *
 * Without --rpc: starts the devnet's L1 (anvil) with SystemConfig's gas limit set to --gas-limit (what
 * `npm start -- --gas-limit` does) and a node in L1 mode (2 s blocks, 200 ms flashblocks). With --rpc: a running
 * node (e.g. `npm start -- --gas-limit 400000000`), its flashblocks at --flashblocks (default
 * ws://<host>:<port>/ws/flashblocks). Then runs `npm run load` as a process at --gas-per-second for --duration
 * seconds while a worker thread stamps every flashblocks message; prints the machine and load average, the
 * generator's report (gas sent and included per second, inclusion latency, errors), the gas the chain sequenced
 * per second and per block, the interval between consecutive flashblocks of a block (p50 / p99 / max, and p99 / max by
 * the flashblock it ends at: where in the block the late ones fall), and the CPU
 * seconds the node (one started here, read from /proc) and the generator used over the sending and draining, and the
 * latency of `eth_getBlockByNumber("latest")` sent every 25 ms meanwhile (p50 / p90 / p99 / max: a client reading
 * the head sees the node's event loop held as a run of late answers; the slow ones are counted apart when sent just
 * before a block's first flashblock, at the block boundary).
 *
 * Flags: --rpc <url>, --flashblocks <ws url>, --gas-limit <n> (default 400 000 000, Base's), --gas-per-second <n>
 * (default 40 000 000), --duration <s> (default 60), --senders <n> (default 128), --mix <kind=weight,…>.
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { type LoadChain, type LoadReport, runLoadProcess, startLoadChain } from "../test/load/load-chain.js";
import { cpuSeconds } from "./process-stats.js";

const { values } = parseArgs({
  options: {
    rpc: { type: "string" },
    flashblocks: { type: "string" },
    "gas-limit": { type: "string", default: "400000000" },
    "gas-per-second": { type: "string", default: "40000000" },
    duration: { type: "string", default: "60" },
    senders: { type: "string", default: "128" },
    mix: { type: "string" },
  },
});

interface Frame {
  payload: string;
  index: number;
  at: number;
  gasUsed: number;
  blockNumber: number;
}

/** Stamps each flashblocks message on a worker thread (this thread's work must not delay the stamps). */
function watchFlashblocks(url: string, frames: Frame[]): Worker {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const WebSocket = require("ws");
    const ws = new WebSocket(workerData.url);
    ws.on("message", (data) => {
      const at = performance.timeOrigin + performance.now();
      const text = data.toString();
      const id = /"payload_id":"(0x[0-9a-f]+)","index":(\\d+)/.exec(text);
      const gas = /"gas_used":"(0x[0-9a-f]+)"/.exec(text);
      const block = /"block_number":(\\d+)/.exec(text);
      if (id) parentPort.postMessage({ payload: id[1], index: Number(id[2]), at,
        gasUsed: gas ? Number(gas[1]) : 0, blockNumber: block ? Number(block[1]) : 0 });
    });
  `;
  const worker = new Worker(code, { eval: true, workerData: { url } });
  worker.on("message", (frame: Frame) => frames.push(frame));
  return worker;
}

/** One answer of the RPC probe: when the request was sent (epoch ms) and how long its answer took. */
interface ProbeSample {
  at: number;
  ms: number;
  ok: boolean;
}

/**
 * Sends `eth_getBlockByNumber("latest", false)` to `url` every `everyMs` on a worker thread (a request does not wait
 * for the one before: a node holding its event loop shows as a run of late answers) and notes each answer's latency:
 * what a client reading the head sees while the node sequences the load.
 */
function probeRpc(url: string, everyMs: number, samples: ProbeSample[]): Worker {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: ["latest", false] });
    let stopped = false;
    parentPort.on("message", () => { stopped = true; });
    const send = () => {
      if (stopped) return;
      const at = performance.timeOrigin + performance.now();
      const t0 = performance.now();
      fetch(workerData.url, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (res) => {
          const text = await res.text();
          parentPort.postMessage({ at, ms: performance.now() - t0, ok: res.ok && text.includes('"result"') });
        })
        .catch(() => parentPort.postMessage({ at, ms: performance.now() - t0, ok: false }));
    };
    setInterval(send, workerData.everyMs);
  `;
  const worker = new Worker(code, { eval: true, workerData: { url, everyMs } });
  worker.on("message", (sample: ProbeSample) => samples.push(sample));
  return worker;
}

/** `npm run load` with `args`, its progress on the console; its report. */
async function runGenerator(args: readonly string[], onSetupDone: () => void): Promise<LoadReport> {
  const run = await runLoadProcess(args, (value) => {
    const event = value as { msg?: string; second?: number; sentGas?: number; includedGas?: number };
    if (event.msg === "load second")
      console.log(
        `  second ${event.second}: sent ${((event.sentGas ?? 0) / 1e6).toFixed(1)} Mgas, ` +
          `included ${((event.includedGas ?? 0) / 1e6).toFixed(1)} Mgas`,
      );
    else if (event.msg === "load setup done") {
      onSetupDone();
      console.log("  setup done");
    }
  });
  const report = run.lines.at(-1) as LoadReport | undefined;
  if (run.code !== 0 || report?.msg !== "load report")
    throw new Error(`npm run load exited with ${run.code}: ${run.stderr.slice(-2000)}`);
  return report;
}

/** Nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

/** How often the RPC probe asks for the head. */
const PROBE_EVERY_MS = 25;
/** A probe sent this long before a block's flashblock 0 counts as sent at the block boundary. */
const BOUNDARY_MS = 400;

const mgas = (gas: number | undefined): string => (gas === undefined ? "-" : `${(gas / 1e6).toFixed(1)} M`);
const ms = (value: number | undefined): string => (value === undefined ? "-" : `${Math.round(value)} ms`);

async function main(): Promise<void> {
  const cpus = os.cpus();
  const load = (): string =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  console.log(
    `bench:load — ${mgas(Number(values["gas-per-second"]))}gas/s for ${values.duration} s, ` +
      `gas limit ${values.rpc === undefined ? values["gas-limit"] : "(the node's)"}; ` +
      `${cpus.length} × ${cpus[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ` +
      `Node ${process.version}, load average ${load()}`,
  );
  let chain: LoadChain | undefined;
  let worker: Worker | undefined;
  let probe: Worker | undefined;
  try {
    let rpcUrl = values.rpc;
    let flashblocksUrl = values.flashblocks;
    if (rpcUrl === undefined) {
      chain = await startLoadChain({
        gasLimit: BigInt(values["gas-limit"]),
        l1BlockSeconds: 4,
        l2BlockSeconds: 2,
        node: { flashblockIntervalMs: 200, logLevel: "warn" },
      });
      rpcUrl = chain.node.url;
      flashblocksUrl = chain.node.flashblocksUrl;
      console.log(`node ${rpcUrl} (L1 mode, 2 s blocks, 200 ms flashblocks), flashblocks ${flashblocksUrl}`);
    }
    flashblocksUrl ??= `${rpcUrl.replace(/^http/, "ws").replace(/\/$/, "")}/ws/flashblocks`;
    const frames: Frame[] = [];
    worker = watchFlashblocks(flashblocksUrl, frames);
    // The node's CPU over the generator's sending and draining (a node started here: its pid is known).
    const nodePid = chain?.node.process.pid;
    let nodeCpuAtStart: number | undefined;
    let windowStart = 0;
    const probeSamples: ProbeSample[] = [];
    const report = await runGenerator(
      [
        ...["--rpc", rpcUrl, "--gas-per-second", values["gas-per-second"], "--duration", values.duration],
        ...["--senders", values.senders, "--drain", "20"],
        ...(values.mix === undefined ? [] : ["--mix", values.mix]),
      ],
      () => {
        nodeCpuAtStart = nodePid === undefined ? undefined : cpuSeconds(nodePid);
        windowStart = performance.now();
        probe = probeRpc(rpcUrl, PROBE_EVERY_MS, probeSamples);
      },
    );
    const nodeCpuAtEnd = nodePid === undefined ? undefined : cpuSeconds(nodePid);
    const windowSeconds = (performance.now() - windowStart) / 1000;
    await worker.terminate();
    worker = undefined;
    // The probe's last requests get their answers before it stops (a terminated worker drops them).
    probe?.postMessage("stop");
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await probe?.terminate();
    probe = undefined;

    // Flashblocks of the blocks sealed while the load ran (the generator's report names them by count).
    const byPayload = new Map<string, Frame[]>();
    for (const f of frames) byPayload.set(f.payload, [...(byPayload.get(f.payload) ?? []), f]);
    const intervals: number[] = [];
    /** The intervals by the index of the flashblock they end at (where in the block the tail is). */
    const intervalsByIndex = new Map<number, number[]>();
    const blockGas: number[] = [];
    for (const list of byPayload.values()) {
      list.sort((a, b) => a.index - b.index);
      for (let i = 1; i < list.length; i++)
        if (list[i]!.index === list[i - 1]!.index + 1) {
          const interval = list[i]!.at - list[i - 1]!.at;
          intervals.push(interval);
          const atIndex = intervalsByIndex.get(list[i]!.index);
          if (atIndex === undefined) intervalsByIndex.set(list[i]!.index, [interval]);
          else atIndex.push(interval);
        }
      blockGas.push(list[list.length - 1]!.gasUsed);
    }
    const busy = blockGas.filter((g) => g > 1_000_000);
    console.log(`\ngenerator (${report.senders} senders, ${JSON.stringify(report.target.mix)}):`);
    console.log(
      `  sent ${mgas(report.sent.gasPerSecond)}gas/s (${report.sent.transactions} transactions), included ` +
        `${mgas(report.included.gasPerSecond)}gas/s (${report.included.transactions}: ${report.included.succeeded} ` +
        `succeeded, ${report.included.reverted} reverted)`,
    );
    console.log(
      `  inclusion latency p50 ${ms(report.inclusionLatencyMs.p50)}, p99 ${ms(report.inclusionLatencyMs.p99)}, ` +
        `max ${ms(report.inclusionLatencyMs.max)}; errors ${JSON.stringify(report.errors)}`,
    );
    console.log(
      `chain: ${report.chain.blocks} blocks, gas limit ${report.chain.gasLimit}, sequenced ` +
        `${mgas(report.chain.gasPerSecond)}gas/s, per block average ${mgas(report.chain.averageBlockGasUsed)}, ` +
        `max ${mgas(report.chain.maxBlockGasUsed)}`,
    );
    console.log(
      `flashblocks: ${frames.length} messages of ${byPayload.size} blocks (${busy.length} with load); interval ` +
        `p50 ${ms(percentile(intervals, 50))}, p99 ${ms(percentile(intervals, 99))}, max ${ms(percentile(intervals, 100))}`,
    );
    console.log(
      `  interval p99 / max by the flashblock it ends at: ` +
        [...intervalsByIndex.entries()]
          .sort(([a], [b]) => a - b)
          .map(([index, list]) => `${index}: ${ms(percentile(list, 99))} / ${ms(percentile(list, 100))}`)
          .join(", "),
    );
    const probeMs = probeSamples.filter((p) => p.ok).map((p) => p.ms);
    // Where the slow answers fall: sent within BOUNDARY_MS before a block's first flashblock (the seal of the block
    // before, its commit and the next block's start happen then), or inside a block.
    const blockStarts = frames
      .filter((f) => f.index === 0)
      .map((f) => f.at)
      .sort((a, b) => a - b);
    const slow = probeSamples.filter((p) => p.ok && p.ms > 100);
    const atBoundary = slow.filter((p) => {
      const next = blockStarts.find((at) => at >= p.at);
      return next !== undefined && next - p.at <= BOUNDARY_MS;
    }).length;
    console.log(
      `RPC probe (eth_getBlockByNumber latest every ${PROBE_EVERY_MS} ms while sending and draining): ` +
        `${probeMs.length} answered, ${probeSamples.length - probeMs.length} failed; latency p50 ` +
        `${ms(percentile(probeMs, 50))}, p90 ${ms(percentile(probeMs, 90))}, p99 ${ms(percentile(probeMs, 99))}, ` +
        `max ${ms(percentile(probeMs, 100))}; over 50 ms ${probeMs.filter((v) => v > 50).length}, over 100 ms ` +
        `${slow.length} (${atBoundary} of them sent in the ${BOUNDARY_MS} ms before a block's flashblock 0)`,
    );
    const sequencedGas = report.chain.averageBlockGasUsed * report.chain.blocks;
    if (nodeCpuAtStart !== undefined && nodeCpuAtEnd !== undefined) {
      const nodeCpu = nodeCpuAtEnd - nodeCpuAtStart;
      console.log(
        `CPU over the ${windowSeconds.toFixed(0)} s of sending and draining: node ${nodeCpu.toFixed(1)} s ` +
          `(${((100 * nodeCpu) / windowSeconds).toFixed(0)} % of a core), generator ` +
          `${report.generatorCpuSeconds.toFixed(1)} s; the node sequenced ` +
          `${mgas(nodeCpu > 0 ? sequencedGas / nodeCpu : undefined)}gas per CPU second it got`,
      );
    }
    // Base's target: 80 M gas per 2 s block (40 Mgas/s) with flashblocks every 200 ms, p99 within 250 ms.
    const p99 = percentile(intervals, 99);
    const sequencedPerBlock = report.chain.averageBlockGasUsed;
    console.log(
      `Base's target (80 M gas per 2 s block, flashblock interval p99 ≤ 250 ms): ${mgas(sequencedPerBlock)} gas per ` +
        `block sequenced (${sequencedPerBlock >= 80e6 ? "met" : "NOT met"}), p99 ${ms(p99)} ` +
        `(${p99 !== undefined && p99 <= 250 ? "met" : "NOT met"})`,
    );
    console.log(`load average at the end ${load()}`);
  } finally {
    await worker?.terminate();
    await probe?.terminate();
    await chain?.stop();
  }
}

await main();
