/**
 * Witness collection (docs/proof.md "Witness collection"): the proof program run natively over the fetching
 * oracle. Its result is what the enclave would compute; the recorded preimages are the Prove frame.
 */
import type { L1ChainConfig, RollupConfig } from "../../chain/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import type { ProofRequest } from "../../../generated/rpc/index.js";
import { bootInfoOf } from "../boot-preimages.js";
import { type ProgramResult, type ProgramTimings, runProgram } from "../../proof/program/index.js";
import { FetchingOracle, type FetchingOracleOptions } from "./oracle.js";

export interface CollectWitnessOptions extends FetchingOracleOptions {
  readonly rollupConfig: RollupConfig;
  readonly l1ChainConfig?: L1ChainConfig;
}

export interface WitnessMetrics {
  readonly preimageCount: number;
  /** Sum of the values' lengths (keys are 32 bytes each on top). */
  readonly witnessBytes: number;
  /** Fetches per hint type (`state`: trie nodes and code fetched on an execution miss). */
  readonly fetches: Readonly<Record<string, number>>;
  /** Time waiting on the L1, beacon and L2 endpoints. */
  readonly fetchMs: number;
  /** The program's stages (derivation and execution include the fetches they waited on). */
  readonly program: ProgramTimings;
  readonly totalMs: number;
}

export interface WitnessCollection {
  readonly result: ProgramResult;
  readonly preimages: Preimage[];
  readonly metrics: WitnessMetrics;
}

/** Runs the program over a fetching oracle; throws what the program throws (a refusal) or a WitnessFetchError. */
export async function collectWitness(options: CollectWitnessOptions): Promise<WitnessCollection> {
  const t0 = performance.now();
  const oracle = new FetchingOracle(options);
  const result = await runProgram({
    boot: options.boot,
    oracle,
    rollupConfig: options.rollupConfig,
    ...(options.l1ChainConfig === undefined ? {} : { l1ChainConfig: options.l1ChainConfig }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const preimages = oracle.witness();
  return {
    result,
    preimages,
    metrics: {
      preimageCount: preimages.length,
      witnessBytes: preimages.reduce((sum, [, value]) => sum + value.length, 0),
      fetches: { ...oracle.stats.fetches },
      fetchMs: oracle.stats.fetchMs,
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
  /** Told of every successful collection (metrics, logs). */
  readonly onCollected?: (metrics: WitnessMetrics) => void;
}

/**
 * A witness source over the chain's endpoints: the program run natively; a request the program refuses (a wrong
 * claim, an agreed root that is not the agreed head's output) fails here, before any enclave is contacted.
 */
export function rpcWitnessSource(options: RpcWitnessSourceOptions): WitnessSource {
  return async (request, l2ChainId, signal) => {
    const collection = await collectWitness({
      boot: bootInfoOf(request, l2ChainId),
      agreedL2HeadHash: request.agreed_l2_head_hash,
      l1RpcUrl: options.l1RpcUrl,
      ...(options.l1BeaconUrl === undefined ? {} : { l1BeaconUrl: options.l1BeaconUrl }),
      l2RpcUrl: options.l2RpcUrl,
      rollupConfig: options.rollupConfig,
      ...(options.l1ChainConfig === undefined ? {} : { l1ChainConfig: options.l1ChainConfig }),
      signal,
    });
    options.onCollected?.(collection.metrics);
    return collection.preimages;
  };
}
