/**
 * Starts a real chain node process (src/node/main.ts) on 127.0.0.1 and a free port with a temp data
 * directory, for tests of this and other services:
 *
 *   const node = await startNodeProcess({ blockTimeMs: 500, flashblockIntervalMs: 50 });
 *   const client = createPublicClient({ transport: http(node.url) });
 *   ... node.accounts[0].privateKey ...
 *   await node.stop(); // SIGTERM, waits for exit, removes the temp data dir
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeArgs } from "../../src/bundles/index.js";
import { killChild, trackChild } from "../support/child-start.js";

export interface StartNodeOptions {
  blockTimeMs?: number;
  flashblockIntervalMs?: number;
  chainId?: number;
  /** Reuse a data directory (e.g. to restart a node); it is then not removed by stop(). */
  dataDir?: string;
  /** false: receipts only for sealed transactions (default true: pre-confirmed receipts too). */
  preconfirmedReceipts?: boolean;
  /**
   * L1 mode (--l1-rpc, --rollup-config): chain id and block time come from the rollup config, so --chain-id
   * and --block-time-ms are passed only when `chainId` / `blockTimeMs` are given.
   */
  l1?: { rpcUrl: string; rollupConfigPath: string; confirmations?: number; pollIntervalMs?: number };
  /** Fixed port; default 0 (any free port). */
  port?: number;
  logLevel?: string;
  /** --call-workers (default: the node's own default). */
  callWorkers?: number;
  /** --call-timeout-ms (default: the node's own default). */
  callTimeoutMs?: number;
  /** More flags, appended as given (e.g. ["--rpc-max-subscriptions", "3"]). */
  extraArgs?: readonly string[];
  /** Milliseconds to wait for "node ready"; default 30 000. */
  startTimeoutMs?: number;
}

export interface DevKey {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

export interface NodeProcess {
  url: string;
  wsUrl: string;
  flashblocksUrl: string;
  chainId: number;
  dataDir: string;
  accounts: DevKey[];
  process: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM (graceful: the block in progress is sealed) and wait for exit; removes a temp data dir. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit; keeps the data dir (for crash tests). */
  kill(): Promise<void>;
}

export class NodeStartError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(`${message}\n--- node output ---\n${output.slice(-4000)}`);
    this.name = "NodeStartError";
  }
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startNodeProcess(options: StartNodeOptions = {}): Promise<NodeProcess> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "op-node-test-"));
  const chainId = options.chainId ?? 901;
  const l1 = options.l1;
  const args = [
    ...nodeArgs("src/node/main.ts"),
    "--host",
    "127.0.0.1",
    "--port",
    String(options.port ?? 0),
    "--data-dir",
    dataDir,
    ...(l1 !== undefined && options.chainId === undefined ? [] : ["--chain-id", String(chainId)]),
    ...(l1 !== undefined && options.blockTimeMs === undefined
      ? []
      : ["--block-time-ms", String(options.blockTimeMs ?? 2000)]),
    "--flashblock-interval-ms",
    String(options.flashblockIntervalMs ?? 200),
    ...(l1 === undefined
      ? []
      : [
          "--l1-rpc",
          l1.rpcUrl,
          "--rollup-config",
          l1.rollupConfigPath,
          "--l1-confirmations",
          String(l1.confirmations ?? 0),
          "--l1-poll-interval-ms",
          String(l1.pollIntervalMs ?? 200),
        ]),
    "--preconfirmed-receipts",
    String(options.preconfirmedReceipts ?? true),
    "--log-level",
    options.logLevel ?? "info",
    ...(options.callWorkers === undefined ? [] : ["--call-workers", String(options.callWorkers)]),
    ...(options.callTimeoutMs === undefined ? [] : ["--call-timeout-ms", String(options.callTimeoutMs)]),
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env },
  });
  // Never leave a node behind: the sweep after each test file, and the test process's exit, kill a node not stopped.
  trackChild(child);
  const killOnExit = (): void => {
    child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  child.once("exit", () => process.removeListener("exit", killOnExit));
  let out = "";
  const accounts: DevKey[] = [];
  const ready = new Promise<{ url: string; wsUrl: string; flashblocks: string; chainId: number }>(
    (resolve, reject) => {
      let buffered = "";
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new NodeStartError("node did not become ready in time", out));
      }, options.startTimeoutMs ?? 30_000);
      child.stdout!.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        out += text;
        buffered += text;
        let nl: number;
        while ((nl = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          const acct = /^\s+\(\d+\) (0x[0-9a-fA-F]{40})\s+key (0x[0-9a-f]{64})/.exec(line);
          if (acct)
            accounts.push({ address: acct[1] as `0x${string}`, privateKey: acct[2] as `0x${string}` });
          if (line.startsWith("{") && line.includes('"node ready"')) {
            clearTimeout(timer);
            resolve(JSON.parse(line) as { url: string; wsUrl: string; flashblocks: string; chainId: number });
          }
        }
      });
      child.stderr!.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new NodeStartError(`node exited before ready (code ${code}, signal ${signal})`, out));
      });
    },
  );
  let info: { url: string; wsUrl: string; flashblocks: string; chainId: number };
  try {
    info = await ready;
  } catch (e) {
    // Not ready in time (or it exited): killed and reaped before its data directory goes.
    await killChild(child);
    process.removeListener("exit", killOnExit);
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: info.url,
    wsUrl: info.wsUrl,
    flashblocksUrl: info.flashblocks,
    chainId: info.chainId,
    dataDir,
    accounts,
    process: child,
    output: () => out,
    async stop() {
      process.removeListener("exit", killOnExit);
      child.kill("SIGTERM");
      await waitForExit(child);
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async kill() {
      process.removeListener("exit", killOnExit);
      child.kill("SIGKILL");
      await waitForExit(child);
    },
  };
}
