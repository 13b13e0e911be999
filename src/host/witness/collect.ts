/**
 * Witness collection (docs/proof.md "Witness collection"): the proof program run natively over the fetching
 * oracle. Its result is what the enclave would compute; the recorded preimages are the Prove frame.
 */
import { type L1ChainConfig, type RollupConfig, initKeccak } from "../../chain/index.js";
import { EndpointUnavailableError, JsonRpcClient, RequestStats } from "../../chain-rpc/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import type { ProofRequest } from "../../../generated/rpc/index.js";
import { bootInfoOf } from "../boot-preimages.js";
import { keccak256PreimageKey } from "../../proof/preimages/index.js";
import {
  type ExecutionReport,
  mergeWitness,
  type RangeRunner,
  type ProgramResult,
  type ProgramTimings,
  runProgram,
} from "../../proof/program/index.js";
import type { FetchFigures } from "./block-protocol.js";
import { type L2Output, l2OutputAt } from "./l2-output.js";
import { WitnessBudget } from "./limits.js";
import { ForwardedWitnessRun } from "./forward-run.js";
import { FetchingOracle, type FetchingOracleOptions } from "./oracle.js";
import { ParallelWitnessRun } from "./parallel-run.js";
import {
  type ChosenStrategy,
  chooseWitnessStrategy,
  dbGetSource,
  stateSource,
  type WitnessStrategyChoice,
  type WitnessStrategyName,
} from "./strategies.js";

/**
 * How the host runs a range (--witness-run): `program` executes every block here and sends what the program read;
 * `forward` only derives here and forwards each block's witness whole, as the L2 node answered it (forward-run.ts,
 * docs/host.md "Forwarded witnesses").
 */
export type WitnessRun = "program" | "forward";
export const WITNESS_RUNS: readonly WitnessRun[] = ["program", "forward"];

/** How the host's run executed the range: the program's report, or `forwarded` (nothing executed here). */
export interface HostExecutionReport extends Omit<ExecutionReport, "mode"> {
  readonly mode: ExecutionReport["mode"] | "forwarded";
}

export interface CollectWitnessOptions extends FetchingOracleOptions {
  readonly rollupConfig: RollupConfig;
  readonly l1ChainConfig?: L1ChainConfig;
  /**
   * Add the chain witness an enclave needs to execute the range in parallel (docs/proof.md "Parallel
   * execution"): the range's headers, the claimed output's preimage, the values blocks read from earlier ones.
   */
  readonly chainWitness?: boolean;
  /**
   * Execute the range's blocks on worker threads, each with its own fetching oracle over `strategy`
   * (docs/host.md "Parallel witness collection"); absent or fewer than 2 workers: sequentially.
   */
  readonly parallel?: {
    readonly workers: number;
    readonly strategy: WitnessStrategyName;
    /** Old-generation heap limit of each worker, MiB. */
    readonly maxHeapMb?: number;
  };
  /** `forward`: derive here, forward the node's block witnesses (WitnessRun); default `program`. */
  readonly run?: WitnessRun;
}

/** A collection's figures; the fetch figures sum the main run's and its block workers' (FetchFigures). */
export interface WitnessMetrics extends FetchFigures {
  readonly preimageCount: number;
  /** Sum of the values' lengths (keys are 32 bytes each on top). */
  readonly witnessBytes: number;
  /** Wall time with at least one request in flight (the program's own waits are `fetchMs`). */
  readonly endpointBusyMs: number;
  /** The program's stages (derivation and execution include the fetches they waited on). */
  readonly program: ProgramTimings;
  /**
   * How the range was executed: on the workers (the chain of hashes complete), forwarded (not executed here), or
   * sequentially and why.
   */
  readonly execution: HostExecutionReport;
  readonly totalMs: number;
}

export interface WitnessCollection {
  readonly result: ProgramResult;
  readonly preimages: Preimage[];
  readonly metrics: WitnessMetrics;
}

/**
 * Runs the program over a fetching oracle; throws what the program throws (a refusal), a WitnessFetchError, or
 * a WitnessTooLargeError / L1DistanceError when the collection passes its bounds (limits.ts).
 */
