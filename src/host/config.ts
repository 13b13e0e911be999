/**
 * The host's start-up configuration from command-line flags, each with an environment twin
 * (the flag wins). Refuses, with a message naming the problem, an unknown L2 chain id (the known chains
 * are the enclave's hardcoded config-hash table), several enclaves without a registry, and malformed
 * values.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Address } from "viem";
import { findBuiltInChain, parseRollupConfig, type RollupConfig } from "../chain/index.js";
import type { LogLevel } from "../log/index.js";
import {
  addressFlag,
  type FlagFailure,
  type FlagSpec,
  integerFlag,
  logLevelFlag,
  type ParsedFlags,
  parseFlags,
  renderFlagUsage,
  urlFlag,
} from "../service-kit/index.js";
import {
  BUILT_IN_CHAINS,
  JOURNAL_VERSIONS,
  type JournalVersion,
  refuseUnknownForks,
  supportedChainIds,
} from "../proof/onchain/index.js";
import {
  DEFAULT_FRAME_LENGTH_PREFIX,
  DEFAULT_MESSAGE_FORM,
  type EnclaveAddress,
  EnclaveAddressError,
  type FrameLengthPrefix,
  type MessageForm,
  parseEnclaveAddresses,
  parseFrameLengthPrefix,
  parseMessageForm,
} from "../proof/transport/index.js";
import { HostError } from "./errors.js";
import {
  DEFAULT_MAX_L1_DISTANCE,
  defaultMaxL1Distance,
  WITNESS_STRATEGY_CHOICES,
  WITNESS_RUNS,
  type WitnessRun,
  type WitnessStrategyChoice,
} from "./witness/index.js";
import { DEFAULT_PROOF_TIMEOUT_MS } from "./proof-service.js";
import { DEFAULT_BLOCK_WORKERS } from "../proof/program/index.js";

export interface ListenEndpoint {
  readonly host: string;
  readonly port: number;
}

export interface HostConfig {
  readonly l1RpcUrl: string;
  /** Default: the L1 RPC URL (anvil serves its beacon routes on the same port). */
  readonly l1BeaconUrl: string;
  readonly l2RpcUrl: string;
  readonly l2ChainId: bigint;
  /**
   * The chain's rollup config (--rollup-config): with it the host collects each proof's witness from the L1,
   * beacon and L2 endpoints (src/host/witness); without it only the boot keys are sent, so the enclave refuses.
   */
  readonly rollupConfig: RollupConfig | undefined;
  /** Where the L2 state comes from (--witness-strategy, default `auto`: probe the L2 endpoint at start). */
  readonly witnessStrategy: WitnessStrategyChoice;
  /**
   * How the host runs each range (--witness-run, default `forward`): derives only and forwards the L2 node's block
   * witnesses whole (the program's run where the node serves none), or executes every block itself (`program`)
   * (docs/host.md "Forwarded witnesses").
   */
  readonly witnessRun: WitnessRun;
  /** Block witnesses fetched at once from the L2 endpoint (--witness-concurrency, default 3). */
  readonly witnessConcurrency: number;
  /**
   * Block workers the witnesses are prepared for (--workers, default 1): above 1 each witness
   * carries the chain witness, so an enclave with --workers above 1 executes the range in parallel, and the
   * host's own run executes the range's blocks on that many worker threads.
   */
  readonly workers: number;
  /**
   * Worker threads of the host's own run of the program (--witness-workers, default: --workers). 1 runs it on the
   * main thread (with the chain witness still recorded when --workers is above 1): where the L2 node shares the
   * machine and executes each block witness on one thread, threads here only compete with it.
   */
  readonly witnessWorkers: number;
  /** SECONDS_PER_SLOT for a beacon node that does not serve /eth/v1/config/spec (--beacon-seconds-per-slot). */
  readonly beaconSecondsPerSlot: number | undefined;
  readonly listen: ListenEndpoint;
  readonly enclaves: readonly EnclaveAddress[];
  /** The frames' length-prefix width towards every enclave (--frame-length-prefix; default the spec's 4). */
  readonly frameLengthPrefix: FrameLengthPrefix;
  /** The messages' form towards every enclave (--message-form; default the spec's), independent of the frames. */
  readonly messageForm: MessageForm;
  /**
   * The journal the enclaves sign (--journal-version, default the spec's): the host recovers each result's
   * signatures over it, so it must match the enclaves' own --journal-version.
   */
  readonly journalVersion: JournalVersion;
  readonly proofTimeoutMs: number;
  /**
   * At most this many prover_prove calls run at once (--max-concurrent-proofs, default: the machine's cores);
   * one more is refused at once with -32005, and prover_prove is refused inside a JSON-RPC batch.
   */
  readonly maxConcurrentProofs: number;
  /**
   * The most L2 blocks one prover_prove may cover (--max-blocks-per-proof, default DEFAULT_MAX_BLOCKS_PER_PROOF);
   * a longer range is refused with -32602 before any witness is collected.
   */
  readonly maxBlocksPerProof: bigint;
  /**
   * The most L2 blocks one Prove frame covers (--max-blocks-per-frame, default DEFAULT_MAX_BLOCKS_PER_FRAME with
   * the spec's messages, none with Base's): a longer range is proved in frames the enclave aggregates (docs/host.md
   * "Ranges in frames"). Undefined (0 on the command line): one frame whatever the range.
   */
  readonly maxBlocksPerFrame: bigint | undefined;
  /**
   * L1 headers witness collection may walk back from a request's L1 head (--max-l1-distance; by default derived
   * from the rollup config, defaultMaxL1Distance, or DEFAULT_MAX_L1_DISTANCE without one); a longer walk stops
   * with L1DistanceError (-32602).
   */
  readonly maxL1Distance: number;
  readonly registryAddress: Address | undefined;
  readonly logLevel: LogLevel;
  readonly processMetrics: boolean;
  /** How long SIGINT/SIGTERM waits for in-flight requests (default: the proof timeout plus 10 s). */
  readonly shutdownDrainMs: number;
  /** With --worker: the proof job queue this host also drains (src/host/worker.ts); undefined otherwise. */
  readonly worker: HostWorkerConfig | undefined;
}

