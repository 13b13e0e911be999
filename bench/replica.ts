/**
 * bench:replica — how far behind its leader does a read replica (`--follow`, docs/node/replicas.md "Read replicas") run?
 *
 * Starts a leader node process (2 s blocks, 200 ms snapshots) and sends transfers to it at BENCH_TPS from four
 * development accounts until BENCH_PRELOAD_BLOCKS blocks carry them; then starts a replica and times its
 * catch-up (from its "node ready" line to holding the leader's head of that moment: blocks and transactions
 * re-executed per second). Then, for BENCH_SECONDS, transfers keep flowing (half of them sent to the replica,
 * which forwards them) while a worker thread of the bench stamps the arrival of every flashblocks message on both
 * streams and of every newHeads: per message, the replica's arrival minus the leader's (p50 / p99 / max), the
 * messages the replica streamed that are byte-identical to the leader's, the ones it did not stream, the sealed
 * blocks' lag, and both processes' RSS.
 *
 * Env: BENCH_SECONDS (default 20), BENCH_TPS (default 40), BENCH_PRELOAD_BLOCKS (default 30).
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { Worker } from "node:worker_threads";
import { type Hex, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { call, freePort, hexNumber } from "../test/node/helpers.js";
import { type NodeProcess, startNodeProcess } from "../test/node/spawn-node.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const TPS = Number(process.env.BENCH_TPS ?? 40);
const PRELOAD_BLOCKS = Number(process.env.BENCH_PRELOAD_BLOCKS ?? 30);
const SENDERS = [1, 2, 3, 4];

const clock = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? 0 : Math.round(Number(m[1]) / 1024);
}

/** The node process itself (spawn-node runs `node --import tsx …` directly, so it is the child). */
const pidOf = (p: NodeProcess): number => p.process.pid!;

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * Sends transfers at BENCH_TPS (each sender its own loop at an equal share) over `targets()` in turn until
 * `until()`, counting them.
 */
async function sendLoad(
  leader: NodeProcess,
  targets: () => string[],
  until: () => boolean,
  counts: { sent: number; refused: number },
): Promise<void> {
  const interval = (1000 * SENDERS.length) / TPS;
  await Promise.all(
    SENDERS.map(async (sender) => {
      const account = privateKeyToAccount(leader.accounts[sender]!.privateKey);
      let nonce = 0;
      let next = clock();
      while (!until()) {
        const raw = await account.signTransaction({
          chainId: leader.chainId,
          type: "eip1559",
          nonce,
          to: "0x000000000000000000000000000000000000dEaD",
          value: 1n,
          gas: 21_000n,
          maxFeePerGas: parseGwei("10"),
          maxPriorityFeePerGas: parseGwei("1"),
        });
        const urls = targets();
        const url = urls[(counts.sent + sender) % urls.length]!;
        const r = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] }),
        }).then((res) => res.json() as Promise<{ error?: unknown }>);
        if (r.error === undefined) nonce++;
        else counts.refused++;
        counts.sent++;
        // Never more than one interval behind: a slow answer is not made up for with a burst.
        next = Math.max(next + interval, clock() - interval);
        const wait = next - clock();
        if (wait > 0) await sleep(wait);
      }
    }),
  );
}

interface Arrival {
  stream: "leader" | "replica";
  key: string;
  at: number;
  text: string;
}
interface HeadArrival {
  stream: "leader" | "replica";
  n: number;
  at: number;
}

