/**
 * Messages between the host's parallel witness run (parallel-run.ts) and its block workers (block-worker.ts).
 * Everything is structured-cloned: a worker gets its blocks and what its own fetching oracle needs, and answers
 * each block's outcome, then the values its blocks read (its part of the witness) and what fetching them cost.
 */
import type { BlockHeader, PayloadAttributes, RollupConfig } from "../../chain/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import type { BootInfo } from "../../proof/preimages/index.js";
import type { BlockOutcome } from "../../proof/program/index.js";
import type { WitnessLimits } from "./limits.js";
import type { WitnessStrategyName } from "./strategies.js";

/** What a worker's fetching oracle is built from (FetchingOracleOptions without the functions). */
export interface WorkerOracleOptions {
  readonly boot: BootInfo;
  readonly agreedL2HeadHash: Uint8Array;
  readonly l1RpcUrl: string;
  readonly l1BeaconUrl?: string;
  readonly l2RpcUrl: string;
  readonly strategy: WitnessStrategyName;
  readonly witnessConcurrency?: number;
  readonly secondsPerSlot?: number;
  readonly witnessLimits?: WitnessLimits;
  readonly timeoutMs?: number;
}

/** Consecutive blocks of a range, executed in order, each on the parent header it comes with. */
export interface HostBlockJob {
  readonly oracle: WorkerOracleOptions;
  readonly rollupConfig: RollupConfig;
  /** Encoded headers a block may read by hash (the agreed head's and the range's). */
  readonly headers: readonly Uint8Array[];
  readonly blocks: readonly {
    readonly index: number;
    readonly number: bigint;
    readonly parent: BlockHeader;
    readonly attributes: PayloadAttributes;
    readonly transactions: readonly Uint8Array[];
  }[];
}

/** What fetching cost, by source (a worker's, summed into the collection's WitnessMetrics). */
export interface FetchFigures {
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
}

export type HostBlockReply =
  /** One block: its outcome and, when sealed, its output root's preimage. */
  | {
      readonly type: "block";
      readonly index: number;
      readonly outcome: BlockOutcome;
      readonly outputRootPreimage?: Uint8Array;
      readonly heapUsed: number;
    }
  /** The job is over (every block sealed, or the first that did not): the values its blocks read. */
  | {
      readonly type: "done";
      readonly preimages: readonly Preimage[];
      readonly figures: FetchFigures;
      readonly heapUsed: number;
    }
  /** The job could not finish (its witness passed the bounds, an endpoint failed outside a block). */
  | { readonly type: "failed"; readonly reason: string };
