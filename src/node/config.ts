/** Command-line flags of the chain node, each with an environment twin, and --help. */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { type LogLevel, parseLogLevel } from "../log/index.js";
import { NodeError, type NodeErrorOptions } from "./errors.js";
import { DEV_CHAIN_ID, DEV_DEFAULT_ACCOUNT_COUNT } from "../chain/index.js";
import { LIMIT_SPECS, type NodeRpcLimits } from "./rpc/limits.js";
import { RPC_SURFACES, type SurfaceOptions } from "./rpc/surfaces.js";
import { DEFAULT_WITNESS_WINDOW } from "./witness-record.js";

export interface NodeConfig {
  host: string;
  port: number;
  dataDir: string;
  chainId: bigint;
  blockTimeMs: number;
  flashblockIntervalMs: number;
  devAccounts: number;
  preconfirmedReceipts: boolean;
  callWorkers: number;
  callTimeoutMs: number;
  /** --witness-window: latest blocks whose witness record is kept (src/node/witness-record.ts). */
  witnessWindow: number;
  logLevel: LogLevel;
  /** Bounds on the cost of one request (docs/node/limits.md, "Limits"). */
  rpcLimits: NodeRpcLimits;
  /** --rpc-surface and --rpc-eth-proof-window: which client the node answers as (docs/node-surfaces.md). */
  surface: SurfaceOptions;
  /** Set with --l1-rpc and --rollup-config: the chain runs on real L1 origins (docs/node/l1.md "L1 mode"). */
  l1?: L1ModeConfig;
  /** Set with --follow: a read replica of the node at this JSON-RPC websocket URL (docs/node/replicas.md "Read replicas"). */
  follow?: string;
  /** Flags given explicitly (by flag or environment), e.g. to refuse a --chain-id the rollup config contradicts. */
  explicit: ReadonlySet<string>;
}

