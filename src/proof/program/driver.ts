/**
 * The program's driver (docs/proof.md "The program"): src/derive's `derive()` from the agreed head to the claimed
 * block over the oracle's providers, each derived block executed by src/chain, its deposit-only replacement when
 * the payload is invalid (Holocene), its output root collected. Executed blocks' new trie nodes and headers stay
 * in an overlay the next block reads. With a worker pool the range is first tried in parallel
 * (parallel/range.ts); a range that does not chain there is executed here sequentially.
 */
import {
  type L1ChainConfig,
  PreimageKeyType,
  type PreimageSource,
  type SealedBlock,
  devL1ChainConfig,
  encodeHeader,
  executeBlock,
  findL1ChainConfig,
  fromHex,
  keccak256Key,
  outputRootPreimageV0,
  type BlockHeader,
  toHexRaw,
} from "../../chain/index.js";
import {
  type DerivedBlock,
  DeriveError,
  derive,
  type ExecutedDerivedBlock,
  executeDerivedBlock,
} from "../../derive/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import { SuiteError } from "../../errors/index.js";
import { keccak256PreimageKey } from "../preimages/index.js";
import { MissingWitnessError, RangeNotDerivedError } from "./errors.js";
import { type ProgramOracle, readWithFetch } from "./oracle.js";
import { executeRangeInParallel, poolRunner, type RangeRunner } from "./parallel/range.js";
import type { Prologue } from "./prologue.js";
import { OracleBlobProvider, OracleL2Provider } from "./providers.js";
import type { ExecutionReport, ProgramBlock, ProgramInput, ProgramTimings } from "./types.js";

/** What the driver hands the epilogue: the executed blocks, how they were executed, and what it took. */
export interface DriverOutcome {
  readonly blocks: readonly ProgramBlock[];
  readonly timings: Pick<ProgramTimings, "derivationMs" | "executionMs">;
  readonly execution: ExecutionReport;
  /** With `recordChainWitness` on a sequential run: see ProgramResult.chainWitness. */
  readonly chainWitness?: readonly Preimage[];
}

/** The blob fee schedule of L1 chain `chainId`: a built-in one, else the dev L1's (anvil, Prague from genesis). */
export function l1ChainConfigFor(chainId: bigint): L1ChainConfig {
  return findL1ChainConfig(chainId) ?? devL1ChainConfig(chainId);
}

/**
 * Derives and executes every block from the agreed head to the claimed one: in parallel when the input has a
 * pool and the range chains there, else sequentially. A derivation that reaches the L1 head first is a
 * RangeNotDerivedError.
 */
export async function driveRange(input: ProgramInput, start: Prologue): Promise<DriverOutcome> {
  const { boot, oracle } = input;
  const { agreed, l1 } = start;
  const l1ChainId = input.rollupConfig.l1ChainId;
  const startDerivation = () =>
    derive({
      rollupConfig: input.rollupConfig,
      ...(input.l1ChainConfig !== undefined
        ? { l1ChainConfig: input.l1ChainConfig }
        : l1ChainId === undefined
          ? {}
          : { l1ChainConfig: l1ChainConfigFor(l1ChainId) }),
      l1,
      l2: new OracleL2Provider(oracle, agreed),
      blobs: new OracleBlobProvider(oracle),
      agreedL2Head: agreed.number,
      agreedL2HeadHash: agreed.hash,
      l1Head: boot.l1Head,
      target: boot.claimedL2BlockNumber,
      ...(input.onDropped === undefined ? {} : { onDropped: input.onDropped }),
    });

  let t = performance.now();
  let fallback: ExecutionReport["fallback"];
  const runner = rangeRunnerOf(input);
  if (runner !== undefined) {
    const attempt = await executeRangeInParallel({
      boot,
      agreed,
      derivation: startDerivation(),
      step: nextStep,
      runner,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    });
    if (attempt.accepted) {
      const blocks = attempt.blocks.map((b) => ({ ...b, depositOnly: false }));
      const derivationMs = elapsed(t) - attempt.executionMs;
      return {
        blocks,
        timings: { derivationMs, executionMs: attempt.executionMs },
        execution: executionReport(runner, "parallel", undefined),
      };
    }
    fallback = { reason: attempt.reason, verifiedBlocks: attempt.verifiedBlocks };
    await checkpoint(input.signal);
    t = performance.now();
  }

  const overlay = new Overlay(oracle, input.recordChainWitness === true);
  const run = startDerivation();
  const blocks: ProgramBlock[] = [];
  const sealedBlocks: SealedBlock[] = [];
  let parent = agreed.header;
  let executionMs = 0;
  let step = await nextStep(run.next());
  while (!step.done) {
    await checkpoint(input.signal);
    const block = step.value;
    const te = performance.now();
    const { sealed, depositOnly } = await executeDerived(input, overlay, parent, block);
    executionMs += elapsed(te);
    if (sealed.outputRoot === undefined)
      throw new MissingWitnessError(
        keccak256Key(sealed.header.stateRoot),
        `the message passer account of L2 block ${block.number}`,
      );
    blocks.push({ number: block.number, hash: sealed.blockHash, outputRoot: sealed.outputRoot, depositOnly });
    if (overlay.read !== undefined) sealedBlocks.push(sealed);
    overlay.add(sealed);
    parent = sealed.header;
    step = await nextStep(run.next({ hash: sealed.blockHash, depositOnly }));
  }
  const derivationMs = elapsed(t) - executionMs;
  if (!step.value.reachedTarget)
    throw new RangeNotDerivedError(
      `derivation reached the L1 head at L2 block ${step.value.safeHead.number}, before the claimed block ${boot.claimedL2BlockNumber}`,
      { claimedBlock: boot.claimedL2BlockNumber, safeHead: step.value.safeHead.number },
    );
  return {
    blocks,
    timings: { derivationMs, executionMs },
    execution: executionReport(runner, "sequential", fallback),
    ...(overlay.read === undefined ? {} : { chainWitness: chainWitness(overlay.read, sealedBlocks) }),
  };
}

