/**
 * The proof program's input and result (docs/proof.md "The program"): what the prologue, the driver and the
 * epilogue (prologue.ts, driver.ts, epilogue.ts) pass along, and what runProgram returns.
 */
import type { BlockHeader, L1ChainConfig, RollupConfig } from "../../chain/index.js";
import type { DroppedInputError } from "../../derive/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import type { BootInfo, PreimageTable } from "../preimages/index.js";
import type { ExecutedRange } from "../onchain/index.js";
import type { ProgramOracle } from "./oracle.js";
import type { BlockPool } from "./parallel/pool.js";
import type { RangeRunner } from "./parallel/range.js";

export interface ProgramInput {
  readonly boot: BootInfo;
  readonly oracle: ProgramOracle;
  /** The chain's rollup config (its chain id must be the boot's). */
  readonly rollupConfig: RollupConfig;
  /** The L1's blob fee schedule; a dev L1 passes its own (see src/derive's derivationConfig). */
  readonly l1ChainConfig?: L1ChainConfig;
  /** Told of every input derivation dropped per the spec (frames, channels, batches). */
  readonly onDropped?: (error: DroppedInputError) => void;
  /**
   * Checked between the stages and blocks: an aborted run stops with the signal's reason. With a signal the run
   * also lets pending I/O in before each check (an offline oracle never does), so a hang-up can be noticed.
   */
  readonly signal?: AbortSignal;
  /**
   * Execute the range on these worker threads over this verified preimage table (the enclave's), or on a runner
   * of its own (the host's workers with their fetching oracles), falling back to sequential execution when the
   * chain of hashes does not hold (docs/proof.md "Parallel execution").
   */
  readonly parallel?:
    { readonly pool: BlockPool; readonly table: PreimageTable } | { readonly runner: RangeRunner };
  /**
   * Return the chain witness (`ProgramResult.chainWitness`): what a parallel run needs beyond what this run read
   * from the oracle (the host records it for an enclave that executes in parallel).
   */
  readonly recordChainWitness?: boolean;
  /** Told how the range was executed, before the claim is checked (so also when the claim is then refused). */
  readonly onExecuted?: (report: ExecutionReport) => void;
}

/** One re-executed block. */
export interface ProgramBlock {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly outputRoot: Uint8Array;
  /** The payload was invalid and its deposit-only version was executed (Holocene). */
  readonly depositOnly: boolean;
}

/** Milliseconds per stage of one run (the host's metrics; derivation includes the oracle's fetches). */
export interface ProgramTimings {
  readonly prologueMs: number;
  readonly derivationMs: number;
  readonly executionMs: number;
  readonly epilogueMs: number;
}

/** How the range was executed. */
export interface ExecutionReport {
  /** `parallel`: every block on the workers, the chain of hashes complete; else sequentially. */
  readonly mode: "parallel" | "sequential";
  /** Worker threads available (1: sequential only). */
  readonly workers: number;
  /** Why a parallel attempt fell back to sequential execution, and how many blocks had chained before. */
  readonly fallback?: { readonly reason: string; readonly verifiedBlocks: number };
  /** The largest heap a block worker reported (bytes; parallel attempts only). */
  readonly peakWorkerHeapBytes?: number;
  /** This process's peak resident set so far (bytes). */
  readonly peakRssBytes: number;
}

export interface ProgramResult extends ExecutedRange {
  readonly agreedHead: { readonly number: bigint; readonly hash: Uint8Array };
  readonly blocks: readonly ProgramBlock[];
  readonly timings: ProgramTimings;
  readonly execution: ExecutionReport;
  /**
   * With `recordChainWitness`: the claimed output root's preimage, the range's headers and every value a block
   * read that an earlier block of the range created (sequential execution reads those from its overlay).
   */
  readonly chainWitness?: readonly Preimage[];
}

/** The agreed L2 head the agreed output root opens to. */
export interface AgreedHead {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly header: BlockHeader;
}
