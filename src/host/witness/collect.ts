/**
 * Witness collection (docs/proof.md "Witness collection"): the proof program run natively over the fetching
 * oracle. Its result is what the enclave would compute; the recorded preimages are the Prove frame.
 */
import type { L1ChainConfig, RollupConfig } from "../../chain/index.js";
import { EndpointUnavailableError, JsonRpcClient } from "../../chain-rpc/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import type { ProofRequest } from "../../../generated/rpc/index.js";
import { bootInfoOf } from "../boot-preimages.js";
import {
  mergeWitness,
  type ProgramResult,
  type ProgramTimings,
  runProgram,
} from "../../proof/program/index.js";
import { FetchingOracle, type FetchingOracleOptions } from "./oracle.js";
import {
  type ChosenStrategy,
  chooseWitnessStrategy,
  stateSource,
  type WitnessStrategyChoice,
} from "./strategies.js";

export interface CollectWitnessOptions extends FetchingOracleOptions {
  readonly rollupConfig: RollupConfig;
  readonly l1ChainConfig?: L1ChainConfig;
  /**
   * Add the chain witness an enclave needs to execute the range in parallel (docs/proof.md "Parallel
   * execution"): the range's headers, the claimed output's preimage, the values blocks read from earlier ones.
   */
  readonly chainWitness?: boolean;
}

export interface WitnessMetrics {
  readonly preimageCount: number;
  /** Sum of the values' lengths (keys are 32 bytes each on top). */
  readonly witnessBytes: number;
  /** Fetches per hint type (`state`: misses during execution; `l2-block-witness`: blocks fetched ahead). */
  readonly fetches: Readonly<Record<string, number>>;
  /** Time the program waited on the L1, beacon and L2 endpoints. */
  readonly fetchMs: number;
  /** Time the block witnesses fetched ahead took, summed (they overlap the program's work). */
  readonly prefetchMs: number;
  /** Bytes of the block witnesses fetched ahead. */
  readonly prefetchBytes: number;
  /** Requests made to the L1, beacon and L2 endpoints (answered, refused or failed), and per method. */
  readonly requests: number;
  readonly requestsByMethod: Readonly<Record<string, number>>;
  /** Bytes the endpoints answered (response bodies) and the requests' bodies. */
  readonly responseBytes: number;
  readonly requestBytes: number;
  /** Wall time with at least one request in flight (the program's own waits are `fetchMs`). */
  readonly endpointBusyMs: number;
  /** The program's stages (derivation and execution include the fetches they waited on). */
  readonly program: ProgramTimings;
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
  const oracle = new FetchingOracle(options);
  let result: ProgramResult;
  try {
    result = await runProgram({
      boot: options.boot,
      oracle,
      rollupConfig: options.rollupConfig,
      ...(options.l1ChainConfig === undefined ? {} : { l1ChainConfig: options.l1ChainConfig }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.chainWitness === true ? { recordChainWitness: true } : {}),
    });
  } catch (error) {
    // A failure that followed a bound's refusal (a reader swallowed it, the program then missed a value) is that.
    oracle.checkWithinBounds();
    throw error;
  } finally {
    oracle.close();
  }
  const preimages = mergeWitness(oracle.witness(), result.chainWitness ?? []);
  return {
    result,
    preimages,
    metrics: {
      preimageCount: preimages.length,
      witnessBytes: preimages.reduce((sum, [, value]) => sum + value.length, 0),
      fetches: { ...oracle.stats.fetches },
      fetchMs: oracle.stats.fetchMs,
      prefetchMs: oracle.stats.prefetchMs,
      prefetchBytes: oracle.stats.prefetchBytes,
      requests: oracle.stats.requests.requests,
      requestsByMethod: { ...oracle.stats.requests.byMethod },
      responseBytes: oracle.stats.requests.responseBytes,
      requestBytes: oracle.stats.requests.requestBytes,
      endpointBusyMs: oracle.stats.requests.busyMs,
      program: result.timings,
      totalMs: performance.now() - t0,
    },
  };
}

/** Where the host's ProofService gets a request's Prove preimages (the boot keys alone without one). */
export type WitnessSource = (
  request: ProofRequest,
  l2ChainId: bigint,
  signal: AbortSignal,
) => Promise<Preimage[]>;

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
  /** Told of every successful collection (metrics, logs). */
  readonly onCollected?: (metrics: WitnessMetrics) => void;
}

/**
 * The witness collection of a host over the chain's endpoints. The strategy is chosen once (`strategy()`, which
 * the host calls at start-up); an endpoint that could not be reached then is probed again at the next proof.
 */
export class RpcWitness {
  private chosen: Promise<ChosenStrategy> | undefined;

  constructor(private readonly options: RpcWitnessSourceOptions) {}

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
   * A request's Prove preimages: the program run natively; a request the program refuses (a wrong claim, an
   * agreed root that is not the agreed head's output) fails here, before any enclave is contacted.
   */
  readonly source: WitnessSource = async (request, l2ChainId, signal) => {
    const { options } = this;
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
      signal,
    });
    options.onCollected?.(collection.metrics);
    return collection.preimages;
  };
}

/** A witness source over the chain's endpoints (RpcWitness's `source`). */
export function rpcWitnessSource(options: RpcWitnessSourceOptions): WitnessSource {
  return new RpcWitness(options).source;
}
