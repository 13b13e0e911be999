/**
 * The dev chain's sequencer. For each block: start a BlockBuilder on the head, add the deposits
 * (the L1 attributes deposit first), publish snapshot 0 (deposits only); then every
 * `flashblockIntervalMs` add pool transactions in fee order and publish the next snapshot; at the end
 * of the block time seal exactly what the last snapshot showed and commit it to the store in one
 * transaction.
 *
 * Standalone (`origins` synthetic), the L1 origin is synthetic and a block's timestamp is the wall clock's. In L1
 * mode (`origins` from L1, docs/node/l1.md "L1 mode") the planner gives each block its timestamp (parent + block
 * time), L1 origin, attributes and deposits; the block is built during the block time before its
 * timestamp and sealed at it, at once when the chain is behind the clock (catching up).
 *
 * A snapshot is the node's pending view (header with a real state root and hash, receipts, a state
 * view over the snapshot's state root) and one flashblocks message.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  bigIntToWord,
  BlockBuilder,
  concatBytes,
  DEV_GAS_LIMIT,
  fromHex,
  InvalidTransactionEncodingError,
  l1InfoDeposit,
  l1InfoOfFirstTransaction,
  PREDEPLOY,
  type RollupConfig,
  syntheticL1Origin,
  toHexRaw,
  TransactionRejectedError,
} from "../chain/index.js";
import type { Logger } from "../log/index.js";
import {
  type BlockInProgress,
  beginBlock,
  commitSealedInSteps,
  takeSnapshot,
  touch,
  yieldToIo,
} from "./block-in-progress.js";
import { HeadHolder } from "./block-producer.js";
import { DepositRejectedError } from "./l1/errors.js";
import type { BlockPlan, L1BlockPlanner } from "./l1/planner.js";
import { type PooledTransaction, TxPool } from "./pool.js";
import type { BlockStore } from "./store/block-store.js";
import { ReadRecorder } from "./witness-record.js";

/** The sequencer's L1 origins: synthetic (standalone), or real ones planned from L1 (L1 mode). */
export type SequencerOrigins =
  { readonly kind: "synthetic" } | { readonly kind: "l1"; readonly planner: L1BlockPlanner };

export interface SequencerOptions {
  config: RollupConfig;
  store: BlockStore;
  blockTimeMs: number;
  flashblockIntervalMs: number;
  logger: Logger;
  /** Where each block's L1 origin comes from (and with it its timestamp, attributes and deposits). */
  origins: SequencerOrigins;
  /** Called when block production fails (the process should exit: the node can no longer make blocks). */
  onFatal?: (err: unknown) => void;
  /**
   * How many of the latest blocks keep the witness record of what their building read (src/node/witness-record.ts);
   * 0: none is recorded.
   */
  witnessWindow: number;
}

/** A transaction the sequencer could not include and dropped from the pool. */
export interface DroppedTransaction {
  hashHex: string;
  reason: string;
}

const MAX_TXS_PER_TICK = 5_000;
const MAX_DROPPED_REMEMBERED = 1_000;
/** While filling a flashblock, the event loop (admission, RPC, websocket) runs at least this often. */
const YIELD_EVERY_MS = 10;

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

export class Sequencer extends HeadHolder {
  readonly pool: TxPool;
  private stopped = false;
  private wake: (() => void) | undefined;
  private interruptWaiters: (() => void)[] = [];
  private loopDone: Promise<void> | undefined;
  readonly dropped = new Map<string, string>();
  /** Milliseconds kept free before a flashblock's tick for taking its snapshot (see publish). */
  private snapshotReserveMs = 10;

  constructor(private readonly opts: SequencerOptions) {
    super(opts.store);
    this.pool = new TxPool(opts.store);
  }

  start(): void {
    if (this.loopDone !== undefined) return;
    this.loopDone = this.loop().catch((err: unknown) => {
      this.opts.logger.fatal({ err }, "sequencer stopped on an error");
      this.opts.onFatal?.(err);
    });
  }