export async function collectWitness(options: CollectWitnessOptions): Promise<WitnessCollection> {
  const t0 = performance.now();
  const requestStats = options.requestStats ?? new RequestStats();
  const forward = options.run === "forward";
  const parallel =
    !forward && options.parallel !== undefined && options.parallel.workers > 1 ? options.parallel : undefined;
  // The WebAssembly keccak before the first value is stored: every fetched value is hashed once on arrival.
  await initKeccak();
  const oracle = new FetchingOracle({
    ...options,
    requestStats,
    // The workers, or the forwarded run, fetch the blocks' witnesses; this oracle only after a fallback.
    ...(parallel === undefined && !forward ? {} : { deferPrefetch: true }),
  });
  const run: (RangeRunner & WitnessParts) | undefined = forward
    ? forwardRun(options, oracle, requestStats)
    : parallel === undefined
      ? undefined
      : parallelRun(options, parallel, requestStats);
  let result: ProgramResult;
  try {
    result = await runProgram({
      boot: options.boot,
      oracle,
      rollupConfig: options.rollupConfig,
      ...(options.l1ChainConfig === undefined ? {} : { l1ChainConfig: options.l1ChainConfig }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.chainWitness === true ? { recordChainWitness: true } : {}),
      ...(run === undefined ? {} : { parallel: { runner: run } }),
    });
  } catch (error) {
    // A failure that followed a bound's refusal (a reader swallowed it, the program then missed a value) is that.
    oracle.checkWithinBounds();
    throw error;
  } finally {
    oracle.close();
  }
  const onWorkers = run !== undefined && result.execution.mode === "parallel";
  const preimages = onWorkers
    ? workersWitness(oracle.witness(), run, options)
    : mergeWitness(oracle.witness(), result.chainWitness ?? []);
  const workers = onWorkers && run instanceof ParallelWitnessRun ? run.figures() : undefined;
  const execution: HostExecutionReport =
    onWorkers && forward ? { ...result.execution, mode: "forwarded" } : result.execution;
  const stats = oracle.stats;
  return {
    result,
    preimages,
    metrics: {
      preimageCount: preimages.length,
      witnessBytes: preimages.reduce((sum, [, value]) => sum + value.length, 0),
      fetches: addCounts(stats.fetches, workers?.fetches),
      fetchMs: stats.fetchMs + (workers?.fetchMs ?? 0),
      prefetchMs: stats.prefetchMs + (workers?.prefetchMs ?? 0),
      prefetchBytes: stats.prefetchBytes + (workers?.prefetchBytes ?? 0),
      requests: stats.requests.requests + (workers?.requests ?? 0),
      requestsByMethod: addCounts(stats.requests.byMethod, workers?.requestsByMethod),
      responseBytes: stats.requests.responseBytes + (workers?.responseBytes ?? 0),
      requestBytes: stats.requests.requestBytes + (workers?.requestBytes ?? 0),
      endpointBusyMs: stats.requests.busyMs,
      program: result.timings,
      execution,
      totalMs: performance.now() - t0,
    },
  };
}

