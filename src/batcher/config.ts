/** Command-line flags and environment variables of the batcher process (docs/batcher.md, "Flags"). */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Address, type Hex, bytesToHex, getAddress, isAddress } from "viem";
import { type RollupConfig, parseRollupConfig } from "../chain/index.js";
import { CHANNEL_TIMEOUT_GRANITE, type CompressionAlgo } from "../derive/index.js";
import { type LogLevel, parseLogLevel } from "../log/index.js";
import {
  type BatcherSettings,
  type DataAvailability,
  MAX_BLOBS_PER_TX,
  MAX_CALLDATA_TX_BYTES,
} from "./batcher.js";
import { BatcherConfigError } from "./errors.js";

export const BATCHER_USAGE = `Usage: batcher [options]

Posts the L2 node's sealed blocks to the L1 batch inbox: span batches, compressed into channels, cut into frames,
sent as blob or calldata transactions signed by the batcher key. Resumes after the last block L1 holds.

Options (each also read from the environment variable in brackets):
  --l1-rpc-url <url>            L1 JSON-RPC URL                                [BATCHER_L1_RPC_URL] (required)
  --l1-beacon-url <url>         L1 beacon API (blobs); default: the L1 RPC URL [BATCHER_L1_BEACON_URL]
  --l2-rpc-url <url>            L2 node JSON-RPC URL                           [BATCHER_L2_RPC_URL] (required)
  --rollup-config <file>        op-node rollup config JSON: batch inbox, block time, L2 genesis time and chain id,
                                sequencing window, channel timeout              [BATCHER_ROLLUP_CONFIG]
  --batch-inbox <address>       batch inbox (required without a rollup config that names it)
                                                                               [BATCHER_BATCH_INBOX]
  --l2-block-time <s>           L2 block time without a rollup config (default 2) [BATCHER_L2_BLOCK_TIME]
  --private-key-file <path>     file holding the batcher's 0x-prefixed private key [BATCHER_PRIVATE_KEY_FILE]
                                (or the key itself in BATCHER_PRIVATE_KEY; never on the command line)
  --data-availability <mode>    blobs | calldata (default blobs)               [BATCHER_DATA_AVAILABILITY]
  --compression <algo>          zlib | brotli (default zlib)                   [BATCHER_COMPRESSION]
  --target-num-frames <n>       frames per channel at most (default 1 for calldata, 6 for blobs)
                                                                               [BATCHER_TARGET_NUM_FRAMES]
  --max-blobs-per-tx <n>        blobs per transaction, 1-6 (default 6)         [BATCHER_MAX_BLOBS_PER_TX]
  --max-l1-tx-size-bytes <n>    largest calldata payload (default 120000)      [BATCHER_MAX_L1_TX_SIZE_BYTES]
  --max-channel-duration <n>    L1 blocks a channel stays open at most; 0: until full or near the end of the
                                sequencing window (default 0, as op-batcher)   [BATCHER_MAX_CHANNEL_DURATION]
  --sub-safety-margin <n>       L1 blocks kept from the sequencing window and channel timeout (default 10)
                                                                               [BATCHER_SUB_SAFETY_MARGIN]
  --seq-window-size <n>         sequencing window without a rollup config (default 3600) [BATCHER_SEQ_WINDOW_SIZE]
  --channel-timeout <n>         channel timeout without a rollup config (default 50) [BATCHER_CHANNEL_TIMEOUT]
  --l1-start-block <n>          earliest L1 block that can hold this chain's batches (default 0)
                                                                               [BATCHER_L1_START_BLOCK]
  --num-confirmations <n>       L1 blocks deep a transaction must be before the next is sent (default 1)
                                                                               [BATCHER_NUM_CONFIRMATIONS]
  --resubmission-timeout <n>    L1 blocks to wait for inclusion before resending with higher fees (default 5)
                                                                               [BATCHER_RESUBMISSION_TIMEOUT]
  --poll-interval-ms <n>        how often L1 and L2 are polled (default 1000)  [BATCHER_POLL_INTERVAL_MS]
  --metrics-listen <host:port>  serve Prometheus metrics on GET /metrics (default: off) [BATCHER_METRICS_LISTEN]
  --log-level <level>           fatal|error|warn|info|debug|trace|silent (default info) [BATCHER_LOG_LEVEL]
  -h, --help                    print this help
`;

