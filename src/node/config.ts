/** Command-line flags of the chain node, each with an environment twin, and --help. */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { type LogLevel, parseLogLevel } from "../log/index.js";
import { NodeError, type NodeErrorOptions } from "./errors.js";
import { DEV_CHAIN_ID, DEV_DEFAULT_ACCOUNT_COUNT } from "../chain/index.js";
import { LIMIT_SPECS, type NodeRpcLimits } from "./rpc/limits.js";

export interface NodeConfig {
  host: string;
  port: number;
  dataDir: string;
  chainId: bigint;
  blockTimeMs: number;
  flashblockIntervalMs: number;
  devAccounts: number;
  safeDepth: bigint;
  preconfirmedReceipts: boolean;
  finalizedDepth: bigint;
  callWorkers: number;
  callTimeoutMs: number;
  logLevel: LogLevel;
  /** Bounds on the cost of one request (docs/node.md, "Limits"). */
  rpcLimits: NodeRpcLimits;
}

/** Worker threads for calls by default: one core is the sequencer's and the server's; at most 4. */
export const DEFAULT_CALL_WORKERS = Math.max(1, Math.min(4, availableParallelism() - 1));

interface FlagSpec {
  flag: string;
  env: string;
  default: string;
  help: string;
}

export const FLAGS: FlagSpec[] = [
  {
    flag: "--host",
    env: "NODE_HOST",
    default: "127.0.0.1",
    help: "address to serve JSON-RPC (HTTP and websocket) on",
  },
  { flag: "--port", env: "NODE_PORT", default: "8545", help: "port to serve on (0 = any free port)" },
  {
    flag: "--data-dir",
    env: "NODE_DATA_DIR",
    default: ".data/node",
    help: "directory of the chain database (created if missing)",
  },
  {
    flag: "--chain-id",
    env: "NODE_CHAIN_ID",
    default: String(DEV_CHAIN_ID),
    help: "L2 chain id of a new chain (must match an existing data dir)",
  },
  {
    flag: "--block-time-ms",
    env: "NODE_BLOCK_TIME_MS",
    default: "2000",
    help: "time between sealed blocks, milliseconds",
  },
  {
    flag: "--flashblock-interval-ms",
    env: "NODE_FLASHBLOCK_INTERVAL_MS",
    default: "200",
    help: "time between pre-confirmation snapshots, milliseconds",
  },
  {
    flag: "--dev-accounts",
    env: "NODE_DEV_ACCOUNTS",
    default: String(DEV_DEFAULT_ACCOUNT_COUNT),
    help: "prefunded accounts of the test mnemonic in a new genesis (1-100)",
  },
  {
    flag: "--safe-depth",
    env: "NODE_SAFE_DEPTH",
    default: "0",
    help: "`safe` is this many blocks behind `latest`",
  },
  {
    flag: "--finalized-depth",
    env: "NODE_FINALIZED_DEPTH",
    default: "0",
    help: "`finalized` is this many blocks behind `latest`",
  },
  {
    flag: "--preconfirmed-receipts",
    env: "NODE_PRECONFIRMED_RECEIPTS",
    default: "true",
    help: "true: receipts of pre-confirmed transactions are served; false: only once sealed",
  },
  {
    flag: "--call-workers",
    env: "NODE_CALL_WORKERS",
    default: String(DEFAULT_CALL_WORKERS),
    help: "worker threads for eth_call and eth_estimateGas (0: run them on the event loop)",
  },
  {
    flag: "--call-timeout-ms",
    env: "NODE_CALL_TIMEOUT_MS",
    default: "5000",
    help: "deadline of one EVM execution of eth_call / eth_estimateGas on a worker, milliseconds",
  },
  ...LIMIT_SPECS.map((l) => ({ flag: l.flag, env: l.env, default: String(l.default), help: l.help })),
  {
    flag: "--log-level",
    env: "LOG_LEVEL",
    default: "info",
    help: "fatal, error, warn, info, debug, trace or silent",
  },
];

