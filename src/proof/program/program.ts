/**
 * The proof program (docs/proof.md): one range proof from the boot information and a preimage oracle. The
 * enclave runs it offline over the verified preimages of a Prove request; the host runs the same code natively
 * over its fetching oracle to collect the witness.
 *
 * - Prologue: the agreed output root is opened (its keccak256 preimage: version ‖ state root ‖ message passer
 *   storage root ‖ L2 block hash) to the agreed L2 head, whose header must carry that state root and message
 *   passer root; the L1 head header must have the boot's number. The claim must be after the agreed head.
 * - Driver: src/derive's `derive()` from the agreed head to the claimed block over the oracle's providers, each
 *   derived block executed by src/chain (the deposit-only replacement when invalid, Holocene), its output root
 *   collected. Executed blocks' new trie nodes and headers stay in an overlay the next block reads.
 * - Epilogue: the last output root must be the claimed one at the claimed block (OutputRootMismatchError).
 *   Nothing is signed here; signing (buildProofResult) comes only after the program returned.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type BlockHeader,
  FastTrie,
  InvalidBlockError,
  type L1ChainConfig,
  L2_TO_L1_MESSAGE_PASSER,
  OutputRootPreimageError,
  type OutputRootV0Fields,
  PreimageKeyType,
  type PreimageSource,
  type RollupConfig,
  type SealedBlock,
  bytesEqual,
  encodeHeader,
  devL1ChainConfig,
  executeBlock,
  findL1ChainConfig,
  fromHex,
  headerMessagePasserRoot,
  keccak256,
  keccak256Key,
  openOutputRootV0,
  outputRootPreimageV0,
  toHex,
  toHexRaw,
} from "../../chain/index.js";
import { type DerivedBlock, DeriveError, type DroppedInputError, derive } from "../../derive/index.js";
import type { Preimage } from "../../../generated/protocol/index.js";
import {
  type BootInfo,
  InvalidBootInfoError,
  keccak256PreimageKey,
  PreimageTable,
} from "../preimages/index.js";
import { SuiteError } from "../../errors/index.js";
import { type ExecutedRange, checkClaim } from "../onchain/index.js";
import {
  AgreedOutputMismatchError,
  InvalidWitnessError,
  MissingWitnessError,
  RangeNotDerivedError,
} from "./errors.js";
import { OfflineOracle, type ProgramOracle, readWithFetch } from "./oracle.js";
import { UnsupportedChainError } from "../onchain/index.js";
import { OracleBlobProvider, OracleL1Provider, OracleL2Provider } from "./providers.js";
import { readHeader } from "./reads.js";
import type { BlockPool } from "./parallel/pool.js";
import { executeRangeInParallel } from "./parallel/range.js";

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
   * Execute the range on these worker threads over this verified preimage table (the enclave's), falling back
   * to sequential execution when the chain of hashes does not hold (docs/proof.md "Parallel execution").
   */
  readonly parallel?: { readonly pool: BlockPool; readonly table: PreimageTable };
  /**
   * Return the chain witness (`ProgramResult.chainWitness`): what a parallel run needs beyond what this run read
   * from the oracle (the host records it for an enclave that executes in parallel).
   */
  readonly recordChainWitness?: boolean;
  /** Told how the range was executed, before the claim is checked (so also when the claim is then refused). */
  readonly onExecuted?: (report: ExecutionReport) => void;
}

/** The blob fee schedule of L1 chain `chainId`: a built-in one, else the dev L1's (anvil, Prague from genesis). */
export function l1ChainConfigFor(chainId: bigint): L1ChainConfig {
  return findL1ChainConfig(chainId) ?? devL1ChainConfig(chainId);
}

/** Which chains a program executor proves: the rollup config (and L1 schedule) of a chain id, or undefined. */
export type ChainConfigLookup = (
  chainId: bigint,
) => { readonly rollupConfig: RollupConfig; readonly l1ChainConfig?: L1ChainConfig } | undefined;

/**
 * The program as the enclave's RangeExecutor (enclave/prove.ts): offline over the request's verified preimages.
 * A chain the lookup does not know is refused (UnsupportedChainError).
 */