/** Executes a derived block, or its deposit-only replacement when the payload is invalid (Holocene). */
function executeDerived(
  input: ProgramInput,
  source: PreimageSource,
  parent: BlockHeader,
  block: DerivedBlock,
): Promise<ExecutedDerivedBlock<SealedBlock>> {
  return executeDerivedBlock(block, (transactions) =>
    readWithFetch(input.oracle, `state for L2 block ${block.number}`, () =>
      executeBlock({
        config: input.rollupConfig,
        parent,
        attributes: block.attributes,
        transactions,
        source,
        ...(input.oracle.yieldPoint === undefined
          ? {}
          : { betweenTransactions: () => input.oracle.yieldPoint?.() }),
      }),
    ),
  );
}

/** Executed blocks' trie nodes and headers over the oracle (keccak256 keys only). */
class Overlay implements PreimageSource {
  /** By the last 31 bytes of the hash, as unprefixed hex (a typed key's data bytes). */
  private readonly values = new Map<string, Uint8Array>();
  /** The values read from the overlay, when recorded (the chain witness). */
  readonly read: Set<Uint8Array> | undefined;

  constructor(
    private readonly oracle: ProgramOracle,
    record: boolean,
  ) {
    this.read = record ? new Set() : undefined;
  }

  private hit(value: Uint8Array | undefined): Uint8Array | undefined {
    if (value !== undefined) this.read?.add(value);
    return value;
  }

  add(sealed: SealedBlock): void {
    for (const [hash, value] of sealed.newNodes) this.values.set(hash.slice(2), value);
    this.values.set(toHexRaw(sealed.blockHash.subarray(1)), encodeHeader(sealed.header));
  }

  private own(key: Uint8Array): Uint8Array | undefined {
    if (key[0] !== PreimageKeyType.Keccak256 || this.values.size === 0) return undefined;
    return this.hit(this.values.get(toHexRaw(key.subarray(1))));
  }

  get(key: Uint8Array): Uint8Array {
    return this.own(key) ?? this.oracle.get(key);
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    return this.own(key) ?? this.oracle.tryGet(key);
  }

  /** The trie database's fast path (unprefixed hex of the full hash). */
  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    const own = this.hit(this.values.get(hashHex.slice(2)));
    if (own !== undefined) return own;
    if (this.oracle.tryGetByKeccak256Hex !== undefined) return this.oracle.tryGetByKeccak256Hex(hashHex);
    return this.oracle.tryGet(keccak256Key(fromHex(hashHex)));
  }
}

/**
 * Derivation wraps what its providers throw (a blob provider's failure becomes a DataMissingError, say); the
 * providers are the program's own, so their error is what the caller must see: the program's refusal
 * (MissingWitnessError, InvalidWitnessError) or, on the host, the fetching oracle's (a value that did not check).
 */
async function nextStep<T>(step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    for (let e: unknown = error; e instanceof Error; e = e.cause)
      if (e instanceof SuiteError && !(e instanceof DeriveError)) throw e;
    throw error;
  }
}

/** Lets pending I/O events run (a closed connection aborts `signal`), then throws if it is aborted. */
export async function checkpoint(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return;
  signal.throwIfAborted();
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}

function elapsed(since: number): number {
  return performance.now() - since;
}

/** The input's runner of parallel execution: its own, or the enclave's pool over its preimage table. */
function rangeRunnerOf(input: ProgramInput): RangeRunner | undefined {
  const { parallel } = input;
  if (parallel === undefined) return undefined;
  if ("runner" in parallel) return parallel.runner;
  return poolRunner(parallel.pool, parallel.table, input.boot, input.rollupConfig);
}

function executionReport(
  runner: RangeRunner | undefined,
  mode: ExecutionReport["mode"],
  fallback: ExecutionReport["fallback"],
): ExecutionReport {
  return {
    mode,
    workers: runner?.workers ?? 1,
    ...(fallback === undefined ? {} : { fallback }),
    ...(runner === undefined ? {} : { peakWorkerHeapBytes: runner.peakWorkerHeapBytes }),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

/**
 * The chain witness of a sequential run: the values blocks read from the overlay, the range's headers and the
 * claimed block's output root preimage (each keyed by its keccak256).
 */
function chainWitness(read: ReadonlySet<Uint8Array>, sealed: readonly SealedBlock[]): Preimage[] {
  const values = [...read, ...sealed.map((b) => encodeHeader(b.header))];
  const last = sealed.at(-1);
  if (last?.messagePasserStorageRoot !== undefined)
    values.push(outputRootPreimageV0(last.stateRoot, last.messagePasserStorageRoot, last.blockHash));
  return values.map((value): Preimage => [keccak256PreimageKey(value), value]);
}

/** `preimages` followed by the entries of `extra` whose keys it lacks (a witness completed with its chain witness). */
export function mergeWitness(preimages: readonly Preimage[], extra: readonly Preimage[]): Preimage[] {
  const keyOf = ([key]: Preimage) => toHexRaw(key);
  const have = new Set(preimages.map(keyOf));
  return [...preimages, ...extra.filter((p) => !have.has(keyOf(p)))];
}
