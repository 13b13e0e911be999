/**
 * The main job (`npm start`): a local OP Stack dev chain node, an EIP-3009 token deployed on it, and
 * the merchant order service relaying for that token, each on its embedded defaults.
 *
 *   chain node        http://127.0.0.1:8545  (websocket on the same port, flashblocks at /ws/flashblocks)
 *   merchant service  http://127.0.0.1:8650
 *   state             .data/node (chain), .data/merchant.db (orders), .data/devnet.json (token address)
 *
 * The token ("Dev USD", 6 decimals) is deployed once by development account 0, which mints 1 000 000
 * DUSD to account 2 (the buyer in the README's walk-through); account 1 is the merchant's relayer and
 * payee. A restart reuses the chain, the token and the orders. SIGINT/SIGTERM stop the merchant service
 * first, then the node (which seals the block in progress), and exit 0.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Address, createPublicClient, getAddress, http } from "viem";
import { devAccounts } from "../chain/index.js";
import { type ServiceChild, jsonLine, runToCompletion, startServiceChild } from "./child.js";
import { DevnetUsageError } from "./errors.js";

const USAGE = `Usage: npm start -- [options]

Starts the chain node, deploys the EIP-3009 dev token (first run only) and starts the merchant service.

Options (each has an environment variable):
  --data-dir <dir>        DEVNET_DATA_DIR        state directory (default .data)
  --node-port <port>      DEVNET_NODE_PORT       chain node JSON-RPC port on 127.0.0.1 (default 8545; 0 = any)
  --merchant-port <port>  DEVNET_MERCHANT_PORT   merchant API port on 127.0.0.1 (default 8650; 0 = any)
  --block-time-ms <ms>    DEVNET_BLOCK_TIME_MS   time between sealed blocks (default 2000)
  -h, --help              this text
`;

const MINT_UNITS = 1_000_000n * 10n ** 6n;
const START_TIMEOUT_MS = 120_000;

interface DevnetConfig {
  dataDir: string;
  nodePort: number;
  merchantPort: number;
  blockTimeMs: number;
}

function portValue(text: string, what: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new DevnetUsageError(`${what} must be a port number, got ${text}`);
  return port;
}

function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): DevnetConfig | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "data-dir": { type: "string" },
      "node-port": { type: "string" },
      "merchant-port": { type: "string" },
      "block-time-ms": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) return "help";
  const blockTime = Number(values["block-time-ms"] ?? env.DEVNET_BLOCK_TIME_MS ?? "2000");
  if (!Number.isInteger(blockTime) || blockTime < 100)
    throw new DevnetUsageError("--block-time-ms must be an integer ≥ 100");
  return {
    dataDir: resolve(values["data-dir"] ?? env.DEVNET_DATA_DIR ?? ".data"),
    nodePort: portValue(values["node-port"] ?? env.DEVNET_NODE_PORT ?? "8545", "--node-port"),
    merchantPort: portValue(values["merchant-port"] ?? env.DEVNET_MERCHANT_PORT ?? "8650", "--merchant-port"),
    blockTimeMs: blockTime,
  };
}

/** What the devnet remembers between runs: the token it deployed on this chain. */
interface DevnetRecord {
  chainId: number;
  token: Address;
}

function readRecord(path: string): DevnetRecord | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<DevnetRecord>;
    if (typeof value.chainId !== "number" || typeof value.token !== "string") return undefined;
    return { chainId: value.chainId, token: getAddress(value.token) };
  } catch {
    return undefined;
  }
}

function echoTo(prefix: string): (line: string) => void {
  return (line) => process.stdout.write(`${prefix} ${line}\n`);
}

/** The token recorded for this chain if its code is still there, else a fresh deployment (recorded). */
async function ensureToken(nodeUrl: string, chainId: number, recordPath: string): Promise<Address> {
  const client = createPublicClient({ transport: http(nodeUrl) });
  const recorded = readRecord(recordPath);
  if (recorded !== undefined && recorded.chainId === chainId) {
    const code = await client.getCode({ address: recorded.token });
    if (code !== undefined && code !== "0x") return recorded.token;
  }
  const [deployer, , buyer] = devAccounts(3);
  const output = await runToCompletion(
    "src/merchant/cli.ts",
    ["deploy-token", "--rpc-url", nodeUrl, "--mint-to", buyer!.address, "--amount", String(MINT_UNITS)],
    START_TIMEOUT_MS,
    // Keys through the environment, never argv (visible in `ps` to every local user).
    { MERCHANT_CLI_KEY: deployer!.privateKey },
  );
  const token = getAddress((JSON.parse(output) as { token: string }).token);
  writeFileSync(recordPath, `${JSON.stringify({ chainId, token } satisfies DevnetRecord, null, 2)}\n`);
  return token;
}

async function main(): Promise<number> {
  let config: DevnetConfig | "help";
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n\n${USAGE}`);
    return 2;
  }
  if (config === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const children: ServiceChild[] = [];
  let stopping = false;
  const stopAll = async (): Promise<void> => {
    stopping = true;
    for (const child of [...children].reverse()) await child.stop(15_000);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void stopAll().then(() => process.exit(0)));
  }

  const node = startServiceChild(
    "chain node",
    "src/node/main.ts",
    [
      "--host",
      "127.0.0.1",
      "--port",
      String(config.nodePort),
      "--data-dir",
      join(config.dataDir, "node"),
      "--block-time-ms",
      String(config.blockTimeMs),
    ],
    echoTo("[node]"),
  );
  children.push(node);
  try {
    const ready = await node.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "node ready"
        ? { url: String(value.url), chainId: Number(value.chainId) }
        : undefined;
    }, START_TIMEOUT_MS);
    const token = await ensureToken(ready.url, ready.chainId, join(config.dataDir, "devnet.json"));
    const [, relayer, buyer] = devAccounts(3);
    const merchant = startServiceChild(
      "merchant service",
      "src/merchant/main.ts",
      [
        "--rpc-url",
        ready.url,
        "--token",
        token,
        "--listen",
        `127.0.0.1:${config.merchantPort}`,
        "--sqlite",
        join(config.dataDir, "merchant.db"),
      ],
      echoTo("[merchant]"),
      { MERCHANT_RELAYER_KEY: relayer!.privateKey },
    );
    children.push(merchant);
    const merchantPort = await merchant.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "merchant service listening" ? Number(value.port) : undefined;
    }, START_TIMEOUT_MS);
    process.stdout.write(
      `${JSON.stringify({
        msg: "devnet ready",
        nodeUrl: ready.url,
        chainId: ready.chainId,
        token,
        merchantUrl: `http://127.0.0.1:${merchantPort}`,
        relayer: relayer!.address,
        buyer: buyer!.address,
        buyerKey: buyer!.privateKey,
      })}\n`,
    );
    // A service that dies takes the devnet down with it: nothing half-running.
    const first = await Promise.race(children.map((child) => child.exited.then((exit) => ({ child, exit }))));
    if (stopping) return 0;
    process.stderr.write(
      `${first.child.name} exited (code ${first.exit.code}, signal ${first.exit.signal}); stopping\n`,
    );
    await stopAll();
    return 1;
  } catch (e) {
    process.stderr.write(`devnet start-up failed: ${e instanceof Error ? e.message : String(e)}\n`);
    await stopAll();
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
