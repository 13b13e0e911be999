/**
 * The derivation driver (docs/derive.md): from an agreed L2 head and an L1 head, the payload attributes of every
 * following L2 block up to a target, block by block.
 *
 * `derive()` is an async generator. Each value it yields is one block's attributes; the caller executes them with
 * src/chain and passes the result back through `next(executed)`:
 *
 *     const run = derive(input);
 *     let step = await run.next();
 *     while (!step.done) {
 *       const block = step.value;
 *       let sealed;
 *       try { sealed = await executeBlock({ ..., attributes: block.attributes, transactions: block.transactions }); }
 *       catch (e) { if (!(e instanceof InvalidBlockError)) throw e;
 *         sealed = await executeBlock({ ..., transactions: block.depositOnlyTransactions }); }   // Holocene
 *       step = await run.next({ hash: sealed.blockHash, depositOnly: sealed was the replacement });
 *     }
 *     step.value // { safeHead, reachedTarget }
 *
 * The handshake carries what validation needs of the executed chain: the block hash (the next batch's parent
 * check) and whether the block was replaced by its deposit-only version (then the rest of its span batch and
 * channel are dropped, Holocene "Engine Queue").
 *
 * Pipeline, in order: L1 traversal (anchored in the L1 head, config updates) → retrieval (batcher calldata and
 * blobs of each L1 block) → frame queue → channel assembler → channel reader → batch stage (span batch checks,
 * singular batch checks, empty batches) → attributes. Derivation starts reading L1 at
 * max(origin − channel timeout, genesis L1), `origin` being the agreed head's L1 origin, as kona's and op-node's
 * fault-proof programs do; a start before Holocene is refused.
 */
import {
  type L1ChainConfig,
  OpFork,
  type RollupConfig,
  headerHash,
  isForkActive,
  toHex,
  bytesEqual,
} from "../chain/index.js";
import { type SystemConfig, applyConfigUpdates } from "./attributes/index.js";
import { CriticalDeriveError, DataMissingError, type DroppedInputError } from "./errors.js";
import type { DerivedPayloadAttributes } from "./attributes/builder.js";
import { batcherData, buildBlockAttributes, l2BlockInfo, userDeposits } from "./pipeline/stages.js";
import { BatchSource } from "./pipeline/batch-source.js";
import { BatchStage } from "./pipeline/batch-stage.js";
import type { BlobProvider, L1Provider, L2Provider } from "./providers.js";
import { type L1BlockData, L1Traversal, receiptsOf } from "./traversal/index.js";
import {
  type DerivationConfig,
  type L1BlockRef,
  type L2BlockRef,
  type SingularBatchData,
  derivationConfig,
} from "./types.js";
import type { SafeBlock, SafeChainReader } from "./validation/index.js";

export interface DeriveInput {
  readonly rollupConfig: RollupConfig;
  /** The L1's blob fee schedule; defaults to the built-in one of the rollup's L1 chain id. */
  readonly l1ChainConfig?: L1ChainConfig;
  readonly l1: L1Provider;
  readonly l2: L2Provider;
  readonly blobs: BlobProvider;
  /** Number of the agreed L2 head (the last block both sides agree on). */
  readonly agreedL2Head: bigint;
  /** Its hash, when the caller knows it (the enclave does, from the agreed output root): checked. */
  readonly agreedL2HeadHash?: Uint8Array;
  /** Hash of the L1 head: every L1 block read is an ancestor of it. */
  readonly l1Head: Uint8Array;
  /** Derive up to this L2 block number (inclusive). */
  readonly target: bigint;
  /** Told of every input dropped per the spec (frames, channels, batches). Derivation goes on. */
  readonly onDropped?: (error: DroppedInputError) => void;
}

/** One derived L2 block, ready to execute. */
export interface DerivedBlock {
  readonly number: bigint;
  /** The block it builds on (the safe head before it). */
  readonly parent: L2BlockRef;
  /**
   * src/chain's PayloadAttributes plus the transactions (the L1 info deposit, user deposits on the first block of
   * an epoch, upgrade transactions at a fork's activation, then the batch's), the deposit count, the L1 origin,
   * the sequence number and the L1 info the deposit states.
   */
  readonly attributes: DerivedPayloadAttributes;
  /** `attributes.transactions`, for `executeBlock`. */
  readonly transactions: readonly Uint8Array[];
  /** The Holocene replacement when the block is invalid: the same attributes with only the deposits. */
  readonly depositOnlyTransactions: readonly Uint8Array[];
  /** The L1 origin (epoch) block. */
  readonly l1Origin: L1BlockRef;
  readonly sequenceNumber: bigint;
  /** The batch the block came from (an empty batch when the sequencing window ran out). */
  readonly batch: SingularBatchData;
  /** The L1 block derivation was reading when the batch was accepted. */
  readonly derivedFrom: L1BlockRef;
}

