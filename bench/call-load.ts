/**
 * bench:call-load — does the node keep its pre-confirmation cadence and cheap reads while expensive
 * eth_calls run?
 *
 * Starts a real node process (test/node/spawn-node.ts: 2 s blocks, 200 ms snapshots), deploys a
 * gas burner (raw EVM bytecode, see {@link BURNER_RUNTIME}: it loops until less than 256 gas is
 * left, so a call burns exactly the gas it is given), then measures two phases of BENCH_SECONDS each:
 *
 * - idle: no calls;
 * - load: BENCH_CALLERS clients each send eth_call(burner, gas BENCH_CALL_GAS) back to back
 *   (alternately at `latest` and `pending`).
 *
 * In both phases: the inter-arrival times of frames on /ws/flashblocks (p50 / p99 / max), the
 * latency of eth_getBalance(latest) sent back to back by one client on its own connection
 * (p50 / p99 / max), and in the load phase the eth_calls completed per second and their latency.
 *
 * Env: BENCH_SECONDS (default 8), BENCH_CALLERS (default 4), BENCH_CALL_GAS (default 25000000);
 * the node's own environment variables (e.g. NODE_CALL_WORKERS) pass through to the node process.
 */
import os from "node:os";
import { Pool } from "undici";
import { createWalletClient, createPublicClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import WebSocket from "ws";
import { startNodeProcess } from "../test/node/spawn-node.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CALLERS = Number(process.env.BENCH_CALLERS ?? 4);
const CALL_GAS = BigInt(process.env.BENCH_CALL_GAS ?? 25_000_000);
const ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

/**
 * Runtime code of the burner: `loop: JUMPDEST; PUSH2 0x0100; GAS; GT; PUSH1 loop; JUMPI; STOP`
 * (22 gas per iteration: loops while more than 256 gas is left, then stops successfully).
 */
export const BURNER_RUNTIME = "5b6101005a11600057" + "00";

/** Init code returning {@link BURNER_RUNTIME}: CODECOPY the runtime after the init code and RETURN it. */
export function burnerInitCode(): Hex {
  const runtimeLength = BURNER_RUNTIME.length / 2;
  const len = runtimeLength.toString(16).padStart(2, "0");
  // PUSH1 len DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN: 11 bytes
  const init = `60${len}80600b6000396000f3`;
  return `0x${init}${BURNER_RUNTIME}`;
}

interface Stats {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function stats(values: number[]): Stats {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return {
    count: s.length,
    p50: at(0.5),
    p99: at(0.99),
    max: s.length === 0 ? Number.NaN : s[s.length - 1]!,
  };
}

const ms = (v: number) => (Number.isNaN(v) ? "n/a" : v.toFixed(1));

async function post(
  pool: Pool,
  body: string,
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await pool.request({
    path: "/",
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return (await res.body.json()) as { result?: unknown; error?: { code: number; message: string } };
}

interface PhaseResult {
  flashblockGaps: Stats;
  balance: Stats;
  calls: Stats;
  callsPerSecond: number;
  callErrors: number;
  balanceErrors: number;
}

async function phase(url: string, flashblocksUrl: string, burner: Hex | undefined): Promise<PhaseResult> {
  const origin = new URL(url).origin;
  const readPool = new Pool(origin, { connections: 1, headersTimeout: 600_000, bodyTimeout: 600_000 });
  const callPool = new Pool(origin, {
    connections: Math.max(1, CALLERS),
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
  const arrivals: number[] = [];
  const ws = new WebSocket(flashblocksUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.on("message", () => arrivals.push(performance.now()));
  // Let the first (replayed current) frame pass.
  await new Promise((r) => setTimeout(r, 300));
  arrivals.length = 0;

  const start = performance.now();
  const end = start + SECONDS * 1000;
  const balanceLatencies: number[] = [];
  let balanceErrors = 0;
  const balanceBody = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "eth_getBalance",
    params: [ADDRESS, "latest"],
  });
  const reader = (async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const r = await post(readPool, balanceBody);
      balanceLatencies.push(performance.now() - t);
      if (r.result === undefined) balanceErrors++;
    }
  })();

  const callLatencies: number[] = [];
  let callsDone = 0;
  let callErrors = 0;
  const callers: Promise<void>[] = [];
  if (burner !== undefined) {
    for (let c = 0; c < CALLERS; c++) {
      callers.push(
        (async () => {
          for (let i = 0; performance.now() < end; i++) {
            const tag = (c + i) % 2 === 0 ? "latest" : "pending";
            const body = JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "eth_call",
              params: [{ to: burner, gas: `0x${CALL_GAS.toString(16)}` }, tag],
            });
            const t = performance.now();
            const r = await post(callPool, body);
            const done = performance.now();
            if (done <= end) {
              callsDone++;
              callLatencies.push(done - t);
            }
            if (r.result === undefined) {
              callErrors++;
              if (callErrors === 1) console.error(`eth_call failed: ${JSON.stringify(r.error)}`);
            }
          }
        })(),
      );
    }
  }
  await reader;
  const inWindow = arrivals.filter((t) => t <= end);
  const gaps = inWindow.slice(1).map((t, i) => t - inWindow[i]!);
  await Promise.all(callers);
  ws.close();
  await readPool.close();
  await callPool.close();
  return {
    flashblockGaps: stats(gaps),
    balance: stats(balanceLatencies),
    calls: stats(callLatencies),
    callsPerSecond: callsDone / SECONDS,
    callErrors,
    balanceErrors,
  };
}

async function main(): Promise<void> {
  const node = await startNodeProcess({ blockTimeMs: 2000, flashblockIntervalMs: 200, logLevel: "warn" });
  try {
    const account = privateKeyToAccount(node.accounts[0]!.privateKey);
    const chain = {
      id: node.chainId,
      name: "op-dev",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    } as const;
    const wallet = createWalletClient({ chain, transport: http(node.url), account });
    const client = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 });
    const hash = await wallet.sendTransaction({ data: burnerInitCode(), gas: 100_000n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    const burner = receipt.contractAddress!;
    // The calls run at latest too: wait until the deployment is sealed.
    while ((await client.getBlockNumber()) < receipt.blockNumber)
      await new Promise((r) => setTimeout(r, 100));
    const cpus = os.cpus();
    const workers = process.env.NODE_CALL_WORKERS;
    console.log(
      `bench:call-load — ${SECONDS}s per phase, ${CALLERS} callers × eth_call(${CALL_GAS} gas); ` +
        `${cpus.length} × ${cpus[0]?.model ?? "cpu"}, Node ${process.version}, load ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}${workers === undefined ? "" : `, NODE_CALL_WORKERS=${workers}`}`,
    );
    const rows: string[] = [
      "| phase | flashblocks | gap p50 ms | p99 ms | max ms | eth_getBalance p50 ms | p99 ms | max ms | eth_call/s | eth_call p50 ms | p99 ms | call errors |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ];
    for (const [name, target] of [
      ["idle", undefined],
      ["load", burner],
    ] as const) {
      const r = await phase(node.url, node.flashblocksUrl, target);
      rows.push(
        `| ${name} | ${r.flashblockGaps.count + 1} | ${ms(r.flashblockGaps.p50)} | ${ms(r.flashblockGaps.p99)} | ${ms(r.flashblockGaps.max)} | ` +
          `${ms(r.balance.p50)} | ${ms(r.balance.p99)} | ${ms(r.balance.max)} | ` +
          `${target === undefined ? "-" : r.callsPerSecond.toFixed(2)} | ${target === undefined ? "-" : ms(r.calls.p50)} | ` +
          `${target === undefined ? "-" : ms(r.calls.p99)} | ${target === undefined ? "-" : r.callErrors} |`,
      );
      console.log(rows[rows.length - 1]);
    }
    console.log(`\n${rows.join("\n")}\n`);
  } finally {
    await node.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
