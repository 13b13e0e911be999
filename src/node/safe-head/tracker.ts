/**
 * The node's derived safe and finalized heads (docs/node/l1.md "Safe and finalized heads").
 *
 * Whenever the L1 head changes, the tracker runs src/derive's derivation from its current safe head up to the
 * node's sealed head, anchored in that L1 head. The derivation is kept between rounds and follows the L1 head (as
 * op-node's pipeline does): a round continues where the last one stopped, reading only the new L1 blocks, instead of
 * reading the channel-timeout window of L1 again and decoding its channels and span batches again. It is opened
 * afresh from the safe head after an L1 reorg, a reorged safe head, an error, an unfinished round, and every
 * MAX_BLOCKS_PER_DERIVATION blocks. Each yielded block's attributes are executed against the parent's
 * state in the node's store (src/chain's executeBlock; nothing is written to the store) and the resulting hash is
 * compared with the block the node sealed at that height: equal, the safe head advances; different, a loud error
 * names the first differing field and the safe head stops there for good (until a restart). An invalid payload is
 * replaced by its deposit-only version, as the driver's handshake says (Holocene).
 *
 * Finality follows op-node's finalizer: every safe block remembers the L1 block it was derived from (the L1 block
 * derivation was reading when its batch was accepted); the finalized head is the newest safe block derived from an
 * L1 block at or below the L1's `finalized` block. It is persisted in the store's meta table, and a restart
 * derives again from it (from genesis the first time).
 */
import { type L1ChainConfig, type RollupConfig, bytesEqual, executeBlock, toHex } from "../../chain/index.js";
import {
  type BlobProvider,
  type DerivedBlock,
  type ExecutedBlock,
  type L1BlockRef,
  type L1Provider,
  type L2BlockRef,
  Derivation,
  decodeL1InfoDeposit,
  executeDerivedBlock,
} from "../../derive/index.js";
import { SuiteError, type ErrorDetails } from "../../errors/index.js";
import type { Logger } from "../../log/index.js";
import { PollLoop } from "../../service-kit/index.js";
import type { BlockStore, StoredBlock } from "../store/block-store.js";
import { firstDifference } from "./compare.js";
import { DerivedBlockMismatchError, SafeHeadInconsistencyError } from "./errors.js";
import type { L1HeadSource, L1Heads } from "./l1.js";
import { StoreL2Provider } from "./store-l2.js";

/**
 * Blocks one derivation derives before the tracker opens a new one from the safe head: its safe chain keeps a ref per
 * derived block (about 200 bytes), so a derivation kept for good would grow without bound; this caps it near 2 MB at
 * the cost of reading the channel-timeout window once more every 10 000 blocks.
 */
export const MAX_BLOCKS_PER_DERIVATION = 10_000;

/** The store meta key holding the last finalized head, `{"number":"…","hash":"0x…"}`. */
export const FINALIZED_META_KEY = "derivedFinalizedHead";

export interface SafeHeadTrackerOptions {
  /** The chain's rollup config, with its genesis anchors: the one the sequencer builds with. */
  readonly rollupConfig: RollupConfig;
  /** The L1's blob fee schedule (a dev L1 passes its own; see derivationConfig). */
  readonly l1ChainConfig?: L1ChainConfig;
  /** The node's store: its sealed blocks, and the state derived blocks are executed against. */
  readonly store: BlockStore;
  readonly l1: L1Provider;
  readonly l1Heads: L1HeadSource;
  readonly blobs: BlobProvider;
  /** The number of the node's newest sealed block: derivation never goes past it. */
  readonly sealedHead: () => bigint;
  readonly logger: Logger;
  /** How often the L1 head is polled; default 1000 ms. */
  readonly pollIntervalMs?: number;
}

/** One derivation round: from the safe head, anchored in one L1 head. */
export interface DerivationRound {
  readonly l1Head: L1BlockRef;
  /** Safe head before and after the round. */
  readonly from: bigint;
  readonly to: bigint;
  /** The sealed head the round derived towards. */
  readonly target: bigint;
  readonly blocks: number;
  /** Wall time of the round, derivation and execution included. */
  readonly ms: number;
  readonly reachedTarget: boolean;
  /** True when the round continued the previous round's derivation; false when it opened one from the safe head. */
  readonly continued: boolean;
}