export function programExecutor(
  chains: ChainConfigLookup,
  options: {
    /** Worker threads for parallel execution (a pool of 1 or none: sequential). */
    readonly pool?: BlockPool;
    /** Told of how each range was executed (logs, metrics). */
    readonly onExecuted?: (report: ExecutionReport) => void;
  } = {},
): {
  execute(boot: BootInfo, preimages: PreimageSource, signal?: AbortSignal): Promise<ExecutedRange>;
} {
  const { pool } = options;
  return {
    async execute(boot, preimages, signal) {
      const chain = chains(boot.chainId);
      if (chain === undefined) throw new UnsupportedChainError(boot.chainId);
      const parallel =
        pool !== undefined && pool.workers > 1 && preimages instanceof PreimageTable
          ? { pool, table: preimages }
          : undefined;
      const result = await runProgram({
        boot,
        oracle: new OfflineOracle(preimages),
        rollupConfig: chain.rollupConfig,
        ...(chain.l1ChainConfig === undefined ? {} : { l1ChainConfig: chain.l1ChainConfig }),
        ...(signal === undefined ? {} : { signal }),
        ...(parallel === undefined ? {} : { parallel }),
        ...(options.onExecuted === undefined ? {} : { onExecuted: options.onExecuted }),
      });
      return { startBlock: result.startBlock, outputRoots: result.outputRoots };
    },
  };
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
async function checkpoint(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return;
  signal.throwIfAborted();
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}

function elapsed(since: number): number {
  return performance.now() - since;
}

/** The message passer's storage root in the state under `stateRoot` (pre-Isthmus heads). */
function messagePasserStorageRoot(source: PreimageSource, stateRoot: Uint8Array): Uint8Array {
  const trie = new FastTrie({
    getNode: (hash) => source.get(keccak256Key(hash)),
    putNode: () => {
      throw new InvalidWitnessError("a read-only trie was written", { what: "state" });
    },
  });
  const account = trie.get(stateRoot, keccak256(L2_TO_L1_MESSAGE_PASSER.bytes));
  if (account === undefined)
    throw new AgreedOutputMismatchError("the L2ToL1MessagePasser account is absent from the agreed state", {
      field: "messagePasserStorageRoot",
    });
  const fields = RLP.decode(account) as Uint8Array[];
  if (!Array.isArray(fields) || fields.length !== 4 || !(fields[2] instanceof Uint8Array))
    throw new InvalidWitnessError("malformed L2ToL1MessagePasser account", { what: "state" });
  return fields[2];
}

/**
 * The three roots the agreed output root commits to (src/chain's opening): a preimage of another length or hash
 * is an InvalidWitnessError, another version an AgreedOutputMismatchError.
 */
function openAgreedPreimage(outputRoot: Uint8Array, preimage: Uint8Array): OutputRootV0Fields {
  try {
    return openOutputRootV0(outputRoot, preimage);
  } catch (error) {
    if (!(error instanceof OutputRootPreimageError)) throw error;
    if (error.fault === "version")
      throw new AgreedOutputMismatchError("the agreed output root is not version 0", { field: "version" });
    throw new InvalidWitnessError(
      `the agreed output: ${error.message}`,
      { what: "agreed output" },
      { cause: error },
    );
  }
}

/**
 * Opens the agreed output root to the agreed L2 head and checks the head's header against it
 * (AgreedOutputMismatchError); a missing preimage is a MissingWitnessError.
 */
export async function openAgreedOutput(oracle: ProgramOracle, outputRoot: Uint8Array): Promise<AgreedHead> {
  await oracle.hint({ type: "starting-l2-output", outputRoot });
  const preimage = await readWithFetch(oracle, "agreed output root", () =>
    oracle.get(keccak256Key(outputRoot)),
  );
  const {
    stateRoot,
    messagePasserStorageRoot: passerRoot,
    blockHash: hash,
  } = openAgreedPreimage(outputRoot, preimage);
  await oracle.hint({ type: "l2-block-header", hash });
  const header = await readWithFetch(oracle, `agreed L2 header ${toHex(hash)}`, () =>
    readHeader(oracle, hash, "agreed L2 header"),
  );
  if (!bytesEqual(header.stateRoot, stateRoot))
    throw new AgreedOutputMismatchError("the agreed L2 head's state root is not the output root's", {
      field: "stateRoot",
      number: header.number,
    });
  const headerPasserRoot =
    headerMessagePasserRoot(header) ??
    (await readWithFetch(oracle, "agreed L2ToL1MessagePasser account", () =>
      messagePasserStorageRoot(oracle, stateRoot),
    ));
  if (!bytesEqual(headerPasserRoot, passerRoot))
    throw new AgreedOutputMismatchError(
      "the agreed L2 head's message passer storage root is not the output root's",
      { field: "messagePasserStorageRoot", number: header.number },
    );
  return { number: header.number, hash, header };
}

async function executeDerived(
  input: ProgramInput,
  source: PreimageSource,
  parent: BlockHeader,
  block: DerivedBlock,
): Promise<{ sealed: SealedBlock; depositOnly: boolean }> {
  const run = (transactions: readonly Uint8Array[]) =>
    readWithFetch(input.oracle, `state for L2 block ${block.number}`, () =>
      executeBlock({
        config: input.rollupConfig,
        parent,
        attributes: block.attributes,
        transactions,
        source,
      }),
    );
  try {
    return { sealed: await run(block.transactions), depositOnly: false };
  } catch (error) {
    if (!(error instanceof InvalidBlockError)) throw error;
    return { sealed: await run(block.depositOnlyTransactions), depositOnly: true };
  }
}

/** Runs the program: prologue, derivation and execution up to the claimed block, epilogue. */
export async function runProgram(input: ProgramInput): Promise<ProgramResult> {
  const { boot, oracle } = input;
  const t0 = performance.now();
  if (input.rollupConfig.l2ChainId !== boot.chainId)
    throw new InvalidBootInfoError(
      `the rollup config is chain ${input.rollupConfig.l2ChainId}, the boot information names chain ${boot.chainId}`,
      { key: "L2ChainId" },
    );
  const agreed = await openAgreedOutput(oracle, boot.agreedOutputRoot);
  if (boot.claimedL2BlockNumber <= agreed.number)
    throw new RangeNotDerivedError(
      `the claimed block ${boot.claimedL2BlockNumber} is not after the agreed L2 head ${agreed.number}`,
      { claimedBlock: boot.claimedL2BlockNumber, safeHead: agreed.number },
    );
  const l1 = new OracleL1Provider(oracle);
  const l1Head = await l1.headerByHash(boot.l1Head);
  if (l1Head.number !== boot.l1HeadNumber)
    throw new InvalidBootInfoError(
      `the L1 head ${toHex(boot.l1Head)} is block ${l1Head.number}, the boot information says ${boot.l1HeadNumber}`,
      { key: "L1HeadNumber" },
    );
  const prologueMs = elapsed(t0);
  await checkpoint(input.signal);

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
  if (input.parallel !== undefined) {
    const attempt = await executeRangeInParallel({
      boot,
      source: oracle,
      agreed,
      derivation: startDerivation(),
      step: nextStep,
      pool: input.parallel.pool,
      table: input.parallel.table,
      rollupConfig: input.rollupConfig,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    });
    if (attempt.accepted) {
      const blocks = attempt.blocks.map((b) => ({ ...b, depositOnly: false }));
      const derivationMs = elapsed(t) - attempt.executionMs;
      await checkpoint(input.signal);
      return epilogue(input, agreed, blocks, {
        timings: { prologueMs, derivationMs, executionMs: attempt.executionMs },
        execution: executionReport(input, "parallel", undefined),
      });
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
  await checkpoint(input.signal);
  return epilogue(input, agreed, blocks, {
    timings: { prologueMs, derivationMs, executionMs },
    execution: executionReport(input, "sequential", fallback),
    ...(overlay.read === undefined ? {} : { chainWitness: chainWitness(overlay.read, sealedBlocks) }),
  });
}

function executionReport(
  input: ProgramInput,
  mode: ExecutionReport["mode"],
  fallback: ExecutionReport["fallback"],
): ExecutionReport {
  const pool = input.parallel?.pool;
  return {
    mode,
    workers: pool?.workers ?? 1,
    ...(fallback === undefined ? {} : { fallback }),
    ...(pool === undefined ? {} : { peakWorkerHeapBytes: pool.peakWorkerHeapBytes }),
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
  const keyOf = ([key]: Preimage) => `${key.key_type}:${toHexRaw(key.data)}`;
  const have = new Set(preimages.map(keyOf));
  return [...preimages, ...extra.filter((p) => !have.has(keyOf(p)))];
}

/** The claim check over the executed blocks, and the result. */
function epilogue(
  input: ProgramInput,
  agreed: AgreedHead,
  blocks: readonly ProgramBlock[],
  rest: {
    timings: Omit<ProgramTimings, "epilogueMs">;
    execution: ExecutionReport;
    chainWitness?: readonly Preimage[];
  },
): ProgramResult {
  input.onExecuted?.(rest.execution);
  const t = performance.now();
  const range: ExecutedRange = { startBlock: agreed.number, outputRoots: blocks.map((b) => b.outputRoot) };
  checkClaim(input.boot, range);
  return {
    ...range,
    agreedHead: { number: agreed.number, hash: agreed.hash },
    blocks,
    ...rest,
    timings: { ...rest.timings, epilogueMs: elapsed(t) },
  };
}