/** Where the worker's proof jobs are and how it holds them (docs/proof-jobs.md). */
export interface HostWorkerConfig {
  /** PostgreSQL shared by several machines (--database-url / DATABASE_URL); wins over `sqlitePath`. */
  readonly databaseUrl: string | undefined;
  /** The SQLite queue file of one machine (--job-queue-sqlite). */
  readonly sqlitePath: string | undefined;
  /** Jobs proved at once (--worker-concurrency, default 1). */
  readonly concurrency: number;
  /** How long a claim or heartbeat holds a job (--job-lease, default 90 s; heartbeats every third). */
  readonly leaseMs: number;
  /** First retry delay after a failure or an expired lease (--job-retry-backoff, default 5 s). */
  readonly backoffMs: number;
}

/**
 * Default for --max-blocks-per-proof: an hour of 2-second blocks. The enclave's preimage cap (2^21,
 * docs/enclave.md "Memory") holds such a range's witness at about 1.4 blobs per L1 slot.
 */
export const DEFAULT_MAX_BLOCKS_PER_PROOF = 1800n;

/**
 * Default for --max-blocks-per-frame: 100 blocks at Base's target gas (80 M a block) are ~550 K preimages and
 * ~600 MiB of enclave memory (README "At Base's target gas"), a quarter of the enclave's preimage cap (2^21), so
 * heavier blocks still fit; a 600-block proposal is six frames.
 */
export const DEFAULT_MAX_BLOCKS_PER_FRAME = 100n;

/** A start-up refusal: a missing, malformed or inconsistent flag (`flag` names it when there is one). */
export class HostConfigError extends HostError<"config"> {
  override readonly name = "HostConfigError";
  constructor(
    message: string,
    details: { readonly flag?: string } = {},
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "config", details, cause: options.cause });
  }
}

export const DEFAULT_LISTEN = "127.0.0.1:7300";
/** Base's node runs at most 3 witness executions at once. */
export const DEFAULT_WITNESS_CONCURRENCY = 3;