/** Stamps flashblocks messages and newHeads of both nodes on a worker thread. */
function startWatcher(
  leader: NodeProcess,
  replica: NodeProcess,
  frames: Arrival[],
  heads: HeadArrival[],
): Worker {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const WebSocket = require("ws");
    const clock = () => performance.timeOrigin + performance.now();
    for (const [stream, urls] of Object.entries(workerData)) {
      const fb = new WebSocket(urls.flashblocks);
      fb.on("message", (data) => {
        const at = clock();
        const text = data.toString();
        const m = /"payload_id":"(0x[0-9a-f]+)","index":(\\d+)/.exec(text);
        if (m) parentPort.postMessage({ frame: { stream, key: m[1] + "/" + m[2], at, text } });
      });
      const ws = new WebSocket(urls.ws);
      ws.on("open", () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] })));
      ws.on("message", (data) => {
        const at = clock();
        const h = JSON.parse(data.toString()).params?.result;
        if (h !== undefined) parentPort.postMessage({ head: { stream, n: Number(h.number), at } });
      });
    }
  `;
  const worker = new Worker(code, {
    eval: true,
    workerData: {
      leader: { flashblocks: leader.flashblocksUrl, ws: leader.wsUrl },
      replica: { flashblocks: replica.flashblocksUrl, ws: replica.wsUrl },
    },
  });
  worker.on("message", (m: { frame?: Arrival; head?: HeadArrival }) => {
    if (m.frame !== undefined) frames.push(m.frame);
    if (m.head !== undefined) heads.push(m.head);
  });
  return worker;
}

async function main(): Promise<void> {
  const cpus = os.cpus();
  console.log(
    `bench:replica — ${TPS} transfers/s, ${PRELOAD_BLOCKS} blocks before the replica, ${SECONDS} s live; ` +
      `${cpus.length} × ${cpus[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ` +
      `Node ${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
  );
  const leader = await startNodeProcess({ port: await freePort(), logLevel: "warn" });
  let replica: NodeProcess | undefined;
  try {
    const firstBlock = BigInt(await call<Hex>(leader.url, "eth_blockNumber", []));
    let targets = [leader.url];
    let stop = false;
    const counts = { sent: 0, refused: 0 };
    const load = sendLoad(
      leader,
      () => targets,
      () => stop,
      counts,
    );
    while (BigInt(await call<Hex>(leader.url, "eth_blockNumber", [])) < firstBlock + BigInt(PRELOAD_BLOCKS))
      await sleep(200);

    // Catch-up: a fresh replica re-executes every block the leader holds.
    const target = BigInt(await call<Hex>(leader.url, "eth_blockNumber", []));
    const started = clock();
    replica = await startNodeProcess({ extraArgs: ["--follow", leader.wsUrl], logLevel: "warn" });
    const ready = clock();
    while (
      (await call<{ hash: Hex } | null>(replica.url, "eth_getBlockByNumber", [hexNumber(target), false])) ===
      null
    )
      await sleep(20);
    const caughtUp = clock();
    let txs = 0;
    for (let n = 1n; n <= target; n++)
      txs += Number(await call<Hex>(leader.url, "eth_getBlockTransactionCountByNumber", [hexNumber(n)]));
    const catchUpS = (caughtUp - ready) / 1000;
    console.log(
      `catch-up: ${target} blocks (${txs} transactions, L1 info deposits included) in ${catchUpS.toFixed(2)} s after ready ` +
        `(${(Number(target) / catchUpS).toFixed(0)} blocks/s, ${(txs / catchUpS).toFixed(0)} tx/s; start-up ${((ready - started) / 1000).toFixed(2)} s)`,
    );

    // The blocks sealed during the catch-up too, before the live phase is timed.
    for (;;) {
      const [l, r] = await Promise.all([
        call<Hex>(leader.url, "eth_blockNumber", []),
        call<Hex>(replica.url, "eth_blockNumber", []),
      ]);
      if (BigInt(r) >= BigInt(l)) break;
      await sleep(50);
    }

    // Live: both streams stamped while transfers go to the leader and, forwarded, through the replica.
    const frames: Arrival[] = [];
    const heads: HeadArrival[] = [];
    const watcher = startWatcher(leader, replica, frames, heads);
    await sleep(1000);
    targets = [leader.url, replica.url];
    const rss = { leader: [rssMb(pidOf(leader))], replica: [rssMb(pidOf(replica))] };
    const sampler = setInterval(() => {
      rss.leader.push(rssMb(pidOf(leader)));
      rss.replica.push(rssMb(pidOf(replica!)));
    }, 250);
    const liveStart = clock();
    const before = { ...counts };
    await sleep(SECONDS * 1000);
    stop = true;
    await load;
    const sent = counts.sent - before.sent;
    const refused = counts.refused - before.refused;
    await sleep(2500); // the last block seals and reaches both
    clearInterval(sampler);
    await watcher.terminate();

    const leaderFrames = new Map<string, Arrival>();
    for (const f of frames) if (f.stream === "leader" && f.at >= liveStart) leaderFrames.set(f.key, f);
    const replicaFrames = new Map<string, Arrival>();
    for (const f of frames) if (f.stream === "replica") replicaFrames.set(f.key, f);
    const lags: number[] = [];
    let identical = 0;
    let missing = 0;
    for (const [key, l] of leaderFrames) {
      const r = replicaFrames.get(key);
      if (r === undefined) {
        missing++;
        if (process.env.BENCH_DEBUG !== undefined) console.log(`not streamed: ${key}`);
        continue;
      }
      lags.push(r.at - l.at);
      if (r.text === l.text) identical++;
    }
    lags.sort((a, b) => a - b);
    const leaderHeads = new Map(
      heads.filter((h) => h.stream === "leader" && h.at >= liveStart).map((h) => [h.n, h.at]),
    );
    const headLags: number[] = [];
    for (const h of heads)
      if (h.stream === "replica" && leaderHeads.has(h.n)) headLags.push(h.at - leaderHeads.get(h.n)!);
    headLags.sort((a, b) => a - b);
    const ms = (v: number) => v.toFixed(1);
    console.log(
      `live ${SECONDS} s: ${sent} transfers sent (${refused} refused), half through the replica; ` +
        `${leaderFrames.size} leader flashblocks, ${lags.length} streamed by the replica (${identical} byte-identical), ${missing} not streamed`,
    );
    console.log(
      `flashblock lag (replica arrival − leader arrival, ms): p50 ${ms(quantile(lags, 0.5))}, p99 ${ms(quantile(lags, 0.99))}, max ${ms(lags.at(-1) ?? Number.NaN)}`,
    );
    console.log(
      `sealed block lag (newHeads, ms) over ${headLags.length} blocks: p50 ${ms(quantile(headLags, 0.5))}, max ${ms(headLags.at(-1) ?? Number.NaN)}`,
    );
    console.log(
      `RSS MB: leader ${rss.leader[0]} → peak ${Math.max(...rss.leader)}; replica ${rss.replica[0]} → peak ${Math.max(...rss.replica)}; load at the end ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    if (process.env.BENCH_DEBUG !== undefined)
      for (const line of replica.output().split("\n")) if (line.includes('"level":"warn"')) console.log(line);
  } finally {
    await replica?.stop();
    await leader.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