/** The last error the tracker met (data missing, an L1 endpoint down, a mismatch). */
export interface TrackerError {
  readonly message: string;
  /** The error's class and kind, when it is one of the project's errors. */
  readonly name: string;
  readonly kind: string | undefined;
  readonly details: ErrorDetails | undefined;
  readonly at: Date;
}

export interface DerivationStatus {
  /** The L1 blocks seen at the last poll. */
  readonly l1Head: L1BlockRef | undefined;
  readonly l1Safe: L1BlockRef | undefined;
  readonly l1Finalized: L1BlockRef | undefined;
  /** The L1 block the last round ended on (op-node's `current_l1`). */
  readonly currentL1: L1BlockRef | undefined;
  readonly safe: L2BlockRef;
  readonly finalized: L2BlockRef;
  /** Set once a derived block differed from the sealed one: the safe head will not move again. */
  readonly halted: DerivedBlockMismatchError | undefined;
  readonly lastError: TrackerError | undefined;
  readonly lastRound: DerivationRound | undefined;
}

/** The derived heads as the node's tag resolution reads them. */
export interface DerivedHeadNumbers {
  safe(): bigint;
  finalized(): bigint;
}

export type SafeHeadListener = (heads: { safe: L2BlockRef; finalized: L2BlockRef }) => void;

interface SafeRecord {
  readonly ref: L2BlockRef;
  readonly derivedFrom: L1BlockRef;
}

/** The ref derivation would read from a sealed block (its L1 info deposit names the origin). */
function l2RefOf(block: StoredBlock, genesis: RollupConfig["genesis"]): L2BlockRef {
  const h = block.header;
  if (genesis !== undefined && h.number === genesis.l2.number) {
    return {
      number: h.number,
      hash: block.hash,
      parentHash: h.parentHash,
      timestamp: h.timestamp,
      l1Origin: genesis.l1,
      sequenceNumber: 0n,
    };
  }
  const first = block.transactions[0];
  if (first === undefined) {
    throw new SafeHeadInconsistencyError("a sealed block has no L1 info deposit", { number: h.number });
  }
  const info = decodeL1InfoDeposit(first);
  return {
    number: h.number,
    hash: block.hash,
    parentHash: h.parentHash,
    timestamp: h.timestamp,
    l1Origin: { number: info.number, hash: info.blockHash },
    sequenceNumber: info.sequenceNumber,
  };
}

function describe(error: unknown): TrackerError {
  if (error instanceof SuiteError) {
    return {
      message: error.message,
      name: error.name,
      kind: error.kind,
      details: error.details,
      at: new Date(),
    };
  }
  const e = error instanceof Error ? error : new Error(String(error));
  return { message: e.message, name: e.name, kind: undefined, details: undefined, at: new Date() };
}

function refJson(ref: L2BlockRef | L1BlockRef): { number: string; hash: string } {
  return { number: ref.number.toString(), hash: toHex(ref.hash) };
}

export class SafeHeadTracker {
  private safeRef: L2BlockRef;
  private finalizedRef: L2BlockRef;
  /** Safe blocks above the finalized head, oldest first, with the L1 block each was derived from. */
  private records: SafeRecord[] = [];
  private heads: L1Heads | undefined;
  private currentL1: L1BlockRef | undefined;
  private lastHeadHash: Uint8Array | undefined;
  private needRound = true;
  private halted: DerivedBlockMismatchError | undefined;
  /** The L1 block the mismatching block's batch was read from: the halt holds while it stays canonical. */
  private haltedFrom: L1BlockRef | undefined;
  private lastError: TrackerError | undefined;
  private lastRound: DerivationRound | undefined;
  private readonly listeners = new Set<SafeHeadListener>();
  private readonly l2: StoreL2Provider;
  private readonly polling: PollLoop;
  /** The last round's derivation, continued by the next round when it can be. */
  private derivation: Derivation | undefined;