function parallelRun(
  options: CollectWitnessOptions,
  parallel: NonNullable<CollectWitnessOptions["parallel"]>,
  requestStats: RequestStats,
): ParallelWitnessRun {
  return new ParallelWitnessRun({
    workers: parallel.workers,
    l2: new JsonRpcClient(options.l2RpcUrl, {
      stats: requestStats,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    }),
    oracle: {
      boot: options.boot,
      agreedL2HeadHash: options.agreedL2HeadHash,
      l1RpcUrl: options.l1RpcUrl,
      l2RpcUrl: options.l2RpcUrl,
      strategy: parallel.strategy,
      ...(options.l1BeaconUrl === undefined ? {} : { l1BeaconUrl: options.l1BeaconUrl }),
      ...(options.witnessConcurrency === undefined ? {} : { witnessConcurrency: options.witnessConcurrency }),
      ...(options.secondsPerSlot === undefined ? {} : { secondsPerSlot: options.secondsPerSlot }),
      ...(options.witnessLimits === undefined ? {} : { witnessLimits: options.witnessLimits }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    },
    rollupConfig: options.rollupConfig,
    ...(parallel.maxHeapMb === undefined ? {} : { maxHeapMb: parallel.maxHeapMb }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** The forwarded run over the strategy's block witnesses; its fetches count in the main oracle's figures. */
function forwardRun(
  options: CollectWitnessOptions,
  oracle: FetchingOracle,
  requestStats: RequestStats,
): ForwardedWitnessRun {
  const l2 = new JsonRpcClient(options.l2RpcUrl, {
    stats: requestStats,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  return new ForwardedWitnessRun({
    l2,
    source: () => options.l2State?.(l2) ?? Promise.resolve(dbGetSource(l2)),
    claimedL2BlockNumber: options.boot.claimedL2BlockNumber,
    ...(options.witnessConcurrency === undefined ? {} : { concurrency: options.witnessConcurrency }),
    ...(options.witnessLimits === undefined ? {} : { witnessLimits: options.witnessLimits }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onFetched: (_values, bytes, ms) => {
      const { stats } = oracle;
      stats.fetches["l2-block-witness"] = (stats.fetches["l2-block-witness"] ?? 0) + 1;
      stats.prefetchMs += ms;
      stats.prefetchBytes += bytes;
    },
  });
}

/** What a run that executed (or forwarded) the range away from the main oracle adds to its witness. */
interface WitnessParts {
  witness(): Preimage[];
  chainWitnessValues(): Uint8Array[];
}

/**
 * The witness of a range the workers executed (its chain of hashes complete) or the forwarded run accepted: what
 * the main run read (prologue, derivation), every value the workers' blocks read or the node's block witnesses
 * held, and with `chainWitness` the range's headers and the claimed output's preimage; bounded as one Prove frame
 * (WitnessTooLargeError).
 */
function workersWitness(
  main: readonly Preimage[],
  run: WitnessParts,
  options: CollectWitnessOptions,
): Preimage[] {
  let preimages = mergeWitness(main, run.witness());
  if (options.chainWitness === true)
    preimages = mergeWitness(
      preimages,
      run.chainWitnessValues().map((value): Preimage => [keccak256PreimageKey(value), value]),
    );
  const budget = new WitnessBudget(options.witnessLimits);
  for (const [, value] of preimages) budget.addPreimage(value.length);
  budget.checkNotRefused();
  return preimages;
}

function addCounts(
  a: Readonly<Record<string, number>>,
  b: Readonly<Record<string, number>> | undefined,
): Record<string, number> {
  const out = { ...a };
  for (const [key, n] of Object.entries(b ?? {})) out[key] = (out[key] ?? 0) + n;
  return out;
}

/** A request's Prove preimages, and whether they are the node's block witnesses forwarded (WitnessRun). */
export interface SourcedWitness {
  readonly preimages: Preimage[];
  /** The range was forwarded, not executed here: an enclave that misses a value may be sent the program's run. */
  readonly forwarded: boolean;
}

/**
 * Where the host's ProofService gets a request's Prove preimages (the boot keys alone without one); `run` overrides
 * the source's own WitnessRun (the proof service asks for `program` after an enclave missed a forwarded value).
 */
export type WitnessSource = (
  request: ProofRequest,
  l2ChainId: bigint,
  signal: AbortSignal,
  run?: WitnessRun,
) => Promise<SourcedWitness>;

export interface RpcWitnessSourceOptions {
  readonly l1RpcUrl: string;
  readonly l1BeaconUrl?: string;
  readonly l2RpcUrl: string;
  readonly rollupConfig: RollupConfig;
  readonly l1ChainConfig?: L1ChainConfig;
  /** The witness strategy, or `auto` (default): probe the L2 endpoint. */
  readonly witnessStrategy?: WitnessStrategyChoice;
  /** Block witnesses fetched at once (default 3). */
  readonly witnessConcurrency?: number;
  /** SECONDS_PER_SLOT for a beacon node without /eth/v1/config/spec. */
  readonly secondsPerSlot?: number;
  /** L1 headers witness collection may walk back from the request's L1 head (default DEFAULT_MAX_L1_DISTANCE). */
  readonly maxL1Distance?: number;
  /** Add the chain witness for enclaves that execute in parallel (CollectWitnessOptions.chainWitness). */
  readonly chainWitness?: boolean;
  /** Worker threads the host's own run executes a range's blocks on (default 1: sequentially). */
  readonly workers?: number;
  /** Execute the range here (`program`, the default) or forward the node's block witnesses (WitnessRun). */
  readonly run?: WitnessRun;
  /** Told of every successful collection (metrics, logs). */
  readonly onCollected?: (metrics: WitnessMetrics) => void;
}

/**
 * The witness collection of a host over the chain's endpoints. The strategy is chosen once (`strategy()`, which
 * the host calls at start-up); an endpoint that could not be reached then is probed again at the next proof.
 */
export class RpcWitness {
  private chosen: Promise<ChosenStrategy> | undefined;
  private readonly l2: JsonRpcClient;

  constructor(private readonly options: RpcWitnessSourceOptions) {
    this.l2 = new JsonRpcClient(options.l2RpcUrl);
  }

  /** The L2 node's block hash and output root at a block (where the frames of a long range start and end). */
  readonly outputAt = (block: bigint, signal: AbortSignal): Promise<L2Output> =>
    l2OutputAt(this.l2, block, signal);

  /** The strategy (probed once; a network failure is not kept, the next call probes again). */
  strategy(): Promise<ChosenStrategy> {
    this.chosen ??= chooseWitnessStrategy(this.options.witnessStrategy ?? "auto", {
      client: new JsonRpcClient(this.options.l2RpcUrl),
      rollupConfig: this.options.rollupConfig,
    }).catch((error: unknown) => {
      if (error instanceof EndpointUnavailableError) this.chosen = undefined;
      throw error;
    });
    return this.chosen;
  }

  /**
   * A request's Prove preimages: the program run natively, or with `forward` its derivation and the node's block
   * witnesses; a request the program refuses (a wrong claim, an agreed root that is not the agreed head's output)
   * fails here, before any enclave is contacted.
   */
  readonly source: WitnessSource = async (request, l2ChainId, signal, runOverride) => {
    const { options } = this;
    const run = runOverride ?? options.run ?? "program";
    const workers = options.workers ?? 1;
    const strategy = workers > 1 ? (await this.strategy()).source.name : undefined;
    const collection = await collectWitness({
      boot: bootInfoOf(request, l2ChainId),
      agreedL2HeadHash: request.agreed_l2_head_hash,
      l1RpcUrl: options.l1RpcUrl,
      ...(options.l1BeaconUrl === undefined ? {} : { l1BeaconUrl: options.l1BeaconUrl }),
      l2RpcUrl: options.l2RpcUrl,
      // The chosen strategy over the collection's own L2 client, so its requests count in the collection's figures.
      l2State: async (client) =>
        stateSource((await this.strategy()).source.name, { client, rollupConfig: options.rollupConfig }),
      ...(options.witnessConcurrency === undefined ? {} : { witnessConcurrency: options.witnessConcurrency }),
      ...(options.secondsPerSlot === undefined ? {} : { secondsPerSlot: options.secondsPerSlot }),
      ...(options.maxL1Distance === undefined ? {} : { maxL1Distance: options.maxL1Distance }),
      rollupConfig: options.rollupConfig,
      ...(options.l1ChainConfig === undefined ? {} : { l1ChainConfig: options.l1ChainConfig }),
      ...(options.chainWitness === undefined ? {} : { chainWitness: options.chainWitness }),
      ...(strategy === undefined ? {} : { parallel: { workers, strategy } }),
      run,
      signal,
    });
    options.onCollected?.(collection.metrics);
    return { preimages: collection.preimages, forwarded: collection.metrics.execution.mode === "forwarded" };
  };
}

/** A witness source over the chain's endpoints (RpcWitness's `source`). */
export function rpcWitnessSource(options: RpcWitnessSourceOptions): WitnessSource {
  return new RpcWitness(options).source;
}
