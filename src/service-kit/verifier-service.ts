/**
 * What the two AggregateVerifier services (src/proposer, src/challenger; docs/proposer.md) share: their common
 * flags with environment twins (keys only from the environment or a file) and their clients (L1, our node, the
 * prover host).
 */
import { readFileSync } from "node:fs";
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { httpTransport, NodeClient, ProverClient } from "../../generated/rpc/index.js";
import type { LogLevel } from "../log/index.js";
import {
  addressFlag,
  envTwin,
  type FlagFailure,
  type FlagSpec,
  integerFlag,
  logLevelFlag,
  parseFlags,
  urlFlag,
} from "./flags.js";

/** The flags both services take (docs/proposer.md "Flags"). */
export interface VerifierServiceConfig {
  readonly l1RpcUrl: string;
  readonly rollupRpcUrl: string;
  readonly proverUrl: string;
  readonly verifier: Address;
  readonly privateKey: Hex;
  readonly pollIntervalMs: number;
  readonly l1Confirmations: number;
  readonly proveTimeoutMs: number;
  readonly maxBackoffMs: number;
  readonly logLevel: LogLevel;
}

export interface VerifierServiceFlags {
  /** The process name, for messages ("proposer"). */
  readonly name: string;
  /** Prefix of the environment twins ("PROPOSER": PROPOSER_L1_RPC_URL, PROPOSER_PRIVATE_KEY, …). */
  readonly envPrefix: string;
  readonly usage: string;
  /** The service's own string flags besides the common ones. */
  readonly extra?: readonly string[];
  readonly fail: FlagFailure;
}

export type VerifierServiceCommandLine =
  | { readonly kind: "help"; readonly text: string }
  | {
      readonly kind: "run";
      readonly config: VerifierServiceConfig;
      /** The extra flags' values (flag or twin), undefined when unset. */
      readonly extra: Readonly<Record<string, string | undefined>>;
    };

const COMMON_FLAGS = [
  "l1-rpc-url",
  "rollup-rpc-url",
  "prover-url",
  "verifier",
  "private-key-file",
  "poll-interval-ms",
  "l1-confirmations",
  "prove-timeout-ms",
  "max-backoff-ms",
  "log-level",
] as const;

/** Parses argv (without the node and script paths) with the environment's twins; the flag wins. */
export function parseVerifierServiceCommandLine(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  spec: VerifierServiceFlags,
): VerifierServiceCommandLine {
  const { fail, envPrefix } = spec;
  const table: FlagSpec[] = [...COMMON_FLAGS, ...(spec.extra ?? [])].map((flag) => ({
    flag,
    env: envTwin(envPrefix, flag),
    help: "",
  }));
  const flags = parseFlags(argv, env, table, { fail });
  if (flags.help) return { kind: "help", text: spec.usage };
  const url = (flag: string): string => urlFlag(flags.need(flag), flag, fail);
  const int = (flag: string, fallback: string, min: number) =>
    integerFlag(flags.text(flag) ?? fallback, flag, min, fail);
  return {
    kind: "run",
    config: {
      l1RpcUrl: url("l1-rpc-url"),
      rollupRpcUrl: url("rollup-rpc-url"),
      proverUrl: url("prover-url"),
      verifier: addressFlag(flags.need("verifier"), "verifier", fail),
      privateKey: readKey(spec, env, flags.text("private-key-file")),
      pollIntervalMs: int("poll-interval-ms", "2000", 10),
      l1Confirmations: int("l1-confirmations", "1", 0),
      proveTimeoutMs: int("prove-timeout-ms", "900000", 1000),
      maxBackoffMs: int("max-backoff-ms", "30000", 10),
      logLevel: logLevelFlag(flags.text("log-level"), "log-level", fail),
    },
    extra: Object.fromEntries((spec.extra ?? []).map((flag) => [flag, flags.text(flag)])),
  };
}

/** The key from --private-key-file, else from PREFIX_PRIVATE_KEY (never from the command line). */
function readKey(spec: VerifierServiceFlags, env: NodeJS.ProcessEnv, file: string | undefined): Hex {
  const flag = "private-key-file";
  const variable = `${spec.envPrefix}_PRIVATE_KEY`;
  let text: string | undefined;
  if (file !== undefined) {
    try {
      text = readFileSync(file, "utf8").trim();
    } catch (e) {
      throw spec.fail(`cannot read --private-key-file ${file}`, { flag }, e);
    }
  } else text = env[variable];
  if (text === undefined || text === "")
    throw spec.fail(`the ${spec.name} key is required: ${variable} or --private-key-file`, { flag });
  if (!/^0x[0-9a-fA-F]{64}$/.test(text))
    throw spec.fail(`the ${spec.name} key must be 32 bytes of 0x-prefixed hex`, { flag });
  return text as Hex;
}

/** The clients a service works through: L1 (reads and the service's own transactions), our node, the host. */
export function verifierServiceClients(config: VerifierServiceConfig) {
  const account = privateKeyToAccount(config.privateKey);
  const l1: PublicClient = createPublicClient({
    transport: http(config.l1RpcUrl, { retryCount: 0 }),
    pollingInterval: 250,
  });
  const wallet = createWalletClient({ account, transport: http(config.l1RpcUrl, { retryCount: 0 }) });
  const node = new NodeClient(httpTransport(config.rollupRpcUrl, { timeoutMs: 30_000 }));
  const prover = new ProverClient(httpTransport(config.proverUrl, { timeoutMs: config.proveTimeoutMs }));
  return { account, l1, wallet, node, prover };
}

/** `read(functionName, args)`: view calls on one contract, as both services make them. */
export function contractReader(client: PublicClient, address: Address, abi: Abi) {
  return <T>(functionName: string, args: readonly unknown[] = []): Promise<T> =>
    client.readContract({ address, abi, functionName, args } as never) as Promise<T>;
}
