/**
 * Parallel execution of a range (docs/proof.md "Parallel execution"). The witness carries the range's headers:
 * the claimed output root's preimage names the claimed block, whose header names its parent, back to the agreed
 * head. Derivation runs ahead (it is cheap), told that each block sealed to the hash the witness carries and was
 * valid; the derived payloads are then executed concurrently, each block on the header the witness carries for
 * its parent. The range is accepted only when every block executed and its computed hash is the header the next
 * block was executed on (the last one: the claimed output's block), which makes derivation's inputs and every
 * block's pre-state those of sequential execution. Anything else (a header the witness lacks or forged, an
 * invalid payload that sequential execution would replace by its deposit-only version, a preimage missing) is a
 * fallback: the caller executes the range sequentially. Nothing here refuses a proof or signs.
 */
import type { BlockHeader, OutputRootV0Fields, PreimageSource, RollupConfig } from "../../../chain/index.js";
import {
  bytesEqual,
  keccak256Key,
  openOutputRootV0,
  OutputRootPreimageError,
  toHex,
} from "../../../chain/index.js";
import type { DerivedBlock, DeriveResult, ExecutedBlock } from "../../../derive/index.js";
import type { BootInfo, PreimageTable } from "../../preimages/index.js";
import { readHeader } from "../reads.js";
import type { BlockPool, PoolBlock } from "./pool.js";
import type { BlockOutcome } from "./protocol.js";

/** Longest range executed in parallel (its headers are held at once); a longer one runs sequentially. */
export const MAX_PARALLEL_BLOCKS = 65_536;

/** One block of an accepted parallel range. */
export interface ParallelBlock {
  readonly number: bigint;
  readonly hash: Uint8Array;
  readonly outputRoot: Uint8Array;
}

export type ParallelRangeOutcome =
  | { readonly accepted: true; readonly blocks: readonly ParallelBlock[]; readonly executionMs: number }
  | {
      readonly accepted: false;
      /** Why the range is executed sequentially. */
      readonly reason: string;
      /** Blocks from the agreed head whose hashes chained before the first that did not. */
      readonly verifiedBlocks: number;
    };

/** The headers of blocks agreed + 1 … claimed the range is executed on, with their hashes. */
export interface HeaderChain {
  readonly headers: readonly BlockHeader[];
  readonly hashes: readonly Uint8Array[];
}

/** One block of a range as a runner executes it. */
export interface RangeBlock extends PoolBlock {
  readonly number: bigint;
}

/**
 * What executes a range's blocks concurrently: the enclave's block pool over the verified preimage table
 * (`poolRunner`), or the host's workers, each with its own fetching oracle (src/host/witness).
 */
export interface RangeRunner {
  readonly workers: number;
  /** The largest heap a worker reported (bytes). */
  readonly peakWorkerHeapBytes: number;
  /**
   * The headers the blocks are to be executed on (each block on its parent's), or why there are none. They are
   * claims until checked: a range is accepted only when each block's computed hash is the next one's parent's.
   */
  headerChain(agreed: { readonly number: bigint; readonly hash: Uint8Array }): Promise<HeaderChain | string>;
  /** Executes `blocks` (BlockPool.executeAll's contract: `keep` may stop the blocks not yet started). */
  executeAll(
    blocks: readonly RangeBlock[],
    keep: (index: number, outcome: BlockOutcome) => boolean,
    signal?: AbortSignal,
  ): Promise<(BlockOutcome | undefined)[]>;
}

/** The enclave's runner: `pool` over the verified preimage table, on the headers the witness carries. */
export function poolRunner(
  pool: BlockPool,
  table: PreimageTable,
  boot: BootInfo,
  rollupConfig: RollupConfig,
): RangeRunner {
  return {
    workers: pool.workers,
    get peakWorkerHeapBytes() {
      return pool.peakWorkerHeapBytes;
    },
    headerChain: async (agreed) => witnessHeaderChain(table, boot, agreed),
    // The table is shared with the workers only once the range is to run on them.
    executeAll: (blocks, keep, signal) =>
      pool.executeAll(blocks, table.toShared(), rollupConfig, keep, signal),
  };
}

export interface ParallelRangeInput {
  readonly boot: BootInfo;
  readonly agreed: { readonly number: bigint; readonly hash: Uint8Array; readonly header: BlockHeader };
  /** A fresh derivation from the agreed head to the claimed block; it is driven ahead here. */
  readonly derivation: AsyncGenerator<DerivedBlock, DeriveResult, ExecutedBlock | undefined>;
  /** Awaits one derivation step (the program's unwrapping of provider errors). */
  readonly step: <T>(step: Promise<T>) => Promise<T>;
  readonly runner: RangeRunner;
  readonly signal?: AbortSignal;
}

const fallback = (reason: string, verifiedBlocks = 0): ParallelRangeOutcome => ({
  accepted: false,
  reason,
  verifiedBlocks,
});

