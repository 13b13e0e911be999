/** Command-line flags and environment variables of the challenger process (docs/proposer.md "Flags"). */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Address, type Hex, getAddress, isAddress } from "viem";
import { type LogLevel, parseLogLevel } from "../log/index.js";
import { ChallengerConfigError } from "./errors.js";

export const CHALLENGER_USAGE = `Usage: challenger [options]

Watches AggregateVerifier's Proposed events, checks each proposal's intermediate roots against the node's
optimism_outputAtBlock and, for a wrong one, proves the first wrong interval through the prover host and calls
nullify(): the proposal is Nullified and every proposal built on it invalidated. Correct proposals are left alone.

Options (each also read from the environment variable in brackets):
  --l1-rpc-url <url>          L1 JSON-RPC URL (the verifier's chain)            [CHALLENGER_L1_RPC_URL] (required)
  --rollup-rpc-url <url>      the L2 node: optimism_syncStatus, optimism_outputAtBlock
                                                                                [CHALLENGER_ROLLUP_RPC_URL] (required)
  --prover-url <url>          the prover host (prover_prove)                    [CHALLENGER_PROVER_URL] (required)
  --verifier <address>        AggregateVerifier                                 [CHALLENGER_VERIFIER] (required)
  --private-key-file <path>   file holding the challenger's 0x-prefixed private key [CHALLENGER_PRIVATE_KEY_FILE]
                              (or the key itself in CHALLENGER_PRIVATE_KEY; never on the command line)
  --poll-interval-ms <n>      how often the node and the contract are read (default 2000)
                                                                                [CHALLENGER_POLL_INTERVAL_MS]
  --l1-confirmations <n>      L1 blocks a Proposed event must be deep before it is checked (default 1)
                                                                                [CHALLENGER_L1_CONFIRMATIONS]
  --start-block <n>           first L1 block scanned for Proposed events (default 0) [CHALLENGER_START_BLOCK]
  --prove-timeout-ms <n>      longest prover_prove call (default 900000)        [CHALLENGER_PROVE_TIMEOUT_MS]
  --max-backoff-ms <n>        longest wait after an error (default 30000)       [CHALLENGER_MAX_BACKOFF_MS]
  --log-level <level>         fatal|error|warn|info|debug|trace|silent (default info) [CHALLENGER_LOG_LEVEL]
  -h, --help                  print this help
`;

export interface ChallengerConfig {
  readonly l1RpcUrl: string;
  readonly rollupRpcUrl: string;
  readonly proverUrl: string;
  readonly verifier: Address;
  readonly privateKey: Hex;
  readonly pollIntervalMs: number;
  readonly l1Confirmations: number;
  readonly startBlock: bigint;
  readonly proveTimeoutMs: number;
  readonly maxBackoffMs: number;
  readonly logLevel: LogLevel;
}

export type ChallengerCommandLine =
  { kind: "help"; text: string } | { kind: "run"; config: ChallengerConfig };

const FLAGS = {
  "l1-rpc-url": "CHALLENGER_L1_RPC_URL",
  "rollup-rpc-url": "CHALLENGER_ROLLUP_RPC_URL",
  "prover-url": "CHALLENGER_PROVER_URL",
  verifier: "CHALLENGER_VERIFIER",
  "private-key-file": "CHALLENGER_PRIVATE_KEY_FILE",
  "poll-interval-ms": "CHALLENGER_POLL_INTERVAL_MS",
  "l1-confirmations": "CHALLENGER_L1_CONFIRMATIONS",
  "start-block": "CHALLENGER_START_BLOCK",
  "prove-timeout-ms": "CHALLENGER_PROVE_TIMEOUT_MS",
  "max-backoff-ms": "CHALLENGER_MAX_BACKOFF_MS",
  "log-level": "CHALLENGER_LOG_LEVEL",
} as const;
type Flag = keyof typeof FLAGS;

function integer(text: string, flag: Flag, min: number): number {
  if (!/^[0-9]{1,12}$/.test(text) || Number(text) < min)
    throw new ChallengerConfigError(`--${flag} must be an integer of at least ${min}`, { flag, value: text });
  return Number(text);
}

function url(text: string, flag: Flag): string {
  if (!/^https?:\/\/\S+$/.test(text))
    throw new ChallengerConfigError(`--${flag} must be an http(s) URL`, { flag, value: text });
  return text;
}

function privateKey(env: NodeJS.ProcessEnv, file: string | undefined): Hex {
  let text: string | undefined;
  if (file !== undefined) {
    try {
      text = readFileSync(file, "utf8").trim();
    } catch (e) {
      throw new ChallengerConfigError(
        `cannot read --private-key-file ${file}`,
        { flag: "private-key-file" },
        { cause: e },
      );
    }
  } else text = env.CHALLENGER_PRIVATE_KEY;
  if (text === undefined || text === "")
    throw new ChallengerConfigError(
      "the challenger key is required: CHALLENGER_PRIVATE_KEY or --private-key-file",
      {
        flag: "private-key-file",
      },
    );
  if (!/^0x[0-9a-fA-F]{64}$/.test(text))
    throw new ChallengerConfigError("the challenger key must be 32 bytes of 0x-prefixed hex", {
      flag: "private-key-file",
    });
  return text as Hex;
}

/** Parses argv (without the node and script paths) with the environment's twins; the flag wins. */
export function parseChallengerCommandLine(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): ChallengerCommandLine {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: "string" as const }])),
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new ChallengerConfigError((e as Error).message, {}, { cause: e });
  }
  if (values.help === true) return { kind: "help", text: CHALLENGER_USAGE };
  const get = (flag: Flag): string | undefined => {
    const value = values[flag];
    if (typeof value === "string") return value;
    const twin = env[FLAGS[flag]];
    return twin === undefined || twin === "" ? undefined : twin;
  };
  const need = (flag: Flag): string => {
    const value = get(flag);
    if (value === undefined) throw new ChallengerConfigError(`--${flag} is required`, { flag });
    return value;
  };
  const verifier = need("verifier");
  if (!isAddress(verifier, { strict: false }))
    throw new ChallengerConfigError("--verifier must be an address", { flag: "verifier", value: verifier });
  let logLevel: LogLevel;
  try {
    logLevel = parseLogLevel(get("log-level") ?? "info");
  } catch (e) {
    throw new ChallengerConfigError("--log-level is not a level", { flag: "log-level" }, { cause: e });
  }
  return {
    kind: "run",
    config: {
      l1RpcUrl: url(need("l1-rpc-url"), "l1-rpc-url"),
      rollupRpcUrl: url(need("rollup-rpc-url"), "rollup-rpc-url"),
      proverUrl: url(need("prover-url"), "prover-url"),
      verifier: getAddress(verifier),
      privateKey: privateKey(env, get("private-key-file")),
      pollIntervalMs: integer(get("poll-interval-ms") ?? "2000", "poll-interval-ms", 10),
      l1Confirmations: integer(get("l1-confirmations") ?? "1", "l1-confirmations", 0),
      startBlock: BigInt(integer(get("start-block") ?? "0", "start-block", 0)),
      proveTimeoutMs: integer(get("prove-timeout-ms") ?? "900000", "prove-timeout-ms", 1000),
      maxBackoffMs: integer(get("max-backoff-ms") ?? "30000", "max-backoff-ms", 10),
      logLevel,
    },
  };
}