export const HOST_FLAGS: readonly FlagSpec[] = [
  {
    flag: "l1-rpc-url",
    env: "PROVER_L1_RPC_URL",
    value: "URL",
    help: "L1 execution JSON-RPC (registry reads; witness collection)",
  },
  {
    flag: "l1-beacon-url",
    env: "PROVER_L1_BEACON_URL",
    value: "URL",
    help: "L1 beacon API (blob sidecars; witness collection; default the L1 RPC URL)",
  },
  {
    flag: "l2-rpc-url",
    env: "PROVER_L2_RPC_URL",
    value: "URL",
    help: "L2 execution JSON-RPC (witness collection)",
  },
  {
    flag: "rollup-config",
    env: "PROVER_ROLLUP_CONFIG",
    value: "FILE",
    help: "the chain's rollup.json: enables witness collection (without it only the boot keys are sent)",
  },
  {
    flag: "witness-strategy",
    env: "PROVER_WITNESS_STRATEGY",
    value: "NAME",
    help: `where the L2 state comes from: ${WITNESS_STRATEGY_CHOICES.join(", ")} (default auto: the first the L2 endpoint serves, probed at start)`,
  },
  {
    flag: "witness-run",
    env: "PROVER_WITNESS_RUN",
    value: "NAME",
    help: `how the host runs each range: ${WITNESS_RUNS.join(", ")} (default forward: derives here and forwards the L2 node's block witnesses whole, the enclave executing on them, the program's run where the node serves no block witnesses or the enclave misses a value; program: executes every block here and sends what it read; docs/host.md "Forwarded witnesses")`,
  },
  {
    flag: "witness-concurrency",
    env: "PROVER_WITNESS_CONCURRENCY",
    value: "N",
    help: `L2 block witnesses fetched at once (default ${DEFAULT_WITNESS_CONCURRENCY}, Base's node's limit)`,
  },
  {
    flag: "workers",
    env: "PROVER_WORKERS",
    value: "N",
    help: "block workers the witnesses are prepared for (default 1: on the devnet's small blocks the parallel path measured slower than sequential, docs/enclave.md). Above 1 each witness also carries the range's headers, the claimed output's preimage and the state values blocks read from earlier blocks of the range, so an enclave started with --workers above 1 executes the range in parallel; 1 sends the smaller sequential witness. Above 1 the host's own run of the program also executes the range's blocks on that many worker threads (each with its own L1/L2 clients, on the parent headers the L2 node reports; the workers' witness is kept only when every computed block hash is the header the next block was executed on, else the range is executed sequentially)",
  },
  {
    flag: "witness-workers",
    env: "PROVER_WITNESS_WORKERS",
    value: "N",
    help: "worker threads of the host's own run of the program (default: --workers). 1 runs it on the main thread and still sends the chain witness --workers asks for: the choice where the L2 node shares the machine and produces block witnesses one at a time, so threads here only compete with it (docs/host.md \"Witness collection at Base's target gas\")",
  },
  {
    flag: "beacon-seconds-per-slot",
    env: "PROVER_BEACON_SECONDS_PER_SLOT",
    value: "SECONDS",
    help: "SECONDS_PER_SLOT, for a beacon node without /eth/v1/config/spec (default: asked of the node)",
  },
  {
    flag: "l2-chain-id",
    env: "PROVER_L2_CHAIN_ID",
    value: "ID",
    help: "L2 chain id; must be built into the enclave",
  },
  {
    flag: "listen",
    env: "PROVER_LISTEN",
    value: "HOST:PORT",
    help: `JSON-RPC listen address (default ${DEFAULT_LISTEN}; port 0 picks a free one)`,
  },
  {
    flag: "vsock-cid",
    env: "PROVER_VSOCK_CID",
    value: "ADDR",
    multiple: true,
    help: "an enclave, repeatable or comma-separated, in routing order: a vsock context id (16, vsock:16[:port]) or, in local mode, unix:/path, /path or 127.0.0.1:PORT",
  },
  {
    flag: "frame-length-prefix",
    env: "PROVER_FRAME_LENGTH_PREFIX",
    value: "4|8",
    help: "width of the enclave frames' big-endian length prefix: 4 (the spec's, default) or 8 (Base's prover today)",
  },
  {
    flag: "message-form",
    env: "PROVER_MESSAGE_FORM",
    value: "spec|base",
    help: "the enclave messages' form, whatever the frames: spec (the spec's, default) or base (Base's prover today: TeeImageHash as request 2, tee_signer in results)",
  },
  {
    flag: "journal-version",
    env: "PROVER_JOURNAL_VERSION",
    value: "spec|schedule-id",
    help: "the journal the enclaves sign, to check their signatures over: spec (default) or schedule-id (with the claim's upgrade schedule id; needs the chain's rollup config, --rollup-config or a registry chain)",
  },
  {
    flag: "proof-request-timeout",
    env: "PROVER_PROOF_REQUEST_TIMEOUT",
    value: "SECONDS",
    help: "prover_prove timeout (default 1740)",
  },
  {
    flag: "max-concurrent-proofs",
    env: "PROVER_MAX_CONCURRENT_PROOFS",
    value: "N",
    help: "prover_prove calls run at once; one more is refused at once with -32005 (default: the machine's cores)",
  },
  {
    flag: "max-blocks-per-proof",
    env: "PROVER_MAX_BLOCKS_PER_PROOF",
    value: "N",
    help: `L2 blocks one prover_prove may cover; a longer range is refused with -32602 before any witness is collected (default ${DEFAULT_MAX_BLOCKS_PER_PROOF})`,
  },
  {
    flag: "max-blocks-per-frame",
    env: "PROVER_MAX_BLOCKS_PER_FRAME",
    value: "N",
    help: `L2 blocks one Prove frame covers: a longer range is proved in consecutive frames on the same enclave, the next one's witness collected while it proves the one before, and joined by the enclave's Aggregate request; 0: one frame whatever the range, for enclaves without Aggregate (default ${DEFAULT_MAX_BLOCKS_PER_FRAME}, 0 with --message-form base)`,
  },
  {
    flag: "max-l1-distance",
    env: "PROVER_MAX_L1_DISTANCE",
    value: "N",
    help: `L1 headers witness collection may walk back from a request's L1 head; a longer walk is refused with -32602 naming the distance (default: from the rollup config's sequencing window, channel timeout and block time, --max-blocks-per-proof and the L1 slot time, see docs/host.md; ${DEFAULT_MAX_L1_DISTANCE} without a rollup config)`,
  },
  {
    flag: "tee-prover-registry-address",
    env: "PROVER_TEE_PROVER_REGISTRY_ADDRESS",
    value: "ADDRESS",
    help: "TEEProverRegistry on L1; required with more than one enclave",
  },
  {
    flag: "log-level",
    env: "PROVER_LOG_LEVEL",
    value: "LEVEL",
    help: "fatal, error, warn, info (default), debug, trace, silent",
  },
  {
    flag: "process-metrics",
    env: "PROVER_PROCESS_METRICS",
    boolean: true,
    help: "also export process metrics (CPU, memory, GC) on GET /metrics",
  },
  {
    flag: "worker",
    env: "PROVER_WORKER",
    boolean: true,
    help: "also claim proof jobs from a queue (--database-url or --job-queue-sqlite), heartbeat, submit results",
  },
  {
    flag: "database-url",
    env: "DATABASE_URL",
    value: "URL",
    help: "with --worker: the PostgreSQL proof job queue several machines share (postgres://…)",
  },
  {
    flag: "job-queue-sqlite",
    env: "PROVER_JOB_QUEUE_SQLITE",
    value: "FILE",
    help: "with --worker: the SQLite proof job queue of one machine (when no --database-url)",
  },
  {
    flag: "worker-concurrency",
    env: "PROVER_WORKER_CONCURRENCY",
    value: "N",
    help: "with --worker: jobs proved at once (default 1)",
  },
  {
    flag: "job-lease",
    env: "PROVER_JOB_LEASE",
    value: "SECONDS",
    help: "with --worker: how long a claim holds a job without a heartbeat (default 90; heartbeats every third)",
  },
  {
    flag: "job-retry-backoff",
    env: "PROVER_JOB_RETRY_BACKOFF",
    value: "SECONDS",
    help: "with --worker: first retry delay after a failed attempt or an expired lease, doubling (default 5)",
  },
  {
    flag: "shutdown-drain",
    env: "PROVER_SHUTDOWN_DRAIN",
    value: "SECONDS",
    help: "how long SIGINT/SIGTERM waits for in-flight requests (default: proof timeout + 10)",
  },
];