/** What the caller tells the driver about the block it executed. */
export interface ExecutedBlock {
  readonly hash: Uint8Array;
  /** True when the attributes were invalid and the deposit-only version was executed instead. */
  readonly depositOnly: boolean;
}

export interface DeriveResult {
  /** The last derived block (the agreed head when none was). */
  readonly safeHead: L2BlockRef;
  /** False when the L1 head was reached before the target. */
  readonly reachedTarget: boolean;
  /** The L1 block derivation ended on. */
  readonly l1Origin: L1BlockRef;
}

/** Derives the attributes of blocks agreedL2Head+1 .. target (see the module comment for the handshake). */
export async function* derive(
  input: DeriveInput,
): AsyncGenerator<DerivedBlock, DeriveResult, ExecutedBlock | undefined> {
  if (input.target < input.agreedL2Head) {
    throw new CriticalDeriveError("driver", "the target is before the agreed L2 head", {
      target: input.target,
      agreedL2Head: input.agreedL2Head,
    });
  }
  const derivation = await Derivation.open(input);
  return yield* derivation.run(input.target);
}

/** What opens a derivation: derive()'s input without the target, which each run names. */
export type DerivationInput = Omit<DeriveInput, "target">;

/**
 * A derivation that can go on: the pipeline derive() runs, kept between runs so that a caller following a growing
 * L1 chain (the node's safe head) continues where the last run stopped instead of reading the channel-timeout
 * window of L1 again and decoding its channels and span batches again, as op-node's pipeline steps on between L1
 * heads. `run(target)` is derive()'s generator from the current safe head; when it ends at the L1 head,
 * `followL1(newHead)` moves the L1 head on (false on an L1 reorg: open a new derivation). A run that did not finish
 * (a block handed out whose execution was never reported, an error, `return()` on its generator) leaves the
 * derivation unusable (`resumable` false): its stages may hold a batch half consumed.
 */
export class Derivation {
  private safe: L2BlockRef;
  private l2Config: SystemConfig;
  /** The batch stage said the current L1 block is used up: advance L1 before asking it again. */
  private atEof = false;
  private running = false;
  private broken = false;
  private derived = 0;

  private constructor(
    private readonly config: DerivationConfig,
    private readonly input: DerivationInput,
    private readonly traversal: L1Traversal<SystemConfig>,
    private readonly source: BatchSource,
    private readonly stage: BatchStage,
    private readonly chain: SafeChain,
    head: AgreedBlock,
  ) {
    this.safe = head.ref;
    this.l2Config = head.systemConfig;
  }

  /** Opens the pipeline on the agreed L2 head, reading L1 from its origin − channel timeout up to `l1Head`. */
  static async open(input: DerivationInput): Promise<Derivation> {
    const config = derivationConfig(input.rollupConfig, input.l1ChainConfig);
    const { l1, l2 } = input;

    // The agreed head: its L1 origin, sequence number and system config, read from the block itself.
    const head = await l2Block(l2, config, input.agreedL2Head);
    if (input.agreedL2HeadHash !== undefined && !bytesEqual(head.ref.hash, input.agreedL2HeadHash)) {
      throw new CriticalDeriveError("driver", "the L2 provider's agreed head is not the agreed block", {
        number: input.agreedL2Head,
        expected: toHex(input.agreedL2HeadHash),
        actual: toHex(head.ref.hash),
      });
    }

    const originNumber = head.ref.l1Origin.number;
    const start =
      originNumber - config.channelTimeout > config.genesisL1.number
        ? originNumber - config.channelTimeout
        : config.genesisL1.number;
    const traversal = await L1Traversal.open<SystemConfig>(
      l1,
      input.l1Head,
      start,
      head.systemConfig,
      (c, receipts, block) => applyConfigUpdates(c, receipts, config.rollup, block.ref.timestamp),
    );
    const startBlock = traversal.origin;
    if (!isForkActive(config.rollup, OpFork.Holocene, startBlock.ref.timestamp)) {
      throw new CriticalDeriveError(
        "driver",
        "derivation would start before Holocene, which is not supported",
        {
          start: start,
          startTime: startBlock.ref.timestamp,
          holoceneTime: config.rollup.forkTimes[OpFork.Holocene],
        },
      );
    }
    const origin = traversal.block(originNumber);
    if (origin === undefined || !bytesEqual(origin.ref.hash, head.ref.l1Origin.hash)) {
      throw new CriticalDeriveError(
        "driver",
        "the agreed L2 head's L1 origin is not an ancestor of the L1 head",
        {
          l1Origin: originNumber,
          l1OriginHash: toHex(head.ref.l1Origin.hash),
        },
      );
    }

    const chain = new SafeChain(l2, config, head.ref, head.transactions);
    const source = new BatchSource(config, input.onDropped);
    const stage = new BatchStage(config, source, chain, input.onDropped);
    stage.reset(origin.ref);
    const derivation = new Derivation(config, input, traversal, source, stage, chain, head);
    source.setBlock(startBlock.ref, await derivation.retrieve(startBlock));
    return derivation;
  }