  /** Stops after sealing the block in progress (what was pre-confirmed is kept). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    for (const w of this.interruptWaiters.splice(0)) w();
    await this.loopDone?.catch(() => undefined);
  }

  private sleepUntil(t: number): Promise<void> {
    const ms = t - now();
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /** Resolves when stop() is called. */
  private interrupted(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.interruptWaiters.push(resolve));
  }

  private async loop(): Promise<void> {
    const { blockTimeMs, flashblockIntervalMs, origins } = this.opts;
    const ticks = Math.max(1, Math.floor(blockTimeMs / flashblockIntervalMs));
    while (!this.stopped) {
      if (origins.kind === "l1") {
        const plan = await origins.planner.plan(
          this.head,
          (ms) => this.sleepUntil(ms),
          () => this.stopped,
          () => this.interrupted(),
        );
        if (plan === undefined) break;
        await this.buildPlanned(plan);
        continue;
      }
      const t0 = now();
      const ctx = await this.startBlock(this.standalonePlan());
      for (let i = 1; i <= ticks && !this.stopped; i++) {
        const at = t0 + i * flashblockIntervalMs;
        await this.fillUntil(ctx, at);
        await this.sleepUntil(at);
        // Stopping: what was executed since the last snapshot is published, so the seal matches the stream.
        if (this.stopped && ctx.unpublished.length === 0) break;
        await this.publish(ctx, i);
      }
      await this.seal(ctx);
      // When a full tick budget was used, wait for the block time to pass.
      if (!this.stopped) await this.sleepUntil(t0 + blockTimeMs);
    }
  }

  /**
   * L1 mode: a flashblock every interval until the block's timestamp, then the seal. A block whose timestamp
   * has passed (the chain is catching up with the clock) gets one flashblock and is sealed at once; past the
   * sequencer drift (`noTxPool`) its flashblocks carry no pool transactions.
   */
  private async buildPlanned(plan: BlockPlan): Promise<void> {
    const t0 = now();
    const ctx = await this.startBlock(plan);
    for (let i = 1; !this.stopped; i++) {
      const at = Math.min(t0 + i * this.opts.flashblockIntervalMs, plan.sealAtMs);
      const before = ctx.included;
      if (!plan.noTxPool) await this.fillUntil(ctx, at);
      await this.sleepUntil(at);
      if (this.stopped && ctx.unpublished.length === 0) break;
      const last = at >= plan.sealAtMs;
      // Catching up (sealed at its first tick), a block the pool added nothing to keeps snapshot 0 as its last.
      if (!(last && i === 1 && ctx.included === before)) await this.publish(ctx, i);
      if (last) break;
    }
    await this.seal(ctx);
  }

  /** Standalone: the wall clock's timestamp and the synthetic L1 origin (src/chain/dev-chain/l1-info.ts). */
  private standalonePlan(): BlockPlan {
    const { config } = this.opts;
    const parent = this.head;
    const nowSeconds = BigInt(Math.floor(Date.now() / 1000));
    const timestamp = nowSeconds > parent.header.timestamp ? nowSeconds : parent.header.timestamp + 1n;
    const origin = syntheticL1Origin(config.genesisL2Time, timestamp);
    const prev = l1InfoOfFirstTransaction(parent.transactions[0]);
    const seq = prev !== undefined && prev.number === origin.number ? prev.sequenceNumber + 1n : 0n;
    return {
      timestamp,
      attributes: {
        timestamp,
        prevRandao: keccak_256(concatBytes(origin.hash, bigIntToWord(seq))),
        suggestedFeeRecipient: fromHex(PREDEPLOY.SequencerFeeVault),
        parentBeaconBlockRoot: origin.beaconRoot,
        gasLimit: DEV_GAS_LIMIT,
        eip1559Params: new Uint8Array(8),
      },
      deposits: [l1InfoDeposit(origin, seq)],
      noTxPool: false,
      sealAtMs: Number(timestamp) * 1000,
      l1Origin: { number: origin.number, hash: origin.hash },
      sequenceNumber: seq,
    };
  }

  private async startBlock(plan: BlockPlan): Promise<BlockContext> {
    const started = now();
    const { config, store } = this.opts;
    const parent = this.head;
    const timestamp = plan.timestamp;
    const recorder = this.opts.witnessWindow > 0 ? new ReadRecorder(store) : undefined;
    const builder = await BlockBuilder.start({
      config,
      parent: parent.header,
      attributes: plan.attributes,
      source: recorder ?? store,
      // The store inserts the written nodes OR IGNOREs them: no lookup for each (PreimageTrieDBOptions).
      keepEveryWrite: true,
    });
    const ctx: BlockContext = {
      ...beginBlock(store, builder, parent, this.headView, timestamp),
      nonces: new Map(),
      included: 0,
      unpublished: [],
      recorder,
    };
    for (let i = 0; i < plan.deposits.length; i++) {
      const deposit = await builder.addTransaction(plan.deposits[i]!);
      if (!deposit.ok)
        throw new DepositRejectedError(
          `deposit ${i} of block ${parent.header.number + 1n} rejected: ${deposit.error.message}`,
          { block: parent.header.number + 1n, index: i },
          deposit.error,
        );
      if (i > 0) touch(ctx, deposit.details); // the L1 info deposit moves no ether
    }
    await this.publish(ctx, 0);
    ctx.startMs = now() - started;
    ctx.planMs = plan.planMs;
    return ctx;
  }

  private nonceIn(ctx: BlockContext, senderHex: string, sender: Uint8Array): bigint {
    let n = ctx.nonces.get(senderHex);
    if (n === undefined) {
      n = ctx.view.nonce(sender);
      ctx.nonces.set(senderHex, n);
    }
    return n;
  }

  private drop(tx: PooledTransaction, reason: string): void {
    this.pool.discard(tx.hashHex);
    this.dropped.set(tx.hashHex, reason);
    if (this.dropped.size > MAX_DROPPED_REMEMBERED) {
      const oldest = this.dropped.keys().next().value;
      if (oldest !== undefined) this.dropped.delete(oldest);
    }
    this.opts.logger.info({ tx: `0x${tx.hashHex}`, reason }, "transaction dropped by the sequencer");
  }

  /**
   * Adds pool transactions to the block until the flashblock due at `at` must be snapshotted: as they arrive
   * (waiting on the pool between them), stopping the snapshot's own duration before `at` so the flashblock goes
   * out on time however long the pool's backlog is. A tick already due (the chain catching up with the clock)
   * gets a quarter of an interval.
   */
  private async fillUntil(ctx: BlockContext, at: number): Promise<void> {
    const started = now();
    const interval = this.opts.flashblockIntervalMs;
    // The snapshot's reserve is capped at half an interval: a slow snapshot (a loaded machine) costs cadence, never
    // all of the block's execution time.
    const reserve = Math.min(this.snapshotReserveMs * 1.25 + 2, interval / 2);
    const deadline = at > started ? at - reserve : started + interval / 4;
    let added = 0;
    while (!this.stopped && added < MAX_TXS_PER_TICK && now() < deadline) {
      const more = await this.addFromPool(ctx, deadline, MAX_TXS_PER_TICK - added);
      added += more;
      if (now() >= deadline || this.stopped) break;
      if (more === 0) await this.waitForPool(deadline);
      else await yieldToIo();
    }
  }

  /** Resolves when a transaction enters the pool, at `deadline`, or on stop(). */
  private waitForPool(deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        unsubscribe();
        const i = this.interruptWaiters.indexOf(finish);
        if (i >= 0) this.interruptWaiters.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(finish, Math.max(0, deadline - now()));
      const unsubscribe = this.pool.onAdded(finish);
      this.interruptWaiters.push(finish);
    });
  }

  /**
   * Adds the pool's best executable transactions until none is left, `max` were added or `deadline` passed,
   * letting the event loop run (admission, RPC) every YIELD_EVERY_MS; how many were added.
   */
  private async addFromPool(ctx: BlockContext, deadline: number, max: number): Promise<number> {
    const skip = new Set<string>();
    const baseFee = ctx.builder.baseFee;
    let yieldAt = now() + YIELD_EVERY_MS;
    let added = 0;
    while (added < max) {
      const t = now();
      if (t >= deadline) break;
      if (t >= yieldAt) {
        await yieldToIo();
        yieldAt = now() + YIELD_EVERY_MS;
        continue;
      }
      const tx = this.pool.best(baseFee, (h, s) => this.nonceIn(ctx, h, s), skip);
      if (tx === undefined) break;
      const result = await ctx.builder.addTransaction(tx.decoded);
      if (result.ok) {
        added++;
        ctx.included++;
        this.pool.reserve(tx.hashHex);
        ctx.unpublished.push(tx.hashHex);
        ctx.nonces.set(tx.senderHex, tx.nonce + 1n);
        touch(ctx, result.details);
        continue;
      }
      const err = result.error;
      if (err instanceof TransactionRejectedError) {
        if (err.reason === "nonce-too-low") this.drop(tx, err.message);
        else if (
          err.reason === "nonce-too-high" ||
          err.reason === "fee-cap-below-base-fee" ||
          err.reason === "gas-limit-exceeds-block" ||
          err.reason === "da-footprint-exceeds-block"
        ) {
          skip.add(tx.senderHex);
        } else this.drop(tx, err.message);
      } else if (err instanceof InvalidTransactionEncodingError) {
        this.drop(tx, err.message);
      }
    }
    return added;
  }

  private async publish(ctx: BlockContext, index: number): Promise<void> {
    const started = now();
    const pending = await takeSnapshot(ctx, this.opts.config, index, started);
    // In the same synchronous step: the transactions leave the pool as the snapshot showing them appears.
    for (const hashHex of ctx.unpublished.splice(0)) this.pool.take(hashHex);
    this.publishPending(pending);
    // A moving average of the snapshots' durations: the reserve fillUntil keeps before the next tick.
    this.snapshotReserveMs = this.snapshotReserveMs * 0.7 + (now() - started) * 0.3;
  }

  private async seal(ctx: BlockContext): Promise<void> {
    // The last snapshot was just published: requests that waited on it are answered before the seal runs.
    await yieldToIo();
    const sealStarted = now();
    const sealed = await ctx.builder.seal();
    if (
      ctx.lastSnapshot !== undefined &&
      toHexRaw(sealed.blockHash) !== toHexRaw(ctx.lastSnapshot.blockHash)
    ) {
      throw new Error("sealed block differs from the last published snapshot");
    }
    // The block boundary (seal, commit, the next block's start) must not hold the event loop for its whole length:
    // RPC requests are answered between its steps.
    await yieldToIo();
    const { recorder } = ctx;
    const witness =
      recorder === undefined
        ? undefined
        : { record: recorder.record(ctx.builder.keyPreimages), window: this.opts.witnessWindow };
    const stored = await commitSealedInSteps(this.opts.store, sealed, witness);
    this.opts.logger.debug(
      {
        number: Number(stored.header.number),
        txs: stored.transactions.length,
        planMs: ctx.planMs === undefined ? undefined : round(ctx.planMs),
        startMs: ctx.startMs === undefined ? undefined : round(ctx.startMs),
        sealMs: round(now() - sealStarted),
      },
      "block sealed",
    );
    this.publishSealed(stored);
  }
}

interface BlockContext extends BlockInProgress {
  /** Next nonce per sender inside this block. */
  nonces: Map<string, bigint>;
  /** Pool transactions included so far. */
  included: number;
  /** Hashes (hex) of pool transactions executed since the last published snapshot (reserved in the pool). */
  unpublished: string[];
  /** Notes what the builder reads from the store, for the block's witness record (absent: not recorded). */
  recorder: ReadRecorder | undefined;
  /** Milliseconds to start the block (builder, deposits, snapshot 0) and, in L1 mode, to plan it. */
  startMs?: number;
  planMs?: number | undefined;
}