export function hostUsage(): string {
  return [
    "Usage: tsx src/host/main.ts [options]",
    "",
    "The TEE prover host: JSON-RPC (prover_prove, enclave_signerPublicKey, enclave_signerAttestation,",
    "enclave_teeImageHash, healthz) on one HTTP listener, with GET /healthz and GET /metrics, in front of one or more enclaves.",
    "",
    "Options (each flag has an environment twin; the flag wins):",
    ...renderFlagUsage(HOST_FLAGS),
    "  --help                                    this text",
    "",
  ].join("\n");
}

const fail: FlagFailure = (message, details, cause) =>
  new HostConfigError(message, { ...(details.flag === undefined ? {} : { flag: details.flag }) }, { cause });

const URL_SCHEMES = ["http:", "https:", "ws:", "wss:"];

function parseChainId(text: string): bigint {
  if (!/^\d{1,20}$/.test(text))
    throw new HostConfigError(`--l2-chain-id: "${text}" is not a chain id`, { flag: "l2-chain-id" });
  const chainId = BigInt(text);
  if (!supportedChainIds().includes(chainId)) {
    const known = BUILT_IN_CHAINS.map((chain) => `${chain.chainId} (${chain.name})`).join(", ");
    throw new HostConfigError(
      `unknown L2 chain id ${chainId}: the enclave's config-hash table has no entry for it, so it could never prove it; known chains: ${known}`,
      { flag: "l2-chain-id" },
    );
  }
  return chainId;
}

