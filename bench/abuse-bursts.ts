/**
 * The node's abuse bursts (bench:abuse, bench:attack): heavy calls within the node's limits, one burst kind at a
 * time, while a worker thread stamps flashblock and sealed-block arrivals, so each burst's row tells whether the
 * sequencer kept its cadence (see bench/abuse.ts for what each burst sends and what the columns mean).
 */
import { readFileSync } from "node:fs";
import { Pool } from "undici";
import { createPublicClient, createWalletClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Worker } from "node:worker_threads";
import WebSocket from "ws";
import { count, type ErrorMix, postJsonRpc } from "../test/attack/rpc-post.js";
import type { NodeProcess } from "../test/node/spawn-node.js";

const ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
export const TARGET_P99 = 250;
export const TARGET_MAX = 400;
export const TARGET_BLOCK = 2200;

/** Gas burner runtime (as in bench/call-load.ts): loops while more than 256 gas is left. */
const BURNER_INIT: Hex = "0x600a80600b6000396000f35b6101005a1160005700";

/** Wall-clock milliseconds with sub-millisecond precision, comparable across threads. */
const clock = (): number => performance.timeOrigin + performance.now();

/** Opens the flashblocks and newHeads sockets on a worker thread that stamps each arrival (clock()). */
function startWatcher(
  flashblocksUrl: string,
  wsUrl: string,
  frames: number[],
  blocks: { at: number; ts: number; n: number }[],
): Worker {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const WebSocket = require("ws");
    const clock = () => performance.timeOrigin + performance.now();
    const fb = new WebSocket(workerData.flashblocksUrl);
    fb.on("message", () => parentPort.postMessage({ frame: clock() }));
    const heads = new WebSocket(workerData.wsUrl);
    heads.on("open", () =>
      heads.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] })),
    );
    heads.on("message", (data) => {
      const at = clock();
      const h = JSON.parse(data.toString()).params?.result;
      if (h !== undefined) parentPort.postMessage({ head: { at, ts: Number(h.timestamp), n: Number(h.number) } });
    });
  `;
  const worker = new Worker(code, { eval: true, workerData: { flashblocksUrl, wsUrl } });
  worker.on("message", (m: { frame?: number; head?: { at: number; ts: number; n: number } }) => {
    if (m.frame !== undefined) frames.push(m.frame);
    if (m.head !== undefined) blocks.push(m.head);
  });
  return worker;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? Number.NaN : Number(m[1]) * 1024;
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

const mb = (b: number) => `${(b / 1_048_576).toFixed(0)}`;
const f = (v: number) => (Number.isNaN(v) ? "n/a" : v.toFixed(0));

const post = postJsonRpc;

interface Ctx {
  origin: string;
  wsUrl: string;
  burner: Hex;
  head: () => number;
}

type Burst = (ctx: Ctx, pool: Pool, mix: ErrorMix, client: number, end: number) => Promise<void>;

const call = (id: number, method: string, params: unknown[]) => ({ jsonrpc: "2.0", id, method, params });

const bursts: [string, Burst][] = [
  [
    "idle",
    async (_ctx, _pool, _mix, _client, end) => {
      while (clock() < end) await sleep(100);
    },
  ],
  [
    "eth_getProof 10×1000 keys",
    async (_ctx, pool, mix, client, end) => {
      for (let i = 0; clock() < end; i++) {
        const batch = Array.from({ length: 10 }, (_, c) =>
          call(c, "eth_getProof", [
            ADDRESS,
            Array.from(
              { length: 1000 },
              (_, k) => `0x${(client * 1e7 + i * 1e4 + c * 1000 + k).toString(16).padStart(64, "0")}`,
            ),
            "latest",
          ]),
        );
        await post(pool, batch, mix);
      }
    },
  ],
  [
    "eth_getLogs 0..latest",
    async (ctx, pool, mix, _client, end) => {
      while (clock() < end) {
        const batch = Array.from({ length: 20 }, (_, c) =>
          call(c, "eth_getLogs", [{ fromBlock: "0x0", toBlock: hex(Math.max(0, ctx.head())) }]),
        );
        await post(pool, batch, mix);
      }
    },
  ],
  [
    "eth_feeHistory 1024×100",
    async (_ctx, pool, mix, _client, end) => {
      const percentiles = Array.from({ length: 100 }, (_, i) => i + 1);
      while (clock() < end) {
        const batch = Array.from({ length: 20 }, (_, c) =>
          call(c, "eth_feeHistory", ["0x400", "latest", percentiles]),
        );
        await post(pool, batch, mix);
      }
    },
  ],
  [
    "full blocks ×100",
    async (ctx, pool, mix, _client, end) => {
      while (clock() < end) {
        const head = Math.max(0, ctx.head());
        const batch = Array.from({ length: 100 }, (_, c) =>
          call(c, "eth_getBlockByNumber", [
            c === 0 ? "pending" : hex(Math.max(0, head - (c % (head + 1)))),
            true,
          ]),
        );
        await post(pool, batch, mix);
      }
    },
  ],
  [
    "eth_call flood 5M gas",
    async (ctx, pool, mix, _client, end) => {
      for (let i = 0; clock() < end; i++) {
        const batch = Array.from({ length: 16 }, (_, c) =>
          call(c, "eth_call", [
            { to: ctx.burner, gas: hex(5_000_000) },
            (i + c) % 2 === 0 ? "latest" : "pending",
          ]),
        );
        await post(pool, batch, mix);
      }
    },
  ],
  [
    "subscriptions 8 ws × 128",
    async (ctx, _pool, mix, _client, end) => {
      const sockets: WebSocket[] = [];
      const kinds = ["newHeads", "newFlashblocks", "newPendingTransactions", "logs"];
      while (sockets.length < 8 && clock() < end) {
        const ws = new WebSocket(ctx.wsUrl);
        sockets.push(ws);
        const opened = await new Promise<boolean>((resolve) => {
          ws.once("open", () => resolve(true));
          ws.once("error", () => resolve(false));
        });
        if (!opened) {
          count(mix, "transport ws");
          continue;
        }
        let pending = 0;
        const done = new Promise<void>((resolve) => {
          ws.on("message", (data: Buffer) => {
            const msg = JSON.parse(data.toString()) as { id?: number; error?: { code: number } };
            if (msg.id === undefined) return;
            count(mix, msg.error === undefined ? "ok" : String(msg.error.code));
            if (--pending === 0) resolve();
          });
          ws.once("close", () => resolve());
        });
        for (let i = 0; i < 128; i++) {
          pending++;
          const kind = kinds[i % kinds.length]!;
          ws.send(JSON.stringify(call(i, "eth_subscribe", kind === "logs" ? [kind, {}] : [kind])));
        }
        await done;
      }
      while (clock() < end) await sleep(100);
      for (const ws of sockets) ws.close();
    },
  ],
];

export interface AbuseRow {
  name: string;
  p99: number;
  max: number;
  blockArrivalMax: number;
  blockTsMax: number;
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
  mix: ErrorMix;
}

export interface AbuseOptions {
  /** Seconds per burst. */
  readonly seconds: number;
  /** Concurrent clients per burst. */
  readonly clients: number;
  /** Only the bursts whose name contains one of these words (all when empty; the idle baseline always runs). */
  readonly only: readonly string[];
  /** Called with each burst's row as it finishes. */
  readonly onRow?: (row: AbuseRow) => void;
}

/** Runs the bursts against a running node (2 s blocks, 200 ms flashblocks expected) and returns a row per burst. */
export async function runAbuseBursts(node: NodeProcess, options: AbuseOptions): Promise<AbuseRow[]> {
  const { seconds: SECONDS, clients: CLIENTS, only: ONLY } = options;
  const pid = node.process.pid!;
  {
    const account = privateKeyToAccount(node.accounts[0]!.privateKey);
    const chain = {
      id: node.chainId,
      name: "op-dev",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    } as const;
    const wallet = createWalletClient({ chain, transport: http(node.url), account });
    const client = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 });
    const receipt = await client.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ data: BURNER_INIT, gas: 100_000n }),
    });
    const burner = receipt.contractAddress!;

    // Watchers: flashblock frame arrivals, sealed block arrivals and timestamps, recorded on a worker
    // thread: this thread parses megabytes of answers during a burst, which would delay its own
    // message events and count as gaps the node never made.
    const frames: number[] = [];
    const blocks: { at: number; ts: number; n: number }[] = [];
    const watcher = startWatcher(node.flashblocksUrl, node.wsUrl, frames, blocks);
    await sleep(2500);
    let head = Number(await client.getBlockNumber());
    const ctx: Ctx = {
      origin: new URL(node.url).origin,
      wsUrl: node.wsUrl,
      burner,
      head: () => blocks.at(-1)?.n ?? head,
    };

    const rows: AbuseRow[] = [];
    const chosen = bursts.filter(
      ([name], i) => i === 0 || ONLY.length === 0 || ONLY.some((w) => name.includes(w)),
    );
    for (const [name, burst] of chosen) {
      head = ctx.head();
      const pool = new Pool(ctx.origin, {
        connections: CLIENTS,
        headersTimeout: 120_000,
        bodyTimeout: 120_000,
      });
      const mix: ErrorMix = new Map();
      const rssBefore = rssBytes(pid);
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssBytes(pid))), 100);
      const start = clock();
      const end = start + SECONDS * 1000;
      await Promise.all(Array.from({ length: CLIENTS }, (_, c) => burst(ctx, pool, mix, c, end)));
      const finished = clock();
      await sleep(1500);
      clearInterval(sampler);
      const rssAfter = rssBytes(pid);
      await pool.close();
      // Window: the burst plus its tail (requests still running after `end` count too).
      const inWindow = frames.filter((t) => t >= start && t <= finished);
      const gaps = inWindow.slice(1).map((t, i) => t - inWindow[i]!);
      const lastBefore = frames.filter((t) => t < start).at(-1);
      if (lastBefore !== undefined && inWindow.length > 0) gaps.push(inWindow[0]! - lastBefore);
      const firstAfter = frames.find((t) => t > finished);
      if (firstAfter !== undefined && inWindow.length > 0) gaps.push(firstAfter - inWindow.at(-1)!);
      const bw = blocks.filter((b) => b.at >= start && b.at <= finished + 1500);
      const prev = blocks.filter((b) => b.at < start).at(-1);
      const seq = prev === undefined ? bw : [prev, ...bw];
      const arrivalGaps = seq.slice(1).map((b, i) => b.at - seq[i]!.at);
      const tsGaps = seq.slice(1).map((b, i) => (b.ts - seq[i]!.ts) * 1000);
      const row: AbuseRow = {
        name,
        p99: percentile(gaps, 0.99),
        max: gaps.length === 0 ? Number.NaN : Math.max(...gaps),
        blockArrivalMax: arrivalGaps.length === 0 ? Number.NaN : Math.max(...arrivalGaps),
        blockTsMax: tsGaps.length === 0 ? Number.NaN : Math.max(...tsGaps),
        rssBefore,
        rssPeak,
        rssAfter,
        mix,
      };
      rows.push(row);
      options.onRow?.(row);
    }
    await watcher.terminate();
    return rows;
  }
}

const verdict = (v: number, target: number) => `${f(v)} ${!Number.isNaN(v) && v <= target ? "PASS" : "MISS"}`;

/** A burst's row of the markdown table (ABUSE_TABLE_HEADER). */
export function formatAbuseRow(r: AbuseRow): string {
  const block = Math.max(r.blockArrivalMax, r.blockTsMax);
  const mix = [...r.mix.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}: ${v}`)
    .join(", ");
  return (
    `| ${r.name} | ${verdict(r.p99, TARGET_P99)} | ${verdict(r.max, TARGET_MAX)} | ` +
    `${f(r.blockArrivalMax)} / ${f(r.blockTsMax)} ${!Number.isNaN(block) && block <= TARGET_BLOCK ? "PASS" : "MISS"} | ` +
    `${mb(r.rssBefore)} / ${mb(r.rssPeak)} / ${mb(r.rssAfter)} | ${mix === "" ? "-" : mix} |`
  );
}

/** The header of the bursts' markdown table (two lines). */
export const ABUSE_TABLE_HEADER =
  "| burst | cadence p99 ms | cadence max ms | block gap max ms (arrival / timestamp) | RSS MB before / peak / after | errors by code |\n" +
  "| --- | --- | --- | --- | --- | --- |";