export interface BatcherConfig {
  readonly l1RpcUrl: string;
  readonly l1BeaconUrl: string;
  readonly l2RpcUrl: string;
  readonly batchInbox: Address;
  readonly privateKey: Hex;
  /** From the rollup config; otherwise read from the L2 node (genesis block, eth_chainId). */
  readonly l2GenesisTime: bigint | undefined;
  readonly l2ChainId: bigint | undefined;
  readonly l2BlockTime: bigint;
  readonly settings: BatcherSettings;
  /** L1 blocks deep a batcher transaction must be before the next is sent. */
  readonly numConfirmations: number;
  readonly metricsListen: { host: string; port: number } | undefined;
  readonly logLevel: LogLevel;
}

export type ParsedCommandLine = { kind: "help"; text: string } | { kind: "run"; config: BatcherConfig };

const FLAGS = {
  "l1-rpc-url": "BATCHER_L1_RPC_URL",
  "l1-beacon-url": "BATCHER_L1_BEACON_URL",
  "l2-rpc-url": "BATCHER_L2_RPC_URL",
  "rollup-config": "BATCHER_ROLLUP_CONFIG",
  "batch-inbox": "BATCHER_BATCH_INBOX",
  "l2-block-time": "BATCHER_L2_BLOCK_TIME",
  "private-key-file": "BATCHER_PRIVATE_KEY_FILE",
  "data-availability": "BATCHER_DATA_AVAILABILITY",
  compression: "BATCHER_COMPRESSION",
  "target-num-frames": "BATCHER_TARGET_NUM_FRAMES",
  "max-blobs-per-tx": "BATCHER_MAX_BLOBS_PER_TX",
  "max-l1-tx-size-bytes": "BATCHER_MAX_L1_TX_SIZE_BYTES",
  "max-channel-duration": "BATCHER_MAX_CHANNEL_DURATION",
  "sub-safety-margin": "BATCHER_SUB_SAFETY_MARGIN",
  "seq-window-size": "BATCHER_SEQ_WINDOW_SIZE",
  "channel-timeout": "BATCHER_CHANNEL_TIMEOUT",
  "l1-start-block": "BATCHER_L1_START_BLOCK",
  "num-confirmations": "BATCHER_NUM_CONFIRMATIONS",
  "resubmission-timeout": "BATCHER_RESUBMISSION_TIMEOUT",
  "poll-interval-ms": "BATCHER_POLL_INTERVAL_MS",
  "metrics-listen": "BATCHER_METRICS_LISTEN",
  "log-level": "BATCHER_LOG_LEVEL",
} as const;
type Flag = keyof typeof FLAGS;

function integer(text: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[0-9]{1,15}$/.test(text) || Number(text) < min || Number(text) > max)
    throw new BatcherConfigError(`--${flag} must be an integer in [${min}, ${max}]`, { flag, value: text });
  return Number(text);
}

function url(text: string, flag: string): string {
  if (!/^https?:\/\/\S+$/.test(text))
    throw new BatcherConfigError(`--${flag} must be an http(s) URL`, { flag, value: text });
  return text;
}

function parseListen(text: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:]+):([0-9]{1,5})$/.exec(text);
  if (match === null)
    throw new BatcherConfigError(`--metrics-listen must be host:port, got ${text}`, {
      flag: "metrics-listen",
    });
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port: integer(match[2]!, "metrics-listen", 0, 65535) };
}

function privateKey(env: NodeJS.ProcessEnv, file: string | undefined): Hex {
  let text: string | undefined;
  if (file !== undefined) {
    try {
      text = readFileSync(file, "utf8").trim();
    } catch (e) {
      throw new BatcherConfigError(
        `cannot read --private-key-file ${file}`,
        { flag: "private-key-file" },
        { cause: e },
      );
    }
  } else text = env.BATCHER_PRIVATE_KEY;
  if (text === undefined || text === "")
    throw new BatcherConfigError("the batcher key is required: BATCHER_PRIVATE_KEY or --private-key-file", {
      flag: "private-key-file",
    });
  if (!/^0x[0-9a-fA-F]{64}$/.test(text))
    throw new BatcherConfigError("the batcher key must be 32 bytes of 0x-prefixed hex", {
      flag: "private-key-file",
    });
  return text as Hex;
}

function logLevel(text: string): LogLevel {
  try {
    return parseLogLevel(text);
  } catch (e) {
    throw new BatcherConfigError(`--log-level: unknown level ${text}`, { flag: "log-level" }, { cause: e });
  }
}