/** A flag or environment variable the node cannot run with. */
export class ConfigError extends NodeError {
  constructor(message: string, options?: NodeErrorOptions) {
    super(message, "config", options);
  }
}

export function usage(): string {
  const lines = [
    "Usage: npm run node -- [flags]   (or: npx tsx src/node/main.ts [flags]; `npm start` runs the whole devnet)",
    "",
    "Runs a local OP Stack dev chain: JSON-RPC on HTTP and websocket, a pending view refreshed at",
    "every flashblock, Base-format flashblocks on the websocket route /ws/flashblocks.",
    "",
    "Flags (each also read from its environment variable; the flag wins):",
  ];
  for (const f of FLAGS)
    lines.push(
      `  ${`${f.flag} <value>`.padEnd(34)} ${f.help}\n  ${"".padEnd(34)} env ${f.env}, default ${f.default}`,
    );
  lines.push(`  ${"--help".padEnd(34)} print this help`);
  return lines.join("\n");
}

function boolean(name: string, text: string): boolean {
  if (text === "true") return true;
  if (text === "false") return false;
  throw new ConfigError(`${name} must be true or false, got "${text}"`);
}

function integer(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw new ConfigError(`${name} must be a whole number, got "${text}"`);
  const n = Number(text);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** Parses argv (without node and script) and env. Returns "help" for --help. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): NodeConfig | "help" {
  const values = new Map<string, string>();
  for (const f of FLAGS) {
    const v = env[f.env];
    if (v !== undefined && v !== "") values.set(f.flag, v);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return "help";
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    if (!FLAGS.some((f) => f.flag === flag)) throw new ConfigError(`unknown flag ${flag} (see --help)`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    values.set(flag, value);
  }
  const get = (flag: string): string => values.get(flag) ?? FLAGS.find((f) => f.flag === flag)!.default;
  const blockTimeMs = integer("--block-time-ms", get("--block-time-ms"), 50, 3_600_000);
  const flashblockIntervalMs = integer(
    "--flashblock-interval-ms",
    get("--flashblock-interval-ms"),
    10,
    3_600_000,
  );
  if (flashblockIntervalMs > blockTimeMs)
    throw new ConfigError("--flashblock-interval-ms cannot exceed --block-time-ms");
  const chainIdText = get("--chain-id");
  if (!/^\d{1,15}$/.test(chainIdText) || BigInt(chainIdText) === 0n)
    throw new ConfigError(`--chain-id must be a positive integer, got "${chainIdText}"`);
  const host = get("--host");
  if (host.length === 0) throw new ConfigError("--host cannot be empty");
  let logLevel: LogLevel;
  try {
    logLevel = parseLogLevel(get("--log-level"));
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const rpcLimits = Object.fromEntries(
    LIMIT_SPECS.map((l) => [l.field, integer(l.flag, get(l.flag), 1, Number.MAX_SAFE_INTEGER)]),
  ) as unknown as NodeRpcLimits;
  return {
    rpcLimits,
    host,
    port: integer("--port", get("--port"), 0, 65_535),
    dataDir: resolve(get("--data-dir")),
    chainId: BigInt(chainIdText),
    blockTimeMs,
    flashblockIntervalMs,
    devAccounts: integer("--dev-accounts", get("--dev-accounts"), 1, 100),
    safeDepth: BigInt(integer("--safe-depth", get("--safe-depth"), 0, 1_000_000)),
    preconfirmedReceipts: boolean("--preconfirmed-receipts", get("--preconfirmed-receipts")),
    finalizedDepth: BigInt(integer("--finalized-depth", get("--finalized-depth"), 0, 1_000_000)),
    callWorkers: integer("--call-workers", get("--call-workers"), 0, 64),
    callTimeoutMs: integer("--call-timeout-ms", get("--call-timeout-ms"), 10, 600_000),
    logLevel,
  };
}
