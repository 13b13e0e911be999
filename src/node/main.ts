/**
 * Chain node entry point: `tsx src/node/main.ts [flags]` (npm start). Opens or creates the dev
 * chain under --data-dir, serves JSON-RPC, prints the dev accounts, seals blocks until SIGINT/SIGTERM
 * (the block in progress is sealed before exit).
 */
import { fileURLToPath } from "node:url";
import { createLogger } from "../log/index.js";
import { exitOnShutdownSignals } from "../rpc/index.js";
import { ChainNode } from "./chain-node.js";
import { ConfigError, parseConfig, usage } from "./config.js";
import { FLASHBLOCKS_PATH, createNodeServer } from "./server.js";
import { DEV_ACCOUNT_BALANCE } from "../chain/index.js";

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  let config;
  try {
    config = parseConfig(argv, env);
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
    safeDepth: config.safeDepth,
    preconfirmedReceipts: config.preconfirmedReceipts,
    finalizedDepth: config.finalizedDepth,
    callWorkers: config.callWorkers,
    callTimeoutMs: config.callTimeoutMs,
    logger,
    // Without a sequencer the node would serve a frozen chain: exit and let the operator see it.
    onFatal: () => process.exit(1),
  });
  const server = createNodeServer(node, {
    host: config.host,
    port: config.port,
    logger,
    limits: config.rpcLimits,
  });
  let port: number;
  try {
    port = await server.listen();
  } catch (e) {
    await node.close();
    throw e;
  }
  node.start();
  const hostPart = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${hostPart}:${port}`;
  const wsUrl = `ws://${hostPart}:${port}`;
  const eth = Number(DEV_ACCOUNT_BALANCE / 10n ** 18n);
  const lines = [
    "",
    `OP Stack dev chain ${config.chainId} at ${url} (websocket ${wsUrl}, flashblocks ${wsUrl}${FLASHBLOCKS_PATH})`,
    `head block ${node.head.header.number}, data dir ${config.dataDir}`,
    `Development accounts (${eth} ETH each; keys of the public test mnemonic: never use them on a real network):`,
    ...node.devAccounts.map((a, i) => `  (${i}) ${a.address}  key ${a.privateKey}`),
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  // Written whatever the log level: tools (test/node/spawn-node.ts) wait for this line.
  process.stdout.write(
    `${JSON.stringify({ level: "info", time: new Date().toISOString(), service: "node", url, wsUrl, flashblocks: `${wsUrl}${FLASHBLOCKS_PATH}`, chainId: Number(config.chainId), head: Number(node.head.header.number), msg: "node ready" })}\n`,
  );
  exitOnShutdownSignals(
    async () => {
      await server.close({ drainMs: 3_000 });
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