/** What `outputRoot` commits to, when the witness carries a preimage that opens it. */
function openWitnessedOutput(source: PreimageSource, outputRoot: Uint8Array): OutputRootV0Fields | undefined {
  const preimage = source.tryGet(keccak256Key(outputRoot));
  if (preimage === undefined) return undefined;
  try {
    return openOutputRootV0(outputRoot, preimage);
  } catch (error) {
    if (error instanceof OutputRootPreimageError) return undefined;
    throw error;
  }
}

/**
 * The headers of blocks agreed + 1 … claimed the witness carries, by walking back from the claimed output's
 * block to the agreed head; a string says why there is no such chain.
 */
export function witnessHeaderChain(
  source: PreimageSource,
  boot: BootInfo,
  agreed: { readonly number: bigint; readonly hash: Uint8Array },
): HeaderChain | string {
  const count = boot.claimedL2BlockNumber - agreed.number;
  if (count < 2n) return "a range of one block (nothing to execute concurrently)";
  if (count > BigInt(MAX_PARALLEL_BLOCKS)) return `a range of ${count} blocks`;
  const claimed = openWitnessedOutput(source, boot.claimedOutputRoot);
  if (claimed === undefined) return "the witness does not open the claimed output root";
  const n = Number(count);
  const headers = new Array<BlockHeader>(n);
  const hashes = new Array<Uint8Array>(n);
  let hash: Uint8Array = claimed.blockHash;
  for (let i = n - 1; i >= 0; i--) {
    const number = agreed.number + 1n + BigInt(i);
    if (source.tryGet(keccak256Key(hash)) === undefined)
      return `the witness lacks the header of L2 block ${number}`;
    const header = readHeader(source, hash, `L2 header ${number}`);
    if (header.number !== number)
      return `the witness's header ${toHex(hash)} is block ${header.number}, not ${number}`;
    headers[i] = header;
    hashes[i] = hash;
    hash = header.parentHash;
  }
  if (!bytesEqual(hash, agreed.hash)) return "the witness's headers do not chain to the agreed head";
  return { headers, hashes };
}

/** True when `outcome` is block `index` sealed to the hash the witness carries for it. */
function chains(outcome: BlockOutcome | undefined, hash: Uint8Array): boolean {
  return outcome?.kind === "sealed" && bytesEqual(outcome.hash, hash);
}

function describe(outcome: BlockOutcome | undefined, number: bigint): string {
  if (outcome === undefined) return `L2 block ${number} was not executed`;
  switch (outcome.kind) {
    case "sealed":
      return `L2 block ${number} sealed to ${toHex(outcome.hash)}, not the header the witness carries`;
    case "invalid":
      return `L2 block ${number}'s payload is invalid (${outcome.reason})`;
    case "missing":
      return `L2 block ${number} read a preimage the witness lacks`;
    case "failed":
      return `L2 block ${number} failed: ${outcome.reason}`;
  }
}

/** Derives ahead, executes the range on the pool and checks the chain of hashes (see the file's comment). */
export async function executeRangeInParallel(input: ParallelRangeInput): Promise<ParallelRangeOutcome> {
  const { agreed } = input;
  let chain: HeaderChain | string;
  try {
    chain = await input.runner.headerChain(agreed);
  } catch (error) {
    if (input.signal?.aborted) throw input.signal.reason;
    return fallback(`the range's headers: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof chain === "string") return fallback(chain);
  const { headers, hashes } = chain;

  // Derivation, told that every block was valid and sealed to the witness's hash (checked below).
  const derived: DerivedBlock[] = [];
  try {
    let step = await input.step(input.derivation.next());
    while (!step.done) {
      const i = derived.length;
      if (i >= hashes.length || step.value.number !== agreed.number + 1n + BigInt(i))
        return fallback(`derivation yielded L2 block ${step.value.number} as block ${i + 1} of the range`);
      derived.push(step.value);
      step = await input.step(input.derivation.next({ hash: hashes[i]!, depositOnly: false }));
    }
    if (!step.value.reachedTarget || derived.length !== hashes.length)
      return fallback("derivation ahead did not reach the claimed block");
  } catch (error) {
    if (input.signal?.aborted) throw input.signal.reason;
    return fallback(`derivation ahead failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  const t = performance.now();
  const outcomes = await input.runner.executeAll(
    derived.map((block, i) => ({
      number: block.number,
      parent: i === 0 ? agreed.header : headers[i - 1]!,
      attributes: block.attributes,
      transactions: block.transactions,
    })),
    (i, outcome) => chains(outcome, hashes[i]!),
    input.signal,
  );
  const executionMs = performance.now() - t;
  const blocks: ParallelBlock[] = [];
  for (const [i, block] of derived.entries()) {
    const outcome = outcomes[i];
    if (!chains(outcome, hashes[i]!) || outcome?.kind !== "sealed")
      return fallback(describe(outcome, block.number), i);
    blocks.push({ number: block.number, hash: outcome.hash, outputRoot: outcome.outputRoot });
  }
  return { accepted: true, blocks, executionMs };
}
