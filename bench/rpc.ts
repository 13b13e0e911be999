/**
 * bench:rpc — the chain node against Hardhat's node (hardhat 2.29, EDR) on the same machine.
 *
 * For each call (eth_getBalance latest/pending, eth_getBlockByNumber latest/pending with hashes and
 * with full transactions) N keep-alive HTTP clients (undici Pool, one connection each) send requests
 * back to back for BENCH_SECONDS; printed: requests/s, p50 and p99 latency per node and the ratios.
 * Then the delay from a snapshot's creation (X-Flashblock-Created-At, set when the snapshot becomes
 * the pending view) to the first eth_getBlockByNumber("pending") response that shows it, seen by a
 * client polling back to back.
 *
 * Env: BENCH_SECONDS (default 3), BENCH_CONCURRENCY (default 16), BENCH_SKIP_HARDHAT=1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { startNodeProcess } from "../test/node/spawn-node.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SKIP_HARDHAT = process.env.BENCH_SKIP_HARDHAT === "1";
const ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

interface Workload {
  name: string;
  body: string;
}

const WORKLOADS: Workload[] = [
  ["eth_getBalance latest", "eth_getBalance", [ADDRESS, "latest"]],
  ["eth_getBalance pending", "eth_getBalance", [ADDRESS, "pending"]],
  ["eth_getBlockByNumber latest (hashes)", "eth_getBlockByNumber", ["latest", false]],
  ["eth_getBlockByNumber pending (hashes)", "eth_getBlockByNumber", ["pending", false]],
  ["eth_getBlockByNumber latest (full)", "eth_getBlockByNumber", ["latest", true]],
  ["eth_getBlockByNumber pending (full)", "eth_getBlockByNumber", ["pending", true]],
].map(([name, method, params]) => ({
  name: name as string,
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
}));

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run(url: string, w: Workload, seconds = SECONDS): Promise<Result> {
  const origin = new URL(url).origin;
  const pool = new Pool(origin, { connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const send = async () => {
    const res = await pool.request({
      path: "/",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: w.body,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes('"result"')) errors++;
  };
  // Warm up.
  for (let i = 0; i < 50; i++) await send();
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      await send();
      latencies.push(performance.now() - t);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

async function startHardhat(): Promise<{ url: string; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(os.tmpdir(), "hardhat-bench-"));
  writeFileSync(join(dir, "hardhat.config.cjs"), "module.exports = {};\n");
  writeFileSync(join(dir, "package.json"), "{}\n");
  // Hardhat refuses to run from an installation outside the project: link ours in.
  symlinkSync(fileURLToPath(new URL("../node_modules", import.meta.url)), join(dir, "node_modules"), "dir");
  const port = await freePort();
  const cli = fileURLToPath(new URL("../node_modules/hardhat/internal/cli/cli.js", import.meta.url));
  const child = spawn(
    process.execPath,
    [
      cli,
      "--config",
      join(dir, "hardhat.config.cjs"),
      "node",
      "--hostname",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true" },
    },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`hardhat did not start:\n${out}`));
    }, 60_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("Started HTTP")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => reject(new Error(`hardhat exited (${code}):\n${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, dir };
}

async function snapshotVisibility(
  url: string,
): Promise<{ snapshots: number; p50: number; p99: number; max: number }> {
  const seen = new Map<string, number>();
  const end = performance.now() + SECONDS * 1000;
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "eth_getBlockByNumber",
    params: ["pending", false],
  });
  const pool = new Pool(new URL(url).origin, { connections: 1 });
  let first = true;
  while (performance.now() < end) {
    const res = await pool.request({
      path: "/",
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    await res.body.text();
    const at = performance.timeOrigin + performance.now();
    const created = res.headers["x-flashblock-created-at"];
    const key = `${res.headers["x-pending-block"]}/${res.headers["x-flashblock-index"]}`;
    // The snapshot current when polling starts was created before we looked: skip it.
    if (first) {
      seen.set(key, Number.NaN);
      first = false;
    }
    if (typeof created === "string" && !seen.has(key)) seen.set(key, at - Number(created));
  }
  await pool.close();
  const delays = [...seen.values()].filter((d) => !Number.isNaN(d)).sort((a, b) => a - b);
  return {
    snapshots: delays.length,
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    max: delays[delays.length - 1] ?? Number.NaN,
  };
}

const fmt = (n: number, digits = 2) => (Number.isNaN(n) ? "-" : n.toFixed(digits));

async function main(): Promise<void> {
  console.log(
    `bench:rpc — ${SECONDS}s per call, ${CONCURRENCY} keep-alive clients; ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const node = await startNodeProcess({ logLevel: "warn" });
  let hardhat: Awaited<ReturnType<typeof startHardhat>> | undefined;
  try {
    hardhat = SKIP_HARDHAT ? undefined : await startHardhat();
    // Warm both servers (JIT, caches) on every call before measuring.
    for (const w of WORKLOADS) {
      await run(node.url, w, 0.5);
      if (hardhat !== undefined) await run(hardhat.url, w, 0.5);
    }
    const rows: string[] = [];
    rows.push(
      "| call | node req/s | node p50 ms | node p99 ms | hardhat req/s | hardhat p50 ms | hardhat p99 ms | throughput ratio | p99 ratio (hardhat/node) |",
    );
    rows.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const w of WORKLOADS) {
      const ours = await run(node.url, w);
      const theirs = hardhat === undefined ? undefined : await run(hardhat.url, w);
      if (ours.errors > 0 || (theirs?.errors ?? 0) > 0)
        console.warn(`${w.name}: errors node ${ours.errors}, hardhat ${theirs?.errors}`);
      rows.push(
        `| ${w.name} | ${fmt(ours.rps, 0)} | ${fmt(ours.p50)} | ${fmt(ours.p99)} | ${fmt(theirs?.rps ?? Number.NaN, 0)} | ${fmt(theirs?.p50 ?? Number.NaN)} | ${fmt(theirs?.p99 ?? Number.NaN)} | ${theirs ? `${fmt(ours.rps / theirs.rps)}×` : "-"} | ${theirs ? `${fmt(theirs.p99 / ours.p99)}×` : "-"} |`,
      );
      console.log(rows[rows.length - 1]);
    }
    console.log(`\n${rows.join("\n")}\n`);
    const v = await snapshotVisibility(node.url);
    console.log(
      `snapshot creation -> visible via eth_getBlockByNumber("pending") (one client polling back to back): ${v.snapshots} snapshots, p50 ${fmt(v.p50)} ms, p99 ${fmt(v.p99)} ms, max ${fmt(v.max)} ms`,
    );
  } finally {
    await node.stop();
    if (hardhat !== undefined) {
      hardhat.child.kill("SIGTERM");
      rmSync(hardhat.dir, { recursive: true, force: true });
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