  /**
   * Reads the starting point from the store: the finalized head it persisted, else the rollup config's L2
   * genesis (which must be the store's block at that height). Throws SafeHeadInconsistencyError otherwise.
   */
  constructor(private readonly opts: SafeHeadTrackerOptions) {
    const genesis = opts.rollupConfig.genesis;
    if (genesis === undefined) {
      throw new SafeHeadInconsistencyError("the rollup config has no genesis anchors", {});
    }
    const genesisBlock = opts.store.blockByNumber(genesis.l2.number);
    if (genesisBlock === undefined || !bytesEqual(genesisBlock.hash, genesis.l2.hash)) {
      throw new SafeHeadInconsistencyError("the store's L2 genesis is not the rollup config's", {
        number: genesis.l2.number,
        expected: toHex(genesis.l2.hash),
        actual: genesisBlock === undefined ? undefined : toHex(genesisBlock.hash),
      });
    }
    let start = l2RefOf(genesisBlock, genesis);
    const saved = opts.store.getMeta(FINALIZED_META_KEY);
    if (saved !== undefined) {
      const { number, hash } = JSON.parse(saved) as { number: string; hash: string };
      const block = opts.store.blockByNumber(BigInt(number));
      if (block !== undefined && toHex(block.hash) === hash && block.header.number > start.number) {
        start = l2RefOf(block, genesis);
      } else if (block === undefined || toHex(block.hash) !== hash) {
        opts.logger.warn(
          { saved },
          "the persisted finalized head is not in the store; deriving from genesis",
        );
      }
    }
    this.safeRef = start;
    this.finalizedRef = start;
    this.l2 = new StoreL2Provider(opts.store, () => this.safeRef.number);
    this.polling = new PollLoop(() => this.poll(), opts.pollIntervalMs ?? 1000);
  }

  /** The newest L2 block derived from L1 and equal to the sealed one. */
  get safe(): L2BlockRef {
    return this.safeRef;
  }

  /** The newest safe block derived from L1 blocks at or below the L1's finalized block. */
  get finalized(): L2BlockRef {
    return this.finalizedRef;
  }

  get status(): DerivationStatus {
    return {
      l1Head: this.heads?.head,
      l1Safe: this.heads?.safe,
      l1Finalized: this.heads?.finalized,
      currentL1: this.currentL1,
      safe: this.safeRef,
      finalized: this.finalizedRef,
      halted: this.halted,
      lastError: this.lastError,
      lastRound: this.lastRound,
    };
  }

  /** The heads as numbers, for the node's `safe` / `finalized` tags. */
  numbers(): DerivedHeadNumbers {
    return { safe: () => this.safeRef.number, finalized: () => this.finalizedRef.number };
  }

  /** Called after every change of the safe or finalized head; returns the unsubscribe function. */
  onChange(listener: SafeHeadListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.polling.start();
  }

  /** Stops polling; a round in progress stops before its next block. */
  async stop(): Promise<void> {
    await this.polling.stop();
  }

  /** One poll: the L1 heads, an L1 reorg check, a derivation round when due, finality. Exposed for tests. */
  async poll(): Promise<void> {
    try {
      const heads = await this.opts.l1Heads.read();
      this.heads = heads;
      await this.dropReorged();
      await this.liftHaltIfReorged();
      if (this.lastHeadHash === undefined || !bytesEqual(this.lastHeadHash, heads.head.hash)) {
        this.needRound = true;
      }
      if (this.needRound && this.halted === undefined) {
        if (this.opts.sealedHead() > this.safeRef.number) {
          const reachedTarget = await this.round(heads.head);
          // Reached the target: the sealed head may have grown meanwhile, so go again on the next poll.
          this.needRound = reachedTarget;
        } else {
          // Everything sealed is safe: there is nothing in this L1 head left to derive.
          this.currentL1 = heads.head;
        }
      }
      this.lastHeadHash = heads.head.hash;
      this.finalize(heads.finalized);
      if (this.halted === undefined) this.lastError = undefined;
    } catch (error) {
      this.needRound = true;
      this.derivation = undefined;
      this.lastError = describe(error);
      this.opts.logger.warn(
        { err: error, safe: Number(this.safeRef.number) },
        "deriving the safe head failed; retrying on the next poll",
      );
    }
  }

