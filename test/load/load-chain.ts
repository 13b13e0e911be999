/**
 * Process helpers for the load generator's test and benchmark: a devnet chain (the devnet's L1 in anvil with
 * SystemConfig's gas limit set as `npm start -- --gas-limit` sets it, the rollup config, a node in L1 mode) and
 * `npm run load` as a process.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { devnetSystemConfig } from "../../src/devnet/accounts.js";
import { requestGasLimit } from "../../src/devnet/gas-limit.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { ensureDevnetRollupConfig } from "../../src/devnet/rollup-config.js";
import type { RollupConfig } from "../../src/chain/index.js";
import { type NodeProcess, type StartNodeOptions, startNodeProcess } from "../node/spawn-node.js";

export type { LoadReport } from "../../src/load/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface LoadChain {
  readonly l1: DevnetL1;
  readonly node: NodeProcess;
  /** The chain's rollup.json (parsed) and its path, for a batcher, a host or an enclave. */
  readonly rollup: RollupConfig;
  readonly rollupPath: string;
  /** SystemConfig's gas limit before the change. */
  readonly previousGasLimit: bigint;
  stop(): Promise<void>;
}

export interface LoadChainOptions {
  readonly gasLimit: bigint;
  readonly l1BlockSeconds: number;
  readonly l2BlockSeconds: number;
  readonly node?: Omit<StartNodeOptions, "dataDir" | "l1">;
}

/** The devnet's L1 with the gas limit mined in the L2 genesis's anchor block, and a node in L1 mode on it. */
export async function startLoadChain(options: LoadChainOptions): Promise<LoadChain> {
  const dataDir = mkdtempSync(join(tmpdir(), "load-chain-"));
  let l1: DevnetL1 | undefined;
  try {
    l1 = await startDevnetL1({
      systemConfig: devnetSystemConfig(),
      mining: { mode: "interval", blockTimeSeconds: options.l1BlockSeconds },
      stateDir: join(dataDir, "l1"),
      stateIntervalSeconds: 600,
    });
    // What `npm start -- --gas-limit` does before the rollup config: the anchor block mines the change.
    const request = await requestGasLimit(l1, options.gasLimit);
    const rollup = await ensureDevnetRollupConfig(l1, { dataDir, blockTime: options.l2BlockSeconds });
    await request.included;
    const node = await startNodeProcess({
      startTimeoutMs: 120_000,
      ...options.node,
      dataDir: join(dataDir, "node"),
      l1: { rpcUrl: l1.anvil.rpcUrl, rollupConfigPath: rollup.path },
    });
    const started = l1;
    return {
      l1: started,
      node,
      rollup: rollup.config,
      rollupPath: rollup.path,
      previousGasLimit: request.previous,
      async stop() {
        await node.stop(); // SIGTERM: the node seals its block and exits (and writes a --cpu-prof profile)
        await started.anvil.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await l1?.anvil.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}

/** `npm run load` as a process: its exit code, its JSON lines (each also given to `onLine`), its stderr. */
export function runLoadProcess(
  args: readonly string[],
  onLine: (value: unknown) => void = () => undefined,
): Promise<{ code: number | null; lines: unknown[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/load/main.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: unknown[] = [];
    let buffered = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line.startsWith("{")) continue;
        const value = JSON.parse(line) as unknown;
        lines.push(value);
        onLine(value);
      }
    });
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, lines, stderr }));
  });
}
