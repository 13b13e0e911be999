/**
 * Runs src/merchant/main.ts as a separate process (so tests can kill -9 it) and waits for its
 * "merchant service listening" log line to learn the port. The service creates a write-scope API key at start
 * (--bootstrap-key-file); `client` sends it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeArgs } from "../../../src/bundles/index.js";
import { MerchantClient } from "../../../src/merchant/client.js";
import { awaitReady } from "../../support/child-start.js";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface MerchantProcess {
  url: string;
  /** Sends the bootstrap write key. */
  client: MerchantClient;
  /** The bootstrap write-scope API key and the file it was written to. */
  apiKey: string;
  keyFile: string;
  child: ChildProcess;
  /** Resolves with the exit signal (e.g. "SIGKILL") or code. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  stop(): Promise<void>;
}

export interface MerchantProcessOptions {
  rpcUrl: string;
  token: string;
  relayerKey: string;
  /** SQLite file path, or a PostgreSQL URL. */
  store: { sqlite: string } | { databaseUrl: string };
  env?: Record<string, string>;
  /** More flags for src/merchant/main.ts. */
  extraArgs?: string[];
  /** Milliseconds until "merchant service listening"; default 60 000. The service is killed if not ready by then. */
  startTimeoutMs?: number;
}

export async function startMerchantProcess(options: MerchantProcessOptions): Promise<MerchantProcess> {
  const keyDir = mkdtempSync(join(tmpdir(), "merchant-key-"));
  const keyFile = join(keyDir, "api-key");
  const args = [
    ...nodeArgs("src/merchant/main.ts"),
    "--rpc-url",
    options.rpcUrl,
    "--token",
    options.token,
    "--relayer-key",
    options.relayerKey,
    "--listen",
    "127.0.0.1:0",
    "--reconcile-interval-ms",
    "100",
    "--log-level",
    "info",
    ...("sqlite" in options.store
      ? ["--sqlite", options.store.sqlite]
      : ["--database-url", options.store.databaseUrl]),
    "--bootstrap-key-file",
    keyFile,
    ...(options.extraArgs ?? []),
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  delete env.DATABASE_URL;
  if (options.env?.DATABASE_URL !== undefined) env.DATABASE_URL = options.env.DATABASE_URL;
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      // The key dies with the service: its directory is removed once the process is gone, however it ended.
      rmSync(keyDir, { recursive: true, force: true });
      resolve({ code, signal });
    });
  });
  const listening = new Promise<number>((resolve) => {
    let buffered = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      buffered += text;
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf("\n");
        try {
          const parsed = JSON.parse(line) as { msg?: string; port?: number };
          if (parsed.msg === "merchant service listening" && typeof parsed.port === "number")
            resolve(parsed.port);
        } catch {
          // not a JSON line
        }
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
  });
  const port = await awaitReady(child, listening, {
    name: "the merchant service",
    timeoutMs: options.startTimeoutMs ?? 60_000,
    output: () => output,
  });
  const url = `http://127.0.0.1:${port}`;
  const apiKey = readFileSync(keyFile, "utf8").trim();
  return {
    url,
    client: new MerchantClient(url, { apiKey }),
    apiKey,
    keyFile,
    child,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