  /**
   * Derives from the safe head to the sealed head over `l1Head`, advancing block by block. Returns whether the
   * target was reached (false: L1 ran out, a mismatch halted it, or the tracker stopped).
   */
  private async round(l1Head: L1BlockRef): Promise<boolean> {
    const t0 = performance.now();
    const from = this.safeRef;
    const target = this.opts.sealedHead();
    const { logger } = this.opts;
    const { derivation, continued } = await this.derivationFrom(from, l1Head);
    const run = derivation.run(target);
    let blocks = 0;
    let reachedTarget = false;
    const finish = () => {
      const ms = performance.now() - t0;
      this.lastRound = {
        l1Head,
        from: from.number,
        to: this.safeRef.number,
        target,
        blocks,
        ms,
        reachedTarget,
        continued,
      };
      const fields = {
        l1Head: Number(l1Head.number),
        from: Number(from.number),
        safe: Number(this.safeRef.number),
        target: Number(target),
        blocks,
        ms: Math.round(ms),
        continued,
      };
      if (blocks > 0) logger.info(fields, "safe head advanced");
      else logger.debug(fields, "derivation round: no new safe block");
    };
    try {
      let step = await run.next();
      while (!step.done) {
        if (this.polling.stopping) return false;
        const block = step.value;
        let executed: ExecutedBlock;
        try {
          executed = await this.check(block);
        } catch (error) {
          if (!(error instanceof DerivedBlockMismatchError)) throw error;
          this.halt(error, block.derivedFrom);
          return false;
        }
        this.advance(block, executed.hash);
        blocks++;
        // Derivation shares the event loop with the 200 ms flashblocks loop and the RPC server.
        await new Promise<void>((resolve) => setImmediate(resolve));
        step = await run.next(executed);
      }
      this.currentL1 = step.value.l1Origin;
      reachedTarget = step.value.reachedTarget;
      return reachedTarget;
    } finally {
      finish();
    }
  }

  /**
   * The derivation a round runs: the previous round's when it finished, ended on the safe head `from` and its L1
   * head moves on to `l1Head`; otherwise a new one opened on `from` (the only one kept from then on).
   */
  private async derivationFrom(
    from: L2BlockRef,
    l1Head: L1BlockRef,
  ): Promise<{ derivation: Derivation; continued: boolean }> {
    const kept = this.derivation;
    this.derivation = undefined;
    if (
      kept !== undefined &&
      kept.resumable &&
      kept.derivedBlocks < MAX_BLOCKS_PER_DERIVATION &&
      kept.safeHead.number === from.number &&
      bytesEqual(kept.safeHead.hash, from.hash) &&
      (await kept.followL1(l1Head.hash))
    ) {
      this.derivation = kept;
      return { derivation: kept, continued: true };
    }
    const { logger } = this.opts;
    const opened = await Derivation.open({
      rollupConfig: this.opts.rollupConfig,
      ...(this.opts.l1ChainConfig === undefined ? {} : { l1ChainConfig: this.opts.l1ChainConfig }),
      l1: this.opts.l1,
      l2: this.l2,
      blobs: this.opts.blobs,
      agreedL2Head: from.number,
      agreedL2HeadHash: from.hash,
      l1Head: l1Head.hash,
      onDropped: (e) =>
        logger.debug({ reason: e.details.reason, stage: e.stage }, `derivation dropped: ${e.message}`),
    });
    this.derivation = opened;
    return { derivation: opened, continued: false };
  }

  /** Executes a derived block over the store and compares it with the sealed block of the same height. */
  private async check(block: DerivedBlock): Promise<ExecutedBlock> {
    const { store, rollupConfig: config } = this.opts;
    const sealed = store.blockByNumber(block.number);
    const parent = store.blockByNumber(block.number - 1n);
    if (sealed === undefined || parent === undefined) {
      throw new SafeHeadInconsistencyError("derivation produced a block the store does not have", {
        number: block.number,
      });
    }
    if (!bytesEqual(parent.hash, block.parent.hash)) {
      throw new SafeHeadInconsistencyError("the derived block's parent is not the sealed parent", {
        number: block.number,
        parent: toHex(parent.hash),
        derivedParent: toHex(block.parent.hash),
      });
    }
    const { sealed: result, depositOnly } = await executeDerivedBlock(
      block,
      (transactions) =>
        executeBlock({
          config,
          parent: parent.header,
          attributes: block.attributes,
          transactions,
          source: store,
          // The written nodes are dropped: no lookup in the store for each (PreimageTrieDBOptions).
          keepEveryWrite: true,
        }),
      (error) =>
        this.opts.logger.warn(
          { number: Number(block.number), transactionIndex: error.transactionIndex, reason: error.message },
          "derived payload is invalid; executing its deposit-only replacement (Holocene)",
        ),
    );
    if (!bytesEqual(result.blockHash, sealed.hash)) {
      const difference = firstDifference(sealed, {
        header: result.header,
        transactions: result.transactions,
      }) ?? {
        field: "hash",
        sealed: toHex(sealed.hash),
        derived: toHex(result.blockHash),
      };
      throw new DerivedBlockMismatchError({
        number: block.number,
        sealedHash: toHex(sealed.hash),
        derivedHash: toHex(result.blockHash),
        difference,
        depositOnly,
      });
    }
    return { hash: result.blockHash, depositOnly };
  }

