/**
 * The engines bench:execute compares ours with, each a child process spoken to over JSON-RPC on 127.0.0.1:
 * anvil (revm) and Hardhat's node (EDR: revm with Hardhat's tracer). Each is given a block's touched pre-state
 * (accounts, code and storage slots through the hardhat_set* methods both implement), the block's timestamp,
 * base fee and fee recipient, and then the block's user transactions, mined as one block in submission order.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AccountState } from "../src/chain/index.js";
import { BenchResultError } from "./errors.js";

export interface Peer {
  readonly name: string;
  readonly url: string;
  stop(): void;
}

/** The header fields of the block the user transactions are mined in. */
export interface PeerBlockEnv {
  timestamp: bigint;
  baseFee: bigint;
  coinbase: string;
  gasLimit: bigint;
}

export interface PeerRun {
  /** `evm_mine` alone: execution of the already-decoded, already-recovered transactions, and the seal. */
  mineMs: number;
  /** The submission of the raw transactions (one request each: decoding, sender recovery, pool) and the mine. */
  wholeMs: number;
  /** Gas used by each transaction, in block order. */
  gasUsed: bigint[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface RpcReply {
  result?: Json;
  error?: { message: string };
}

const hexQ = (n: bigint): string => `0x${n.toString(16)}`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (typeof a === "object" && a !== null ? resolve(a.port) : reject(new Error("no port"))));
    });
    s.on("error", reject);
  });
}

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}

async function call(peer: Peer, method: string, params: Json[] = []): Promise<Json> {
  const reply = (await post(peer.url, { jsonrpc: "2.0", id: 1, method, params })) as RpcReply;
  if (reply.error !== undefined)
    throw new BenchResultError(`${peer.name} ${method}: ${reply.error.message}`, { peer: peer.name, method });
  return reply.result ?? null;
}

/** One JSON-RPC batch; every call must succeed. */
async function batch(peer: Peer, calls: [string, Json[]][]): Promise<Json[]> {
  if (calls.length === 0) return [];
  const body = calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }));
  const replies = (await post(peer.url, body)) as (RpcReply & { id: number })[];
  const out: Json[] = new Array<Json>(calls.length);
  for (const r of replies) {
    if (r.error !== undefined)
      throw new BenchResultError(`${peer.name} ${calls[r.id]![0]}: ${r.error.message}`, { peer: peer.name });
    out[r.id] = r.result ?? null;
  }
  return out;
}

/** Starts a child and resolves once a line of its output matches `ready`. */
function spawnUntil(name: string, child: ChildProcess, ready: RegExp, timeoutMs: number): Promise<void> {
  let out = "";
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new BenchResultError(`${name} did not start:\n${out}`, { peer: name }));
    }, timeoutMs);
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new BenchResultError(`${name} exited (${code}):\n${out}`, { peer: name }));
    });
  });
}