  /** The last derived block (the agreed head before the first). */
  get safeHead(): L2BlockRef {
    return this.safe;
  }

  /** The L1 block being read, and the L1 head the derivation is anchored in. */
  get l1Origin(): L1BlockRef {
    return this.traversal.origin.ref;
  }

  get l1Head(): L1BlockRef {
    return this.traversal.head.ref;
  }

  /**
   * Blocks derived since it was opened. Its safe chain keeps every derived block's ref (what validation may ask of
   * any derived block), so a caller that runs it for good opens a new one now and then (the node's tracker does).
   */
  get derivedBlocks(): number {
    return this.derived;
  }

  /** Whether `run` and `followL1` may be called: no run in progress, none abandoned or failed. */
  get resumable(): boolean {
    return !this.running && !this.broken;
  }

  /**
   * Moves the L1 head to `l1Head`, which must descend from the current one (every header on the way checked
   * against its hash). False when it does not: nothing changed, and the caller opens a new derivation.
   */
  async followL1(l1Head: Uint8Array): Promise<boolean> {
    this.assertResumable();
    const epoch = this.safe.l1Origin.number;
    const reading = this.traversal.origin.ref.number;
    return this.traversal.extend(l1Head, epoch < reading ? epoch : reading);
  }

  /** derive()'s generator from the current safe head up to `target` (see the module comment for the handshake). */
  async *run(target: bigint): AsyncGenerator<DerivedBlock, DeriveResult, ExecutedBlock | undefined> {
    this.assertResumable();
    if (target < this.safe.number) {
      throw new CriticalDeriveError("driver", "the target is before the safe head", {
        target,
        safeHead: this.safe.number,
      });
    }
    this.running = true;
    let finished = false;
    try {
      const result = yield* this.steps(target);
      finished = true;
      return result;
    } finally {
      this.running = false;
      if (!finished) this.broken = true;
    }
  }

  private async *steps(
    target: bigint,
  ): AsyncGenerator<DerivedBlock, DeriveResult, ExecutedBlock | undefined> {
    const { config, input, traversal, source, stage, chain } = this;
    while (this.safe.number < target) {
      if (this.atEof) {
        if (!(await traversal.advance()))
          return { safeHead: this.safe, reachedTarget: false, l1Origin: traversal.origin.ref };
        this.atEof = false;
        const block = traversal.origin;
        source.setBlock(block.ref, await this.retrieve(block));
        chain.prune(block.ref.number);
        continue;
      }
      const safe = this.safe;
      const next = await stage.next(safe, traversal.origin.ref);
      if (next.kind === "not-enough-data") continue;
      if (next.kind === "eof") {
        this.atEof = true;
        continue;
      }

      const batch = next.batch;
      const epoch = traversal.block(batch.epochNumber);
      if (epoch === undefined || !bytesEqual(epoch.ref.hash, batch.epochHash)) {
        throw new CriticalDeriveError("driver", "an accepted batch names an L1 origin outside the L1 chain", {
          epochNumber: batch.epochNumber,
        });
      }
      // A new epoch brings its L1 block's user deposits and system config updates (op-node's attributes builder).
      let deposits: Uint8Array[] | undefined;
      if (epoch.ref.number !== safe.l1Origin.number) {
        const receipts = await receiptsOf(input.l1, epoch.ref);
        this.l2Config = applyConfigUpdates(this.l2Config, receipts, config.rollup, epoch.ref.timestamp);
        deposits = userDeposits(config, receipts, epoch.ref.hash);
      }
      const attributes = buildBlockAttributes(config, {
        parent: safe,
        epoch,
        systemConfig: this.l2Config,
        userDeposits: deposits,
        batch,
      });
      const derived: DerivedBlock = {
        number: attributes.number,
        parent: safe,
        attributes,
        transactions: attributes.transactions,
        depositOnlyTransactions: attributes.transactions.slice(0, attributes.depositCount),
        l1Origin: epoch.ref,
        sequenceNumber: attributes.sequenceNumber,
        batch,
        derivedFrom: traversal.origin.ref,
      };
      const executed = yield derived;
      if (executed === undefined || !(executed.hash instanceof Uint8Array) || executed.hash.length !== 32) {
        throw new CriticalDeriveError(
          "driver",
          "next() must be given the executed block ({ hash, depositOnly })",
          {
            number: derived.number,
          },
        );
      }
      this.safe = {
        number: derived.number,
        hash: executed.hash,
        parentHash: safe.hash,
        timestamp: batch.timestamp,
        l1Origin: { number: epoch.ref.number, hash: epoch.ref.hash },
        sequenceNumber: attributes.sequenceNumber,
      };
      this.derived++;
      chain.add({
        ref: this.safe,
        transactions: executed.depositOnly ? derived.depositOnlyTransactions : derived.transactions,
      });
      if (executed.depositOnly) stage.flush();
    }
    return { safeHead: this.safe, reachedTarget: true, l1Origin: traversal.origin.ref };
  }