  private advance(block: DerivedBlock, hash: Uint8Array): void {
    const ref: L2BlockRef = {
      number: block.number,
      hash,
      parentHash: block.parent.hash,
      timestamp: block.attributes.timestamp,
      l1Origin: { number: block.l1Origin.number, hash: block.l1Origin.hash },
      sequenceNumber: block.sequenceNumber,
    };
    this.safeRef = ref;
    this.records.push({ ref, derivedFrom: block.derivedFrom });
    // current_l1 never trails the L1 block the safe head was derived from, also in the middle of a round: a reader
    // that proves the safe head from L1 up to current_l1 (the proposer) must find its batch there.
    if (this.currentL1 === undefined || block.derivedFrom.number > this.currentL1.number) {
      this.currentL1 = block.derivedFrom;
    }
    // Finality may move at once when the block came from an L1 block that is already final.
    if (!this.finalize(this.heads?.finalized)) this.emit();
  }

  private halt(error: DerivedBlockMismatchError, derivedFrom: L1BlockRef): void {
    this.halted = error;
    this.derivation = undefined;
    this.haltedFrom = derivedFrom;
    this.lastError = describe(error);
    this.opts.logger.error(
      { ...error.details, safe: Number(this.safeRef.number) },
      `derived block differs from the sealed block: the safe head stops at ${this.safeRef.number}`,
    );
  }

  /**
   * A halt holds while the L1 block the mismatching batch came from is canonical: the same L1 derives the same
   * block. Once an L1 reorg removes that block, derivation runs again from the safe head over the new L1.
   */
  private async liftHaltIfReorged(): Promise<void> {
    const from = this.haltedFrom;
    if (this.halted === undefined || from === undefined) return;
    const canonical = await this.opts.l1Heads.canonicalHash(from.number);
    if (canonical !== undefined && bytesEqual(canonical, from.hash)) return;
    this.opts.logger.warn(
      { number: Number(this.halted.number), l1Block: Number(from.number), safe: Number(this.safeRef.number) },
      "the L1 block the mismatching batch came from was reorged out: deriving again",
    );
    this.halted = undefined;
    this.haltedFrom = undefined;
    this.lastError = undefined;
    this.needRound = true;
  }

  /**
   * An L1 reorg may have removed the L1 blocks safe blocks were derived from: those blocks are no longer safe
   * (they will be derived again from the new L1 chain, if its batches hold them). Finalized ones cannot be.
   */
  private async dropReorged(): Promise<void> {
    let dropped = false;
    while (this.records.length > 0) {
      const last = this.records[this.records.length - 1]!;
      const canonical = await this.opts.l1Heads.canonicalHash(last.derivedFrom.number);
      if (canonical !== undefined && bytesEqual(canonical, last.derivedFrom.hash)) break;
      this.records.pop();
      dropped = true;
    }
    if (!dropped) return;
    const before = this.safeRef.number;
    this.safeRef = this.records.length > 0 ? this.records[this.records.length - 1]!.ref : this.finalizedRef;
    this.needRound = true;
    this.opts.logger.warn(
      { from: Number(before), to: Number(this.safeRef.number) },
      "L1 reorg: the safe head moved back to the last block derived from canonical L1",
    );
    this.emit();
  }

  /** Moves the finalized head up to what `l1Finalized` makes final; true (and listeners told) when it moved. */
  private finalize(l1Finalized: L1BlockRef | undefined): boolean {
    if (l1Finalized === undefined) return false;
    let index = -1;
    for (let i = 0; i < this.records.length; i++) {
      if (this.records[i]!.derivedFrom.number <= l1Finalized.number) index = i;
      else break;
    }
    if (index < 0) return false;
    this.finalizedRef = this.records[index]!.ref;
    this.records = this.records.slice(index + 1);
    this.opts.store.setMeta(FINALIZED_META_KEY, JSON.stringify(refJson(this.finalizedRef)));
    this.emit();
    return true;
  }

  private emit(): void {
    const heads = { safe: this.safeRef, finalized: this.finalizedRef };
    for (const listener of this.listeners) {
      try {
        listener(heads);
      } catch (error) {
        this.opts.logger.warn({ err: error }, "a safe head listener threw");
      }
    }
  }
}
