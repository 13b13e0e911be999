/**
 * An L1-backed chain for node tests: anvil with the L1 contracts (src/devnet/l1), a rollup.json and a node
 * process in L1 mode (test/node/spawn-node.ts). `startL1Chain` writes the rollup config with the devnet's own
 * writer (ensureDevnetRollupConfig: genesis L1 block mined now); `writeRollupConfig` anchors it on any L1 block
 * (the drift test's genesis lies in the past). `startBatcher` runs the batcher process with the arguments every
 * end-to-end test shares (`startChainBatcher` on an L1Chain).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Hex, createPublicClient, defineChain, http } from "viem";
import { type BatcherProcess, spawnBatcher } from "../../src/batcher/test/spawn-batcher.js";
import { type RollupConfig, rollupConfigToJson } from "../../src/chain/index.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { devnetAccount } from "../../src/devnet/accounts.js";
import type { AnvilMining } from "../../src/devnet/l1/anvil.js";
import { devnetRollupConfigAt, ensureDevnetRollupConfig } from "../../src/devnet/rollup-config.js";
import { testSystemConfig } from "../l1/support.js";
import { waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

export type { BatcherProcess };

export interface L1Chain {
  readonly l1: DevnetL1;
  readonly rollup: RollupConfig;
  readonly rollupPath: string;
  readonly node: NodeProcess;
  readonly dir: string;
  /** A viem client of the L2 node. */
  readonly l2: ReturnType<typeof l2Client>;
  stop(): Promise<void>;
}

export interface L1ChainOptions {
  /** L2 block time, seconds (default 1). */
  readonly blockTime?: number;
  /** L1 mining (default: a block every second). */
  readonly mining?: AnvilMining;
  /** --l1-confirmations (default 1). */
  readonly confirmations?: number;
  /** L1 genesis time (anvil's clock starts there; default the devnet's fixed one). */
  readonly l1GenesisTimestamp?: bigint;
  /**
   * Anchor the L2 genesis on this L1 block instead of mining one now ("deploy": the contracts' block). The L2
   * genesis time is the block's timestamp.
   */
  readonly anchor?: "now" | "deploy";
  readonly flashblockIntervalMs?: number;
  readonly logLevel?: string;
  /**
   * --call-workers (default 0: a worker's start-up costs seconds of CPU on a loaded CI machine, and the chains built
   * here do not test where eth_call runs; calls, isolation, offloaded and call-pool test the worker path).
   */
  readonly callWorkers?: number;
}

export function l2Client(node: NodeProcess) {
  const chain = defineChain({
    id: node.chainId,
    name: "dev L2",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  return createPublicClient({ chain, transport: http(node.url, { timeout: 60_000 }), pollingInterval: 100 });
}

/** Writes a rollup.json anchored on L1 block `anchor` (the devnet's values otherwise, src/devnet's devnetRollupConfigAt). */
export async function writeRollupConfig(
  l1: DevnetL1,
  anchor: { number: bigint; hash: Hex; timestamp: bigint },
  path: string,
  blockTime: number,
): Promise<RollupConfig> {
  const config = await devnetRollupConfigAt(l1, anchor, { blockTime });
  writeFileSync(path, `${JSON.stringify(rollupConfigToJson(config), null, 2)}\n`);
  return config;
}

export async function startL1Chain(options: L1ChainOptions = {}): Promise<L1Chain> {
  const dir = mkdtempSync(join(tmpdir(), "l1-chain-"));
  const blockTime = options.blockTime ?? 1;
  const l1 = await startDevnetL1({
    systemConfig: testSystemConfig(),
    mining: options.mining ?? { mode: "interval", blockTimeSeconds: 1 },
    ...(options.l1GenesisTimestamp === undefined ? {} : { genesisTimestamp: options.l1GenesisTimestamp }),
  });
  try {
    let rollup: RollupConfig;
    let rollupPath: string;
    if ((options.anchor ?? "now") === "now") {
      const written = await ensureDevnetRollupConfig(l1, { dataDir: dir, blockTime });
      rollup = written.config;
      rollupPath = written.path;
    } else {
      rollupPath = join(dir, "rollup.json");
      rollup = await writeRollupConfig(l1, l1.deployBlock, rollupPath, blockTime);
    }
    const node = await startNodeProcess({
      l1: {
        rpcUrl: l1.anvil.rpcUrl,
        rollupConfigPath: rollupPath,
        confirmations: options.confirmations ?? 1,
      },
      flashblockIntervalMs: options.flashblockIntervalMs ?? 100,
      logLevel: options.logLevel ?? "info",
      callWorkers: options.callWorkers ?? 0,
      startTimeoutMs: 60_000,
    });
    return {
      l1,
      rollup,
      rollupPath,
      node,
      dir,
      l2: l2Client(node),
      async stop() {
        await node.stop();
        await l1.anvil.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await l1.anvil.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Polls `probe` every 100 ms until it gives a value; a timeout's error carries the node's last output. */
export async function waitForChain<T>(
  chain: L1Chain,
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  try {
    return await waitFor(probe, what, timeoutMs, 100);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${chain.node.output().slice(-3000)}`, { cause: e });
  }
}

export interface BatcherOptions {
  readonly l1RpcUrl: string;
  readonly l2RpcUrl: string;
  /** --rollup-config (inbox, L2 block time and chain come from it); omit to pass them in `extraArgs`. */
  readonly rollupConfigPath?: string;
  /** --data-availability (default blobs, the devnet's). */
  readonly dataAvailability?: "blobs" | "calldata";
  /** --max-channel-duration in L1 blocks (default 2: a channel closes within about two seconds on 1 s L1 blocks). */
  readonly maxChannelDuration?: number;
  /** --poll-interval-ms (default 200). */
  readonly pollIntervalMs?: number;
  /** Any further arguments (a later flag wins over the defaults above). */
  readonly extraArgs?: readonly string[];
  /** The batcher key (default the devnet's batcher account, 3), passed as BATCHER_PRIVATE_KEY; null passes none. */
  readonly privateKey?: Hex | null;
}

/** The batcher's command line for `options`. */
export function batcherArgs(options: BatcherOptions): string[] {
  return [
    ...["--l1-rpc-url", options.l1RpcUrl, "--l2-rpc-url", options.l2RpcUrl],
    ...(options.rollupConfigPath === undefined ? [] : ["--rollup-config", options.rollupConfigPath]),
    ...["--data-availability", options.dataAvailability ?? "blobs"],
    ...["--max-channel-duration", String(options.maxChannelDuration ?? 2)],
    ...["--poll-interval-ms", String(options.pollIntervalMs ?? 200)],
    ...(options.extraArgs ?? []),
  ];
}

/** Runs the batcher process (src/batcher/test/spawn-batcher.ts) with the shared arguments. */
export function startBatcher(options: BatcherOptions): BatcherProcess {
  const key = options.privateKey === undefined ? devnetAccount("batcher").privateKey : options.privateKey;
  return spawnBatcher(batcherArgs(options), key === null ? {} : { BATCHER_PRIVATE_KEY: key });
}

/** The batcher for `chain`'s node, L1 and rollup.json (posting blobs unless told otherwise). */
export function startChainBatcher(
  chain: L1Chain,
  options: Omit<BatcherOptions, "l1RpcUrl" | "l2RpcUrl" | "rollupConfigPath"> = {},
): BatcherProcess {
  return startBatcher({
    ...options,
    l1RpcUrl: chain.l1.anvil.rpcUrl,
    l2RpcUrl: chain.node.url,
    rollupConfigPath: chain.rollupPath,
  });
}
