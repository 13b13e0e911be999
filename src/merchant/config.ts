/** Command-line flags and environment variables of the merchant service process. */
import { parseArgs } from "node:util";
import { type Address, getAddress, type Hex, isAddress } from "viem";
import { type LogLevel, parseLogLevel } from "../log/index.js";
import type { MerchantConfig } from "./app.js";
import type { SettleAt } from "./chain.js";
import { ConfigError } from "./errors.js";

export const MERCHANT_USAGE = `Usage: merchant [options]

Runs the merchant order service: an HTTP JSON API over EIP-3009 authorizations of one token.

Options (each also read from the environment variable in brackets):
  --rpc-url <url>              JSON-RPC URL of the chain node            [MERCHANT_RPC_URL]  (required)
  --token <address>            EIP-3009 token contract                    [MERCHANT_TOKEN]    (required)
  --relayer-key <0x..32 bytes> private key that sends captures and cancels, pays gas
                                                                          [MERCHANT_RELAYER_KEY] (required)
  --payee <address>            address authorizations must pay (default: the relayer) [MERCHANT_PAYEE]
  --listen <host:port>         API listen address (default 127.0.0.1:8650; port 0 = any free port)
                                                                          [MERCHANT_LISTEN]
  --database-url <url>         PostgreSQL connection URL; when set, used instead of SQLite [DATABASE_URL]
  --sqlite <path>              SQLite database file (default ./merchant.db) [MERCHANT_SQLITE_PATH]
  --settle-at <tag>            safe | finalized: the block tag whose block settles orders (default safe)
                                                                          [MERCHANT_SETTLE_AT]
  --reconcile-interval-ms <n>  reconciler period (default 1000)           [MERCHANT_RECONCILE_INTERVAL_MS]
  --max-in-flight <n>          HTTP requests served at once; more are answered 503 (default 1024)
                                                                          [MERCHANT_MAX_IN_FLIGHT]
  --bootstrap-key-file <path>  keep a write-scope API key in this file (created at start when the file has none
                               that works; mode 0600) for local clients     [MERCHANT_BOOTSTRAP_KEY_FILE]
  --log-level <level>          fatal|error|warn|info|debug|trace|silent (default info) [MERCHANT_LOG_LEVEL]
  -h, --help                   print this help
`;

export { ConfigError };

export interface ProcessConfig {
  help: boolean;
  merchant: MerchantConfig;
  logLevel: LogLevel;
}

function positiveInt(text: string, name: string, min: number): number {
  if (!/^[0-9]{1,9}$/.test(text) || Number(text) < min)
    throw new ConfigError(`${name} must be an integer >= ${min}`);
  return Number(text);
}

export function parseListen(text: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:]+):([0-9]{1,5})$/.exec(text);
  if (match === null) throw new ConfigError(`--listen must be host:port, got ${text}`);
  const port = Number(match[2]);
  if (port > 65535) throw new ConfigError(`port ${port} is out of range`);
  return { host: (match[1] as string).replace(/^\[|\]$/g, ""), port };
}

function settleAt(text: string): SettleAt {
  if (text !== "safe" && text !== "finalized")
    throw new ConfigError(`--settle-at must be safe or finalized, got ${text}`);
  return text;
}

function address(text: string, name: string): Address {
  if (!isAddress(text, { strict: false })) throw new ConfigError(`${name} must be a 20-byte hex address`);
  return getAddress(text);
}

export function parseProcessConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ProcessConfig {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        "rpc-url": { type: "string" },
        token: { type: "string" },
        "relayer-key": { type: "string" },
        payee: { type: "string" },
        listen: { type: "string" },
        "database-url": { type: "string" },
        sqlite: { type: "string" },
        "settle-at": { type: "string" },
        "reconcile-interval-ms": { type: "string" },
        "max-in-flight": { type: "string" },
        "bootstrap-key-file": { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ConfigError((error as Error).message, { cause: error });
  }
  const pick = (flag: string, variable: string): string | undefined => {
    const value = values[flag];
    if (typeof value === "string") return value;
    const fromEnv = env[variable];
    return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
  };
  const help = values.help === true;
  const logLevel = parseLogLevel(pick("log-level", "MERCHANT_LOG_LEVEL") ?? "info");
  if (help) {
    return { help, logLevel, merchant: undefined as unknown as MerchantConfig };
  }
  const rpcUrl = pick("rpc-url", "MERCHANT_RPC_URL");
  const token = pick("token", "MERCHANT_TOKEN");
  const relayerKey = pick("relayer-key", "MERCHANT_RELAYER_KEY");
  if (rpcUrl === undefined) throw new ConfigError("--rpc-url (or MERCHANT_RPC_URL) is required");
  if (!/^https?:\/\//.test(rpcUrl)) throw new ConfigError("--rpc-url must be an http(s) URL");
  if (token === undefined) throw new ConfigError("--token (or MERCHANT_TOKEN) is required");
  if (relayerKey === undefined) throw new ConfigError("--relayer-key (or MERCHANT_RELAYER_KEY) is required");
  if (!/^0x[0-9a-fA-F]{64}$/.test(relayerKey))
    throw new ConfigError("--relayer-key must be 32 bytes of 0x-prefixed hex");
  const payee = pick("payee", "MERCHANT_PAYEE");
  const listen = parseListen(pick("listen", "MERCHANT_LISTEN") ?? "127.0.0.1:8650");
  const databaseUrl = pick("database-url", "DATABASE_URL");
  const merchant: MerchantConfig = {
    rpcUrl,
    token: address(token, "--token"),
    relayerKey: relayerKey as Hex,
    host: listen.host,
    port: listen.port,
    sqlitePath: pick("sqlite", "MERCHANT_SQLITE_PATH") ?? "./merchant.db",
    settleAt: settleAt(pick("settle-at", "MERCHANT_SETTLE_AT") ?? "safe"),
    reconcileIntervalMs: positiveInt(
      pick("reconcile-interval-ms", "MERCHANT_RECONCILE_INTERVAL_MS") ?? "1000",
      "--reconcile-interval-ms",
      10,
    ),
    maxInFlight: positiveInt(pick("max-in-flight", "MERCHANT_MAX_IN_FLIGHT") ?? "1024", "--max-in-flight", 1),
  };
  if (payee !== undefined) merchant.payee = address(payee, "--payee");
  if (databaseUrl !== undefined) merchant.databaseUrl = databaseUrl;
  const bootstrapKeyFile = pick("bootstrap-key-file", "MERCHANT_BOOTSTRAP_KEY_FILE");
  if (bootstrapKeyFile !== undefined) merchant.bootstrapKeyFile = bootstrapKeyFile;
  return { help, logLevel, merchant };
}
