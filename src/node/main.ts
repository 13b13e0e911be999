/**
 * Chain node entry point: `tsx src/node/main.ts [flags]` (npm start). Opens or creates the dev
 * chain under --data-dir, serves JSON-RPC, prints the dev accounts, seals blocks until SIGINT/SIGTERM
 * (the block in progress is sealed before exit).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createLogger } from "../log/index.js";
import { exitOnShutdownSignals } from "../rpc/index.js";
import { ChainNode } from "./chain-node.js";
import { ConfigError, parseConfig, usage } from "./config.js";
import { FLASHBLOCKS_PATH, createNodeServer } from "./server.js";
import { derivedSyncStatus, nodeSafeHeadTracker } from "./safe-head/index.js";
import { DEV_ACCOUNT_BALANCE, type RollupConfig, parseRollupConfig } from "../chain/index.js";
import type { NodeConfig } from "./config.js";

/** Reads --rollup-config; ConfigError when the file is missing or not a rollup config. */
export function loadRollupConfig(path: string): RollupConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(`--rollup-config: cannot read ${path}`, { cause: e, details: { path } });
  }
  try {
    return parseRollupConfig(JSON.parse(text));
  } catch (e) {
    throw new ConfigError(`--rollup-config: ${path} is not a rollup config: ${(e as Error).message}`, {
      cause: e,
      details: { path },
    });
  }
}

/**
 * L1 mode: the chain id and block time are the rollup config's; a --chain-id or --block-time-ms given
 * explicitly must agree (ConfigError).
 */
export function applyRollupConfig(config: NodeConfig, rollup: RollupConfig): NodeConfig {
  if (config.explicit.has("--chain-id") && config.chainId !== rollup.l2ChainId)
    throw new ConfigError(
      `--chain-id ${config.chainId} contradicts the rollup config's l2_chain_id ${rollup.l2ChainId}`,
    );
  const blockTimeMs = Number(rollup.blockTime) * 1000;
  if (config.explicit.has("--block-time-ms") && config.blockTimeMs !== blockTimeMs)
    throw new ConfigError(
      `--block-time-ms ${config.blockTimeMs} contradicts the rollup config's block_time ${rollup.blockTime} s`,
    );
  if (config.flashblockIntervalMs > blockTimeMs)
    throw new ConfigError("--flashblock-interval-ms cannot exceed the rollup config's block time");
  return { ...config, chainId: rollup.l2ChainId, blockTimeMs };
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  let config;
  let rollup: RollupConfig | undefined;
  try {
    config = parseConfig(argv, env);
    if (config !== "help" && config.l1 !== undefined) {
      rollup = loadRollupConfig(config.l1.rollupConfigPath);
      config = applyRollupConfig(config, rollup);
    }
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`error: ${e.message}\n\n${usage()}\n`);
    process.exit(2);
  }
  if (config === "help") {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  const logger = createLogger({ name: "node", level: config.logLevel });
  const node = await ChainNode.open({
    dataDir: config.dataDir,
    chainId: config.chainId,
    blockTimeMs: config.blockTimeMs,
    flashblockIntervalMs: config.flashblockIntervalMs,
    devAccountCount: config.devAccounts,
    preconfirmedReceipts: config.preconfirmedReceipts,
    ...(config.l1 === undefined || rollup === undefined
      ? {}
      : {
          l1: {
            rollupConfig: rollup,
            l1RpcUrl: config.l1.rpcUrl,
            l1BeaconUrl: config.l1.beaconUrl,
            confirmations: config.l1.confirmations,
            pollIntervalMs: config.l1.pollIntervalMs,
          },
        }),
    ...(config.follow === undefined ? {} : { follow: { leaderUrl: config.follow } }),
    callWorkers: config.callWorkers,
    callTimeoutMs: config.callTimeoutMs,
    witnessWindow: config.witnessWindow,
    logger,
    // Without a sequencer (or a replica's leader) the node would serve a frozen chain: exit and let the operator see it.
    onFatal: () => process.exit(1),
  });
  // L1 mode: safe and finalized are derived back from L1 (docs/node/l1.md "Safe and finalized heads").
  const tracker =
    config.l1 === undefined
      ? undefined
      : nodeSafeHeadTracker(node, {
          l1RpcUrl: config.l1.rpcUrl,
          l1BeaconUrl: config.l1.beaconUrl,
          pollIntervalMs: config.l1.pollIntervalMs,
          logger: logger.child({ component: "safe-head" }),
        });
  const server = createNodeServer(node, {
    host: config.host,
    port: config.port,
    logger,
    limits: config.rpcLimits,
    surface: config.surface,
    ...(tracker === undefined ? {} : { syncStatus: derivedSyncStatus(node, tracker) }),
  });
  let port: number;
  try {
    port = await server.listen();
  } catch (e) {
    await node.close();
    throw e;
  }
  node.start();
  tracker?.start();
  const hostPart = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${hostPart}:${port}`;
  const wsUrl = `ws://${hostPart}:${port}`;
  const eth = Number(DEV_ACCOUNT_BALANCE / 10n ** 18n);
  const role =
    config.follow === undefined ? "" : `read replica of ${config.follow} (blocks re-executed and checked); `;
  const mode =
    role +
    (config.l1 === undefined
      ? "standalone: synthetic L1 origins, safe = finalized = latest"
      : `L1 mode: L1 ${config.l1.rpcUrl}, rollup config ${config.l1.rollupConfigPath}, ${config.l1.confirmations} L1 confirmations`);
  const lines = [
    "",
    `OP Stack dev chain ${config.chainId} at ${url} (websocket ${wsUrl}, flashblocks ${wsUrl}${FLASHBLOCKS_PATH})`,
    `head block ${node.head.header.number}, data dir ${config.dataDir}`,
    mode,
    `Development accounts (${eth} ETH each; keys of the public test mnemonic: never use them on a real network):`,
    ...node.devAccounts.map((a, i) => `  (${i}) ${a.address}  key ${a.privateKey}`),
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  // Written whatever the log level: tools (test/node/spawn-node.ts) wait for this line.
  process.stdout.write(
    `${JSON.stringify({ level: "info", time: new Date().toISOString(), service: "node", url, wsUrl, flashblocks: `${wsUrl}${FLASHBLOCKS_PATH}`, chainId: Number(config.chainId), head: Number(node.head.header.number), l1Mode: config.l1 !== undefined, ...(config.follow === undefined ? {} : { follow: config.follow }), msg: "node ready" })}\n`,
  );
  exitOnShutdownSignals(
    async () => {
      await server.close({ drainMs: 3_000 });
      await tracker?.stop();
      await node.close();
    },
    { logger },
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2), process.env).catch((e: unknown) => {
    process.stderr.write(`node failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