/** Spawns a JSON-RPC server on a free port of 127.0.0.1 and waits for its `ready` line. */
async function startPeer(
  name: string,
  command: string,
  args: (port: number) => string[],
  ready: RegExp,
  cwd?: string,
): Promise<Peer & { child: ChildProcess }> {
  const port = await freePort();
  const env = { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true" };
  const child = spawn(command, args(port), { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  await spawnUntil(name, child, ready, 120_000);
  return { name, child, url: `http://127.0.0.1:${port}`, stop: () => child.kill("SIGTERM") };
}

/** anvil from its npm package, mining only when asked, transactions in arrival order. */
export async function startAnvilPeer(chainId: bigint, genesisTimestamp: bigint): Promise<Peer> {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const bin = createRequire(import.meta.url).resolve(
    `@foundry-rs/anvil-${process.platform}-${arch}/bin/anvil`,
  );
  const options = {
    "--chain-id": String(chainId),
    "--hardfork": "cancun",
    "--order": "fifo",
    "--accounts": "0",
    "--timestamp": String(genesisTimestamp),
    "--gas-limit": "1000000000",
  };
  const flat = Object.entries(options).flat();
  return startPeer(
    "anvil",
    bin,
    (port) => ["--host", "127.0.0.1", "--port", String(port), "--no-mining", ...flat],
    /Listening on/,
  );
}

/** Hardhat's node (EDR), from a throwaway project folder linking our node_modules. */
export async function startEdrPeer(chainId: bigint, genesisTimestamp: bigint): Promise<Peer> {
  const hardhat = {
    chainId: Number(chainId),
    hardfork: "cancun",
    mining: { auto: false, interval: 0, mempool: { order: "fifo" } },
    blockGasLimit: 1_000_000_000,
    initialDate: new Date(Number(genesisTimestamp) * 1000).toISOString(),
    accounts: [],
    allowBlocksWithSameTimestamp: true,
  };
  const dir = mkdtempSync(join(tmpdir(), "edr-bench-"));
  const config = join(dir, "hardhat.config.cjs");
  writeFileSync(config, `module.exports = ${JSON.stringify({ networks: { hardhat } })};\n`);
  writeFileSync(join(dir, "package.json"), "{}\n");
  // Hardhat runs only from an installation inside the project folder: ours is linked in.
  const modules = fileURLToPath(new URL("../node_modules", import.meta.url));
  symlinkSync(modules, join(dir, "node_modules"), "dir");
  const cli = join(modules, "hardhat/internal/cli/cli.js");
  const node = (port: number): string[] => [
    cli,
    "--config",
    config,
    "node",
    "--hostname",
    "127.0.0.1",
    "--port",
    String(port),
  ];
  const peer = await startPeer("EDR", process.execPath, node, /Started HTTP/, dir);
  return {
    ...peer,
    stop: () => {
      peer.child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes the accounts (0x address → state) into the peer's latest state. */
export async function loadPreState(peer: Peer, accounts: ReadonlyMap<string, AccountState>): Promise<void> {
  const calls: [string, Json[]][] = [];
  for (const [address, a] of accounts) {
    calls.push(["hardhat_setBalance", [address, hexQ(a.balance)]]);
    calls.push(["hardhat_setNonce", [address, hexQ(a.nonce)]]);
    calls.push(["hardhat_setCode", [address, `0x${Buffer.from(a.code).toString("hex")}`]]);
    for (const [slot, value] of a.storage)
      calls.push(["hardhat_setStorageAt", [address, `0x${slot}`, `0x${Buffer.from(value).toString("hex")}`]]);
  }
  for (let i = 0; i < calls.length; i += 500) await batch(peer, calls.slice(i, i + 500));
}

export async function snapshot(peer: Peer): Promise<Json> {
  return call(peer, "evm_snapshot");
}

export async function revert(peer: Peer, id: Json): Promise<void> {
  if ((await call(peer, "evm_revert", [id])) !== true)
    throw new BenchResultError(`${peer.name}: evm_revert failed`, { peer: peer.name });
}

/** Mines the raw transactions as one block on `env`; the caller reverts to a snapshot between runs. */
export async function runBlock(
  peer: Peer,
  env: PeerBlockEnv,
  rawTxs: readonly string[],
  withGas: boolean,
): Promise<PeerRun> {
  await batch(peer, [
    ["hardhat_setCoinbase", [env.coinbase]],
    ["hardhat_setNextBlockBaseFeePerGas", [hexQ(env.baseFee)]],
    ["evm_setNextBlockTimestamp", [hexQ(env.timestamp)]],
  ]);
  const t0 = performance.now();
  // One request per transaction, in order: Hardhat's node answers a batch's calls concurrently (no fixed order).
  const hashes: Json[] = [];
  for (const raw of rawTxs) hashes.push(await call(peer, "eth_sendRawTransaction", [raw]));
  const t1 = performance.now();
  await call(peer, "evm_mine");
  const t2 = performance.now();
  const gasUsed: bigint[] = [];
  if (withGas) {
    const block = (await call(peer, "eth_getBlockByNumber", ["latest", false])) as { transactions: string[] };
    if (block.transactions.length !== rawTxs.length || block.transactions.some((h, i) => h !== hashes[i]))
      throw new BenchResultError(
        `${peer.name}: the mined block holds ${block.transactions.length} transactions, not the ${rawTxs.length} submitted in order (${JSON.stringify(hashes)} vs ${JSON.stringify(block.transactions)})`,
        {
          peer: peer.name,
        },
      );
    const receipts = (await batch(
      peer,
      block.transactions.map((h) => ["eth_getTransactionReceipt", [h]]),
    )) as { gasUsed: string }[];
    for (const r of receipts) gasUsed.push(BigInt(r.gasUsed));
  }
  return { mineMs: t2 - t1, wholeMs: t2 - t0, gasUsed };
}