function readRollupConfig(path: string, l2ChainId: bigint): RollupConfig {
  let config: RollupConfig;
  try {
    const json = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (typeof json === "object" && json !== null)
      refuseUnknownForks(json as Record<string, unknown>, `--rollup-config ${path}`);
    config = parseRollupConfig(json);
  } catch (error) {
    throw new HostConfigError(
      `--rollup-config: ${path} is not a readable rollup config: ${(error as Error).message}`,
      { flag: "rollup-config" },
      { cause: error },
    );
  }
  if (config.l2ChainId !== l2ChainId)
    throw new HostConfigError(
      `--rollup-config: ${path} is chain ${config.l2ChainId}, not --l2-chain-id ${l2ChainId}`,
      { flag: "rollup-config" },
    );
  return config;
}

function parseListen(text: string): ListenEndpoint {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):(\d{1,5})$/.exec(text);
  if (match === null) throw new HostConfigError(`--listen: "${text}" is not HOST:PORT`, { flag: "listen" });
  const port = Number(match[2]);
  if (port > 65535) throw new HostConfigError(`--listen: port ${port} out of range`, { flag: "listen" });
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
}

function frameLengthPrefixFlag(text: string | undefined): FrameLengthPrefix {
  if (text === undefined) return DEFAULT_FRAME_LENGTH_PREFIX;
  const prefix = parseFrameLengthPrefix(text);
  if (prefix === undefined)
    throw new HostConfigError(`--frame-length-prefix: "${text}" must be 4 or 8`, {
      flag: "frame-length-prefix",
    });
  return prefix;
}

function messageFormFlag(text: string | undefined): MessageForm {
  if (text === undefined) return DEFAULT_MESSAGE_FORM;
  const form = parseMessageForm(text);
  if (form === undefined)
    throw new HostConfigError(`--message-form: "${text}" must be spec or base`, { flag: "message-form" });
  return form;
}

/** The rollup config whose upgrade times give a claim's schedule id: --rollup-config, else the registry's. */
export function scheduleRollupConfig(
  config: Pick<HostConfig, "rollupConfig" | "l2ChainId">,
): RollupConfig | undefined {
  return config.rollupConfig ?? findBuiltInChain(config.l2ChainId)?.rollupConfig;
}

function journalVersionFlag(text: string | undefined): JournalVersion {
  if (text === undefined) return "spec";
  const version = JOURNAL_VERSIONS.find((known) => known === text);
  if (version === undefined)
    throw new HostConfigError(`--journal-version: "${text}" must be one of ${JOURNAL_VERSIONS.join(", ")}`, {
      flag: "journal-version",
    });
  return version;
}