function rollupConfigFrom(file: string): RollupConfig {
  try {
    return parseRollupConfig(JSON.parse(readFileSync(file, "utf8")));
  } catch (e) {
    throw new BatcherConfigError(
      `cannot use --rollup-config ${file}`,
      { flag: "rollup-config" },
      { cause: e },
    );
  }
}

export function parseBatcherCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(Object.keys(FLAGS).map((f) => [f, { type: "string" as const }])),
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new BatcherConfigError((e as Error).message, {}, { cause: e });
  }
  if (values.help === true) return { kind: "help", text: BATCHER_USAGE };
  const pick = (flag: Flag): string | undefined => {
    const value = values[flag];
    if (typeof value === "string") return value;
    const fromEnv = env[FLAGS[flag]];
    return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
  };
  const required = (flag: Flag): string => {
    const value = pick(flag);
    if (value === undefined)
      throw new BatcherConfigError(`--${flag} (or ${FLAGS[flag]}) is required`, { flag });
    return value;
  };
  const int = (flag: Flag, fallback: number, min: number, max?: number): number => {
    const v = pick(flag);
    return v === undefined ? fallback : integer(v, flag, min, max);
  };
  const rollupFile = pick("rollup-config");
  const rollup = rollupFile === undefined ? undefined : rollupConfigFrom(rollupFile);
  const inboxText =
    pick("batch-inbox") ?? (rollup?.batchInboxAddress && bytesToHex(rollup.batchInboxAddress));
  if (inboxText === undefined)
    throw new BatcherConfigError("--batch-inbox (or BATCHER_BATCH_INBOX, or a rollup config) is required", {
      flag: "batch-inbox",
    });
  if (!isAddress(inboxText, { strict: false }))
    throw new BatcherConfigError("--batch-inbox must be a 20-byte hex address", { flag: "batch-inbox" });
  const da = pick("data-availability") ?? "blobs";
  if (da !== "blobs" && da !== "calldata")
    throw new BatcherConfigError("--data-availability must be blobs or calldata", {
      flag: "data-availability",
    });
  const compression = pick("compression") ?? "zlib";
  if (compression !== "zlib" && compression !== "brotli")
    throw new BatcherConfigError("--compression must be zlib or brotli", { flag: "compression" });
  const maxBlobsPerTx = int("max-blobs-per-tx", MAX_BLOBS_PER_TX, 1, MAX_BLOBS_PER_TX);
  const l1RpcUrl = url(required("l1-rpc-url"), "l1-rpc-url");
  const listen = pick("metrics-listen");
  const settings: BatcherSettings = {
    dataAvailability: da as DataAvailability,
    compression: compression as CompressionAlgo,
    targetNumFrames: int("target-num-frames", da === "blobs" ? maxBlobsPerTx : 1, 1, 0xffff),
    maxBlobsPerTx,
    maxCalldataTxBytes: int("max-l1-tx-size-bytes", MAX_CALLDATA_TX_BYTES, 100, 1_000_000),
    maxChannelDuration: int("max-channel-duration", 0, 0),
    subSafetyMargin: BigInt(int("sub-safety-margin", 10, 0)),
    seqWindowSize: rollup?.seqWindowSize ?? BigInt(int("seq-window-size", 3600, 1)),
    channelTimeout:
      rollup?.channelTimeout ?? BigInt(int("channel-timeout", Number(CHANNEL_TIMEOUT_GRANITE), 1)),
    l1StartBlock: BigInt(int("l1-start-block", 0, 0)),
    pollIntervalMs: int("poll-interval-ms", 1000, 10),
    resubmitAfterBlocks: int("resubmission-timeout", 5, 1),
  };
  return {
    kind: "run",
    config: {
      l1RpcUrl,
      l1BeaconUrl: url(pick("l1-beacon-url") ?? l1RpcUrl, "l1-beacon-url"),
      l2RpcUrl: url(required("l2-rpc-url"), "l2-rpc-url"),
      batchInbox: getAddress(inboxText),
      privateKey: privateKey(env, pick("private-key-file")),
      l2GenesisTime: rollup?.genesisL2Time,
      l2ChainId: rollup?.l2ChainId,
      l2BlockTime: rollup?.blockTime ?? BigInt(int("l2-block-time", 2, 1)),
      settings,
      numConfirmations: int("num-confirmations", 1, 1),
      metricsListen: listen === undefined ? undefined : parseListen(listen),
      logLevel: logLevel(pick("log-level") ?? "info"),
    },
  };
}

export { BatcherConfigError };
