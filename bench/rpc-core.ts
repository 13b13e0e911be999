/**
 * Benchmark of the JSON-RPC server core alone: requests/s and latency percentiles of a trivial
 * method (test_add) under N concurrent clients, each with its own connection, sending one request
 * at a time: HTTP keep-alive (undici Pool) and websocket (ws).
 * The server runs in its own process so client and server do not share one event loop.
 *
 *   npm run bench:rpc-core                      # defaults
 *   BENCH_SECONDS=10 BENCH_CONCURRENCY=1,32 npm run bench:rpc-core
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { once } from "node:events";
import { Pool } from "undici";
import WebSocket from "ws";

const seconds = Number(process.env.BENCH_SECONDS ?? "5");
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,16,64").split(",").map(Number);
const warmupMs = 1000;

const fixture = fileURLToPath(new URL("../src/rpc/test/serve-fixture.ts", import.meta.url));

/** CPU seconds (user + system) used so far by a process, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of stat; index 11 and 12 after the command name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function startServer(): Promise<{ port: number; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", fixture], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "warn" },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /port=(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`server exited early with ${code}`)));
  });
  return {
    port,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

interface RunResult {
  readonly concurrency: number;
  readonly requests: number;
  readonly errors: number;
  readonly seconds: number;
  readonly latenciesMs: Float64Array;
}

/** Sends one request body and resolves to the response text. */
type Call = (body: string) => Promise<string>;

interface Transport {
  readonly name: string;
  /** Opens `count` clients, each with its own connection. */
  open(port: number, count: number): Promise<{ calls: Call[]; close: () => Promise<void> }>;
}

const httpTransport: Transport = {
  name: "HTTP POST (undici Pool, keep-alive)",
  async open(port, count) {
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: count, pipelining: 1 });
    const call: Call = async (body) => {
      const response = await pool.request({
        path: "/",
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const text = await response.body.text();
      return response.statusCode === 200 ? text : `HTTP ${response.statusCode}`;
    };
    return { calls: Array.from({ length: count }, () => call), close: () => pool.close() };
  },
};

const websocketTransport: Transport = {
  name: "websocket (ws, one connection per client)",
  async open(port, count) {
    const sockets = await Promise.all(
      Array.from({ length: count }, async () => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
        await once(socket, "open");
        return socket;
      }),
    );
    const calls = sockets.map((socket): Call => {
      let pending: ((text: string) => void) | undefined;
      socket.on("message", (data: Buffer) => pending?.(data.toString()));
      return (body) =>
        new Promise((resolve) => {
          pending = resolve;
          socket.send(body);
        });
    });
    const close = async (): Promise<void> => {
      await Promise.all(
        sockets.map((socket) => {
          const closed = once(socket, "close");
          socket.close();
          return closed;
        }),
      );
    };
    return { calls, close };
  },
};

async function run(
  transport: Transport,
  port: number,
  concurrency: number,
  durationMs: number,
  record: boolean,
): Promise<RunResult> {
  const { calls, close } = await transport.open(port, concurrency);
  const latencies: number[] = [];
  let requests = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const client = async (call: Call, clientIndex: number): Promise<void> => {
    let id = clientIndex * 1_000_000;
    while (performance.now() < deadline) {
      id++;
      const t0 = performance.now();
      const text = await call(`{"jsonrpc":"2.0","id":${id},"method":"test_add","params":[${id},1]}`);
      const t1 = performance.now();
      if (!text.endsWith(`"result":${id + 1}}`)) errors++;
      requests++;
      if (record) latencies.push(t1 - t0);
    }
  };
  await Promise.all(calls.map((call, i) => client(call, i)));
  const elapsed = (performance.now() - started) / 1000;
  await close();
  return {
    concurrency,
    requests,
    errors,
    seconds: elapsed,
    latenciesMs: Float64Array.from(latencies).sort(),
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const cpus = os.cpus();
console.log("JSON-RPC server core benchmark (method test_add, one request at a time per client)");
console.log(
  `machine: ${cpus.length} x ${cpus[0]?.model ?? "unknown CPU"}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
    `${os.type()} ${os.release()}, Node ${process.version}; server and client share these cores`,
);
console.log(`duration per run: ${seconds} s after ${warmupMs} ms warm-up\n`);

const server = await startServer();
try {
  for (const transport of [httpTransport, websocketTransport]) {
    console.log(transport.name);
    console.log("clients   requests/s    p50 ms    p99 ms  p99.9 ms   errors   server CPU µs/request");
    for (const concurrency of concurrencies) {
      await run(transport, server.port, concurrency, warmupMs, false);
      const cpuBefore = cpuSeconds(server.pid);
      const result = await run(transport, server.port, concurrency, seconds * 1000, true);
      const serverCpu = cpuSeconds(server.pid) - cpuBefore;
      const rate = result.requests / result.seconds;
      console.log(
        `${String(concurrency).padStart(7)} ${rate.toFixed(0).padStart(12)} ` +
          `${percentile(result.latenciesMs, 50).toFixed(3).padStart(9)} ` +
          `${percentile(result.latenciesMs, 99).toFixed(3).padStart(9)} ` +
          `${percentile(result.latenciesMs, 99.9).toFixed(3).padStart(9)} ${String(result.errors).padStart(8)} ` +
          `${((serverCpu / result.requests) * 1e6).toFixed(1).padStart(23)}`,
      );
      if (result.errors > 0) process.exitCode = 1;
    }
    console.log("");
  }
} finally {
  await server.stop();
}