function parseSeconds(name: string, text: string): number {
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(seconds > 0) || seconds > 86_400)
    throw new HostConfigError(`--${name}: "${text}" must be a positive number of seconds (at most 86400)`, {
      flag: name,
    });
  return Math.round(seconds * 1000);
}

export type ParsedCommandLine =
  { readonly kind: "help"; readonly text: string } | { readonly kind: "run"; readonly config: HostConfig };

/** Parses flags (argv without the node and script) and their environment twins. */
export function parseHostCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  const flags = parseFlags(argv, env, HOST_FLAGS, {
    fail: (message, details, cause) => fail(`${message}\n\n${hostUsage()}`, details, cause),
  });
  if (flags.help) return { kind: "help", text: hostUsage() };

  let enclaves: EnclaveAddress[];
  try {
    enclaves = parseEnclaveAddresses(flags.list("vsock-cid"));
  } catch (error) {
    if (error instanceof EnclaveAddressError)
      throw new HostConfigError(`--vsock-cid: ${error.message}`, { flag: "vsock-cid" }, { cause: error });
    throw error;
  }
  if (enclaves.length === 0)
    throw new HostConfigError("--vsock-cid is required: at least one enclave", { flag: "vsock-cid" });

  const registryText = flags.text("tee-prover-registry-address");
  const registryAddress: Address | undefined =
    registryText === undefined ? undefined : addressFlag(registryText, "tee-prover-registry-address", fail);
  if (enclaves.length > 1 && registryAddress === undefined) {
    throw new HostConfigError(
      `${enclaves.length} enclaves are configured but no --tee-prover-registry-address: with more than one enclave the host routes by onchain signer validity, so a registry is required`,
      { flag: "tee-prover-registry-address" },
    );
  }

  const timeoutText = flags.text("proof-request-timeout");
  const proofTimeoutMs =
    timeoutText === undefined ? DEFAULT_PROOF_TIMEOUT_MS : parseSeconds("proof-request-timeout", timeoutText);
  const drainText = flags.text("shutdown-drain");
  const concurrencyText = flags.text("max-concurrent-proofs");
  const maxConcurrentProofs =
    concurrencyText === undefined
      ? availableParallelism()
      : integerFlag(concurrencyText, "max-concurrent-proofs", 1, fail);
  const maxBlocksText = flags.text("max-blocks-per-proof");
  const maxBlocksPerProof =
    maxBlocksText === undefined
      ? DEFAULT_MAX_BLOCKS_PER_PROOF
      : BigInt(integerFlag(maxBlocksText, "max-blocks-per-proof", 1, fail));
  const messageForm = messageFormFlag(flags.text("message-form"));
  const frameText = flags.text("max-blocks-per-frame");
  const frameBlocks =
    frameText === undefined ? undefined : integerFlag(frameText, "max-blocks-per-frame", 0, fail);
  const maxBlocksPerFrame =
    frameBlocks === undefined
      ? messageForm === "base"
        ? undefined // Base's enclave has no Aggregate request
        : DEFAULT_MAX_BLOCKS_PER_FRAME
      : frameBlocks === 0
        ? undefined
        : BigInt(frameBlocks);
  const url = (flag: string): string => urlFlag(flags.need(flag), flag, fail, URL_SCHEMES);
  const l1RpcUrl = url("l1-rpc-url");
  const l1BeaconUrl = flags.text("l1-beacon-url") === undefined ? l1RpcUrl : url("l1-beacon-url");
  const l2RpcUrl = url("l2-rpc-url");
  const l2ChainId = parseChainId(flags.need("l2-chain-id"));
  const rollupPath = flags.text("rollup-config");
  const worker = flags.bool("worker") ? parseWorkerFlags(flags) : undefined;
  const strategyText = flags.text("witness-strategy") ?? "auto";
  if (!(WITNESS_STRATEGY_CHOICES as readonly string[]).includes(strategyText))
    throw new HostConfigError(
      `--witness-strategy: "${strategyText}" is not one of ${WITNESS_STRATEGY_CHOICES.join(", ")}`,
      { flag: "witness-strategy" },
    );
  const witnessRunText = flags.text("witness-run") ?? "forward";
  if (!(WITNESS_RUNS as readonly string[]).includes(witnessRunText))
    throw new HostConfigError(`--witness-run: "${witnessRunText}" is not one of ${WITNESS_RUNS.join(", ")}`, {
      flag: "witness-run",
    });
  const witnessConcurrencyText = flags.text("witness-concurrency");
  const workersText = flags.text("workers");
  const witnessWorkersText = flags.text("witness-workers");
  const slotText = flags.text("beacon-seconds-per-slot");

  const workers =
    workersText === undefined ? DEFAULT_BLOCK_WORKERS : integerFlag(workersText, "workers", 1, fail);
  const rollupConfig = rollupPath === undefined ? undefined : readRollupConfig(rollupPath, l2ChainId);
  const beaconSecondsPerSlot =
    slotText === undefined ? undefined : integerFlag(slotText, "beacon-seconds-per-slot", 1, fail);
  const l1DistanceText = flags.text("max-l1-distance");
  const maxL1Distance =
    l1DistanceText !== undefined
      ? integerFlag(l1DistanceText, "max-l1-distance", 1, fail)
      : rollupConfig === undefined
        ? DEFAULT_MAX_L1_DISTANCE
        : defaultMaxL1Distance(rollupConfig, {
            maxBlocksPerProof,
            ...(beaconSecondsPerSlot === undefined ? {} : { l1BlockSeconds: beaconSecondsPerSlot }),
          });
  const journalVersion = journalVersionFlag(flags.text("journal-version"));
  if (journalVersion === "schedule-id" && scheduleRollupConfig({ rollupConfig, l2ChainId }) === undefined)
    throw new HostConfigError(
      `--journal-version schedule-id: the schedule id comes from chain ${l2ChainId}'s upgrade times, and it has no built-in rollup config: give --rollup-config`,
      { flag: "journal-version" },
    );

  return {
    kind: "run",
    config: {
      l1RpcUrl,
      l1BeaconUrl,
      l2RpcUrl,
      l2ChainId,
      rollupConfig,
      witnessStrategy: strategyText as WitnessStrategyChoice,
      witnessRun: witnessRunText as WitnessRun,
      witnessConcurrency:
        witnessConcurrencyText === undefined
          ? DEFAULT_WITNESS_CONCURRENCY
          : integerFlag(witnessConcurrencyText, "witness-concurrency", 1, fail),
      workers,
      witnessWorkers:
        witnessWorkersText === undefined
          ? workers
          : integerFlag(witnessWorkersText, "witness-workers", 1, fail),
      beaconSecondsPerSlot,
      listen: parseListen(flags.text("listen") ?? DEFAULT_LISTEN),
      enclaves,
      frameLengthPrefix: frameLengthPrefixFlag(flags.text("frame-length-prefix")),
      messageForm,
      journalVersion,
      proofTimeoutMs,
      maxConcurrentProofs,
      maxBlocksPerProof,
      maxBlocksPerFrame,
      maxL1Distance,
      registryAddress,
      logLevel: logLevelFlag(flags.text("log-level"), "log-level", fail),
      processMetrics: flags.bool("process-metrics"),
      shutdownDrainMs:
        drainText === undefined ? proofTimeoutMs + 10_000 : parseSeconds("shutdown-drain", drainText),
      worker,
    },
  };
}

function parseWorkerFlags(flags: ParsedFlags): HostWorkerConfig {
  const databaseUrl = flags.text("database-url");
  const sqlitePath = flags.text("job-queue-sqlite");
  if (databaseUrl === undefined && sqlitePath === undefined)
    throw new HostConfigError("--worker needs a queue: --database-url (DATABASE_URL) or --job-queue-sqlite", {
      flag: "worker",
    });
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new HostConfigError("--database-url must be a postgres:// or postgresql:// URL", {
      flag: "database-url",
    });
  const seconds = (flag: string, fallback: number): number => {
    const text = flags.text(flag);
    return text === undefined ? fallback : parseSeconds(flag, text);
  };
  const concurrency = flags.text("worker-concurrency");
  return {
    databaseUrl,
    sqlitePath,
    concurrency: concurrency === undefined ? 1 : integerFlag(concurrency, "worker-concurrency", 1, fail),
    leaseMs: seconds("job-lease", 90_000),
    backoffMs: seconds("job-retry-backoff", 5_000),
  };
}