/** The L1 mode's flags. */
export interface L1ModeConfig {
  rpcUrl: string;
  /** The beacon API (blobs); anvil serves it on its JSON-RPC port. */
  beaconUrl: string;
  /** op-node's rollup.json of the chain (absolute path). */
  rollupConfigPath: string;
  /** L1 blocks an L1 origin must be behind the L1 head. */
  confirmations: number;
  /** How often the L1 head is polled, milliseconds. */
  pollIntervalMs: number;
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
    flag: "--follow",
    env: "NODE_FOLLOW",
    default: "",
    help: "read replica: follow the node at this JSON-RPC websocket URL (ws://host:port), re-executing its blocks and flashblocks, instead of sequencing; transactions are forwarded to it",
  },
  {
    flag: "--l1-rpc",
    env: "NODE_L1_RPC",
    default: "",
    help: "L1 JSON-RPC URL: run on real L1 origins (needs --rollup-config); unset: standalone, synthetic L1",
  },
  {
    flag: "--l1-beacon-url",
    env: "NODE_L1_BEACON_URL",
    default: "",
    help: "L1 beacon API URL (blobs); default: the --l1-rpc URL (anvil serves both)",
  },
  {
    flag: "--rollup-config",
    env: "NODE_ROLLUP_CONFIG",
    default: "",
    help: "op-node rollup.json of the L1-backed chain: chain id, block time and genesis come from it",
  },
  {
    flag: "--l1-confirmations",
    env: "NODE_L1_CONFIRMATIONS",
    default: "2",
    help: "L1 blocks an L1 origin must be behind the L1 head before the sequencer adopts it",
  },
  {
    flag: "--l1-poll-interval-ms",
    env: "NODE_L1_POLL_INTERVAL_MS",
    default: "500",
    help: "how often the L1 head is polled, milliseconds",
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
    flag: "--witness-window",
    env: "NODE_WITNESS_WINDOW",
    default: String(DEFAULT_WITNESS_WINDOW),
    help: "latest blocks whose witness the node records as it builds (sequencer) or verifies (replica) them, for debug_executionWitness (0: none; the block is executed again)",
  },
  {
    flag: "--rpc-surface",
    env: "NODE_RPC_SURFACE",
    default: "full",
    help: `answer as one client does (${RPC_SURFACES.join("|")}): its witness methods, formats and refusals (docs/node-surfaces.md)`,
  },
  {
    flag: "--rpc-eth-proof-window",
    env: "NODE_RPC_ETH_PROOF_WINDOW",
    default: "0",
    help: "with --rpc-surface reth or base: blocks behind the head eth_getProof still answers (reth's --rpc.eth-proof-window)",
  },
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
    "every flashblock, Base-format flashblocks on the websocket route /ws/flashblocks. Standalone (no",
    "--l1-rpc) it invents its L1 origins and safe = finalized = latest; with --l1-rpc and --rollup-config",
    "it sequences on the L1's blocks (deposits, system config) as op-node's sequencer does. With --follow",
    "it is a read replica of another node: the same chain flags (--chain-id and --dev-accounts, or",
    "--rollup-config), its blocks re-executed and checked, reads served here, transactions forwarded.",
    "",
    "Flags (each also read from its environment variable; the flag wins):",
  ];
  for (const f of FLAGS)
    lines.push(
      `  ${`${f.flag} <value>`.padEnd(34)} ${f.help}\n  ${"".padEnd(34)} env ${f.env}, default ${f.default === "" ? "unset" : f.default}`,
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
  const explicit = new Set<string>();
  for (const f of FLAGS) {
    const v = env[f.env];
    if (v !== undefined && v !== "") {
      values.set(f.flag, v);
      explicit.add(f.flag);
    }
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
    explicit.add(flag);
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
  const surfaceName = get("--rpc-surface");
  if (!(RPC_SURFACES as readonly string[]).includes(surfaceName))
    throw new ConfigError(`--rpc-surface must be one of ${RPC_SURFACES.join(", ")}, got "${surfaceName}"`);
  const surface: SurfaceOptions = {
    surface: surfaceName as SurfaceOptions["surface"],
    ethProofWindow: integer("--rpc-eth-proof-window", get("--rpc-eth-proof-window"), 0, 1_000_000_000),
  };
  const l1Rpc = get("--l1-rpc");
  const rollupConfig = get("--rollup-config");
  if ((l1Rpc === "") !== (rollupConfig === ""))
    throw new ConfigError("--l1-rpc and --rollup-config go together (give both, or neither for standalone)");
  if (l1Rpc === "" && get("--l1-beacon-url") !== "") throw new ConfigError("--l1-beacon-url needs --l1-rpc");
  for (const [flag, url] of [
    ["--l1-rpc", l1Rpc],
    ["--l1-beacon-url", get("--l1-beacon-url")],
  ] as const) {
    if (url !== "" && !/^https?:\/\/[^\s]+$/.test(url))
      throw new ConfigError(`${flag} must be an http(s) URL, got "${url}"`);
  }
  const follow = get("--follow");
  if (follow !== "" && !/^wss?:\/\/[^\s]+$/.test(follow))
    throw new ConfigError(`--follow must be a ws(s) URL of the leader's JSON-RPC websocket, got "${follow}"`);
  const l1: L1ModeConfig | undefined =
    l1Rpc === ""
      ? undefined
      : {
          rpcUrl: l1Rpc,
          beaconUrl: get("--l1-beacon-url") === "" ? l1Rpc : get("--l1-beacon-url"),
          rollupConfigPath: resolve(rollupConfig),
          confirmations: integer("--l1-confirmations", get("--l1-confirmations"), 0, 1_000),
          pollIntervalMs: integer("--l1-poll-interval-ms", get("--l1-poll-interval-ms"), 10, 60_000),
        };
  return {
    ...(l1 === undefined ? {} : { l1 }),
    ...(follow === "" ? {} : { follow }),
    explicit,
    rpcLimits,
    surface,
    host,
    port: integer("--port", get("--port"), 0, 65_535),
    dataDir: resolve(get("--data-dir")),
    chainId: BigInt(chainIdText),
    blockTimeMs,
    flashblockIntervalMs,
    devAccounts: integer("--dev-accounts", get("--dev-accounts"), 1, 100),
    preconfirmedReceipts: boolean("--preconfirmed-receipts", get("--preconfirmed-receipts")),
    callWorkers: integer("--call-workers", get("--call-workers"), 0, 64),
    callTimeoutMs: integer("--call-timeout-ms", get("--call-timeout-ms"), 10, 600_000),
    witnessWindow: integer("--witness-window", get("--witness-window"), 0, 1_000_000_000),
    logLevel,
  };
}
