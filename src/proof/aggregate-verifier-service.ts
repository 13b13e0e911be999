/**
 * What the two AggregateVerifier services (src/proposer, src/challenger; docs/proposer.md) share besides the
 * encoding of src/proof/aggregate-verifier.ts: their common flags with environment twins (keys only from the
 * environment or a file), their clients (L1, our node, the prover host), a step loop that logs every error and
 * retries after a doubling back-off until stopped, and the one-line description of an error those logs carry.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  isAddress,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { httpTransport, NodeClient, ProverClient } from "../../generated/rpc/index.js";
import { createLogger, type Logger, type LogLevel, parseLogLevel } from "../log/index.js";

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

/** Builds the service's own configuration error (its package's class) for a refused flag. */
export type ConfigFailure = (
  message: string,
  details: { readonly flag?: string; readonly value?: string },
  cause?: unknown,
) => Error;

export interface VerifierServiceFlags {
  /** The process name, for messages ("proposer"). */
  readonly name: string;
  /** Prefix of the environment twins ("PROPOSER": PROPOSER_L1_RPC_URL, PROPOSER_PRIVATE_KEY, …). */
  readonly envPrefix: string;
  readonly usage: string;
  /** The service's own string flags besides the common ones. */
  readonly extra?: readonly string[];
  readonly fail: ConfigFailure;
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

/** The environment twin of a flag: PREFIX_ and the flag in upper snake case. */
export const envTwin = (prefix: string, flag: string): string =>
  `${prefix}_${flag.toUpperCase().replaceAll("-", "_")}`;

/** An integer flag value of at least `min`; `fail` otherwise. */
export function integerFlag(text: string, flag: string, min: number, fail: ConfigFailure): number {
  if (!/^[0-9]{1,12}$/.test(text) || Number(text) < min)
    throw fail(`--${flag} must be an integer of at least ${min}`, { flag, value: text });
  return Number(text);
}

/** Parses argv (without the node and script paths) with the environment's twins; the flag wins. */
export function parseVerifierServiceCommandLine(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  spec: VerifierServiceFlags,
): VerifierServiceCommandLine {
  const { fail, envPrefix } = spec;
  const names = [...COMMON_FLAGS, ...(spec.extra ?? [])];
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(names.map((flag) => [flag, { type: "string" as const }])),
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw fail((e as Error).message, {}, e);
  }
  if (values.help === true) return { kind: "help", text: spec.usage };
  const get = (flag: string): string | undefined => {
    const value = values[flag];
    if (typeof value === "string") return value;
    const twin = env[envTwin(envPrefix, flag)];
    return twin === undefined || twin === "" ? undefined : twin;
  };
  const need = (flag: string): string => {
    const value = get(flag);
    if (value === undefined) throw fail(`--${flag} is required`, { flag });
    return value;
  };
  const url = (flag: string): string => {
    const text = need(flag);
    if (!/^https?:\/\/\S+$/.test(text)) throw fail(`--${flag} must be an http(s) URL`, { flag, value: text });
    return text;
  };
  const verifier = need("verifier");
  if (!isAddress(verifier, { strict: false }))
    throw fail("--verifier must be an address", { flag: "verifier", value: verifier });
  let logLevel: LogLevel;
  try {
    logLevel = parseLogLevel(get("log-level") ?? "info");
  } catch (e) {
    throw fail("--log-level is not a level", { flag: "log-level" }, e);
  }
  const int = (flag: string, fallback: string, min: number) =>
    integerFlag(get(flag) ?? fallback, flag, min, fail);
  return {
    kind: "run",
    config: {
      l1RpcUrl: url("l1-rpc-url"),
      rollupRpcUrl: url("rollup-rpc-url"),
      proverUrl: url("prover-url"),
      verifier: getAddress(verifier),
      privateKey: readKey(spec, env, get("private-key-file")),
      pollIntervalMs: int("poll-interval-ms", "2000", 10),
      l1Confirmations: int("l1-confirmations", "1", 0),
      proveTimeoutMs: int("prove-timeout-ms", "900000", 1000),
      maxBackoffMs: int("max-backoff-ms", "30000", 10),
      logLevel,
    },
    extra: Object.fromEntries((spec.extra ?? []).map((flag) => [flag, get(flag)])),
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

/** A short description of an error for one log line: a revert by the contract's error name, never viem's pages. */
export function briefError(error: unknown): { name: string; message: string; kind?: string } {
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError && reverted.data !== undefined)
      return {
        name: reverted.name,
        message: `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(",")})`,
      };
    return { name: error.name, message: error.shortMessage };
  }
  if (error instanceof Error) {
    const kind = (error as { kind?: unknown }).kind;
    return { name: error.name, message: error.message, ...(typeof kind === "string" ? { kind } : {}) };
  }
  return { name: "unknown", message: String(error) };
}

