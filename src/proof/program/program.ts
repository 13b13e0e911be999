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
  keccak256,
  keccak256Key,
  toHex,
  toHexRaw,
} from "../../chain/index.js";
import { type DerivedBlock, DeriveError, type DroppedInputError, derive } from "../../derive/index.js";
import { type BootInfo, InvalidBootInfoError } from "../preimages/index.js";
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

/** The v0 output root preimage: version (32) ‖ state root ‖ message passer storage root ‖ block hash. */
export const OUTPUT_ROOT_PREIMAGE_BYTES = 128;

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
export function programExecutor(chains: ChainConfigLookup): {
  execute(boot: BootInfo, preimages: PreimageSource, signal?: AbortSignal): Promise<ExecutedRange>;
} {
  return {
    async execute(boot, preimages, signal) {
      const chain = chains(boot.chainId);
      if (chain === undefined) throw new UnsupportedChainError(boot.chainId);
      const result = await runProgram({
        boot,
        oracle: new OfflineOracle(preimages),
        rollupConfig: chain.rollupConfig,
        ...(chain.l1ChainConfig === undefined ? {} : { l1ChainConfig: chain.l1ChainConfig }),
        ...(signal === undefined ? {} : { signal }),
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

export interface ProgramResult extends ExecutedRange {
  readonly agreedHead: { readonly number: bigint; readonly hash: Uint8Array };
  readonly blocks: readonly ProgramBlock[];
  readonly timings: ProgramTimings;
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

  constructor(private readonly oracle: ProgramOracle) {}

  add(sealed: SealedBlock): void {
    for (const [hash, value] of sealed.newNodes) this.values.set(hash.slice(2), value);
    this.values.set(toHexRaw(sealed.blockHash.subarray(1)), encodeHeader(sealed.header));
  }

  private own(key: Uint8Array): Uint8Array | undefined {
    if (key[0] !== PreimageKeyType.Keccak256 || this.values.size === 0) return undefined;
    return this.values.get(toHexRaw(key.subarray(1)));
  }

  get(key: Uint8Array): Uint8Array {
    return this.own(key) ?? this.oracle.get(key);
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    return this.own(key) ?? this.oracle.tryGet(key);
  }

  /** The trie database's fast path (unprefixed hex of the full hash). */
  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    const own = this.values.get(hashHex.slice(2));
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
 * Opens the agreed output root to the agreed L2 head and checks the head's header against it
 * (AgreedOutputMismatchError); a missing preimage is a MissingWitnessError.
 */
export async function openAgreedOutput(oracle: ProgramOracle, outputRoot: Uint8Array): Promise<AgreedHead> {
  await oracle.hint({ type: "starting-l2-output", outputRoot });
  const preimage = await readWithFetch(oracle, "agreed output root", () =>
    oracle.get(keccak256Key(outputRoot)),
  );
  if (preimage.length !== OUTPUT_ROOT_PREIMAGE_BYTES)
    throw new InvalidWitnessError(`the agreed output root's preimage has ${preimage.length} bytes`, {
      what: "agreed output",
    });
  if (!bytesEqual(keccak256(preimage), outputRoot))
    throw new InvalidWitnessError("the agreed output root's preimage does not hash to it", {
      what: "agreed output",
    });
  if (preimage.subarray(0, 32).some((b) => b !== 0))
    throw new AgreedOutputMismatchError("the agreed output root is not version 0", { field: "version" });
  const stateRoot = preimage.slice(32, 64);
  const passerRoot = preimage.slice(64, 96);
  const hash = preimage.slice(96, 128);
  await oracle.hint({ type: "l2-block-header", hash });
  const header = await readWithFetch(oracle, `agreed L2 header ${toHex(hash)}`, () =>
    readHeader(oracle, hash, "agreed L2 header"),
  );
  if (!bytesEqual(header.stateRoot, stateRoot))
    throw new AgreedOutputMismatchError("the agreed L2 head's state root is not the output root's", {
      field: "stateRoot",
      number: header.number,
    });
  // From Isthmus the header commits to the message passer's storage root (withdrawalsRoot).
  const headerPasserRoot =
    header.requestsHash !== undefined && header.withdrawalsRoot !== undefined
      ? header.withdrawalsRoot
      : await readWithFetch(oracle, "agreed L2ToL1MessagePasser account", () =>
          messagePasserStorageRoot(oracle, stateRoot),
        );
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

  const overlay = new Overlay(oracle);
  const l1ChainId = input.rollupConfig.l1ChainId;
  const run = derive({
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
  const blocks: ProgramBlock[] = [];
  let parent = agreed.header;
  let executionMs = 0;
  let t = performance.now();
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
  t = performance.now();
  const range: ExecutedRange = { startBlock: agreed.number, outputRoots: blocks.map((b) => b.outputRoot) };
  checkClaim(boot, range);
  return {
    ...range,
    agreedHead: { number: agreed.number, hash: agreed.hash },
    blocks,
    timings: { prologueMs, derivationMs, executionMs, epilogueMs: elapsed(t) },
  };
}