  private retrieve(block: L1BlockData): Promise<readonly Uint8Array[]> {
    const { config, input, traversal } = this;
    return batcherData(config, block, traversal.systemConfig, input.l1, input.blobs, input.onDropped);
  }

  private assertResumable(): void {
    if (this.running) throw new CriticalDeriveError("driver", "a run of this derivation is in progress", {});
    if (this.broken) {
      throw new CriticalDeriveError("driver", "a run of this derivation did not finish: open a new one", {
        safeHead: this.safe.number,
      });
    }
  }
}

/** An L2 block of the agreed chain with what derivation reads from it. */
interface AgreedBlock {
  readonly ref: L2BlockRef;
  readonly transactions: readonly Uint8Array[];
  readonly systemConfig: SystemConfig;
}

async function l2Block(l2: L2Provider, config: DerivationConfig, number: bigint): Promise<AgreedBlock> {
  const block = await l2.blockByNumber(number);
  if (block === undefined) throw new DataMissingError("driver", "L2 block not available", { number });
  const hash = headerHash(block.header);
  if (!bytesEqual(hash, block.hash) || block.header.number !== number) {
    throw new CriticalDeriveError("driver", "the L2 provider's block does not match its hash or number", {
      number,
      hash: toHex(block.hash),
    });
  }
  const info = l2BlockInfo(config, block);
  return { ref: info.ref, transactions: block.transactions, systemConfig: info.systemConfig };
}

/**
 * The safe chain as validation reads it: blocks derived in this run (their refs always, their transactions
 * while a span batch could still overlap them), then the L2 provider for the agreed chain.
 */
class SafeChain implements SafeChainReader {
  private readonly refs = new Map<bigint, L2BlockRef>();
  private readonly blocks = new Map<bigint, SafeBlock>();

  constructor(
    private readonly l2: L2Provider,
    private readonly config: DerivationConfig,
    private readonly head: L2BlockRef,
    headTransactions: readonly Uint8Array[],
  ) {
    this.add({ ref: head, transactions: headTransactions });
  }

  add(block: SafeBlock): void {
    this.refs.set(block.ref.number, block.ref);
    this.blocks.set(block.ref.number, block);
  }

  /**
   * Forgets the transactions of blocks no span batch read at L1 block `origin` or later can overlap: an
   * overlapped block's L1 origin is at least the span's start epoch − 1, which is at least
   * inclusion − sequencing window − 1.
   */
  prune(origin: bigint): void {
    const bound = origin - this.config.seqWindowSize - 2n;
    for (const [n, b] of this.blocks) if (b.ref.l1Origin.number < bound) this.blocks.delete(n);
  }

  async blockRef(number: bigint): Promise<L2BlockRef> {
    const ref = this.refs.get(number);
    if (ref !== undefined) return ref;
    return (await this.agreed(number)).ref;
  }

  async block(number: bigint): Promise<SafeBlock> {
    const block = this.blocks.get(number);
    if (block !== undefined) return block;
    if (number > this.head.number) {
      throw new CriticalDeriveError("driver", "a derived block's transactions were pruned but are needed", {
        number,
      });
    }
    return this.agreed(number);
  }

  private async agreed(number: bigint): Promise<AgreedBlock> {
    if (number > this.head.number) {
      throw new CriticalDeriveError("driver", "asked for an L2 block past the safe head", { number });
    }
    return l2Block(this.l2, this.config, number);
  }
}