/** What a step tells the loop: run again at once ("again"), or after the poll interval ("wait"). */
export type StepOutcome = "again" | "wait";

export interface StepLoopOptions {
  readonly pollIntervalMs: number;
  readonly maxBackoffMs: number;
  readonly logger: Logger;
  /** The log message of a failed step ("proposal attempt failed"). */
  readonly failureMessage: string;
}

export interface StepLoop {
  /** Resolves when the loop has ended (after stop()). */
  readonly done: Promise<void>;
  /** True once stop() was called: long waits inside a step end early. */
  readonly stopping: boolean;
  /** Waits `ms`, or less when the loop is stopped meanwhile. */
  sleep(ms: number): Promise<void>;
  /** Ends the loop; an in-flight step is abandoned after `graceMs` (default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Runs `step` until stopped: after "again" at once, after "wait" when the poll interval has passed; an error is
 * logged (briefError) and the step retried after a back-off doubling from the poll interval up to maxBackoffMs.
 */
export function startStepLoop(
  step: (loop: StepLoop) => Promise<StepOutcome>,
  options: StepLoopOptions,
): StepLoop {
  let stopping = false;
  let wake: () => void = () => {};
  const sleep = (ms: number): Promise<void> =>
    stopping
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
  const loop: StepLoop = {
    get stopping() {
      return stopping;
    },
    get done() {
      return done;
    },
    sleep,
    async stop(graceMs = 10_000) {
      stopping = true;
      wake();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loop.done, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    },
  };
  const run = async (): Promise<void> => {
    let backoff = options.pollIntervalMs;
    while (!stopping) {
      try {
        if ((await step(loop)) === "wait") await sleep(options.pollIntervalMs);
        backoff = options.pollIntervalMs;
      } catch (error) {
        if (stopping) break;
        options.logger.warn({ err: briefError(error), retryInMs: backoff }, options.failureMessage);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, options.maxBackoffMs);
      }
    }
  };
  const done = run();
  return loop;
}

/** What a service process (proposer, challenger) gives `startVerifierServiceProcess`. */
export interface VerifierServiceProcess<C extends VerifierServiceConfig, R> {
  /** The process name: the logger's and the usage error's prefix. */
  readonly name: string;
  readonly parse: (
    argv: readonly string[],
    env: NodeJS.ProcessEnv,
  ) => { kind: "help"; text: string } | { kind: "run"; config: C };
  /** The service's configuration error (a usage error: one line on stderr, exit code 2). */
  readonly configError: abstract new (...args: never[]) => Error;
  readonly start: (config: C, deps: { readonly logger: Logger }) => R;
}

/**
 * A service process's start: parses argv and the environment, prints the usage for --help (undefined), refuses a
 * bad flag with one line on stderr and exit code 2, else starts the service with a logger of the process's name.
 * (The caller installs the signal handlers: src/rpc's, which this library does not load.)
 */
export function startVerifierServiceProcess<C extends VerifierServiceConfig, R>(
  service: VerifierServiceProcess<C, R>,
): { readonly logger: Logger; readonly running: R } | undefined {
  let parsed;
  try {
    parsed = service.parse(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof service.configError) {
      process.stderr.write(`${service.name}: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return undefined;
  }
  const logger = createLogger({ name: service.name, level: parsed.config.logLevel });
  return { logger, running: service.start(parsed.config, { logger }) };
}
