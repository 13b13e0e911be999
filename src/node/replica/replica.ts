/**
 * A read replica's block producer (docs/node/replicas.md "Read replicas"): it follows another node (the leader) over
 * one websocket and holds the same chain, verified by executing it.
 *
 * - Sealed blocks: each `newHeads` the leader publishes is sealed from the flashblocks the replica already
 *   applied when its last one is that block; otherwise (a missed flashblock, a start, a reconnect) the block is
 *   fetched with `debug_getRawBlock` and re-executed on the replica's head. Either way the block enters the
 *   store only when its hash, which commits to every transaction, receipt and the state root, is the leader's.
 * - Pending: each flashblock's transactions are executed on the block being rebuilt (flashblock 0's base gives
 *   the payload attributes), and the snapshot becomes the replica's `pending` view only when its block hash is
 *   the one the message states. The replica's own flashblocks messages are recomputed from its state (byte for
 *   byte the leader's when both agree). A flashblock that does not verify, or a gap in the indices, drops the
 *   pending view until the next block (reads of `pending` answer `latest` meanwhile).
 * - A leader on another chain (genesis, a block the replica holds, a parent) or a sealed block that does not
 *   re-execute to its hash stops the replica (`onFatal`): it never serves a block it has not reproduced.
 *
 * Events are applied one at a time in arrival order; flashblocks waiting behind a slow step are bounded
 * (past MAX_QUEUED_FLASHBLOCKS the waiting ones are dropped and the blocks are fetched instead).
 */
import {
  BlockBuilder,
  bytesEqual,
  executeBlockWithKeys,
  InvalidBlockError,
  type RollupConfig,
  toHex,
} from "../../chain/index.js";
import type { Logger } from "../../log/index.js";
import {
  type BlockInProgress,
  beginBlock,
  commitSealedInSteps,
  takeSnapshot,
  touch,
} from "../block-in-progress.js";
import { HeadHolder } from "../block-producer.js";
import { TxPool } from "../pool.js";
import { firstDifference } from "../safe-head/compare.js";
import type { BlockStore, StoredBlock, WitnessRecordToKeep } from "../store/block-store.js";
import { ReadRecorder } from "../witness-record.js";
import {
  LeaderDataError,
  LeaderDivergedError,
  LeaderUnavailableError,
  ReplicaVerificationError,
} from "./errors.js";
import { LeaderClient } from "./leader-client.js";
import {
  attributesOf,
  decodeLeaderBlock,
  type LeaderBlock,
  type LeaderFlashblock,
  parseLeaderFlashblock,
  parseLeaderHead,
} from "./leader-data.js";

export interface ReplicaOptions {
  config: RollupConfig;
  store: BlockStore;
  /** The leader's JSON-RPC websocket URL. */
  leaderUrl: string;
  logger: Logger;
  /** The replica cannot follow its leader any more (another chain, a block that does not verify). */
  onFatal?: (err: unknown) => void;
  /** Reconnect back-off of the leader connection, milliseconds (default 250, doubling to 5000). */
  reconnectDelayMs?: number;
  /**
   * How many of the latest blocks keep the witness record of what re-executing them read (src/node/witness-record.ts),
   * as the sequencer keeps its own; 0: none is recorded.
   */
  witnessWindow: number;
}

/** Flashblocks that may wait behind a slow step before the waiting ones are dropped. */
export const MAX_QUEUED_FLASHBLOCKS = 256;
/** Raw blocks requested ahead of the one being executed while catching up. */
const FETCH_AHEAD = 8;

type ReplicaEvent =
  | { kind: "head"; number: bigint; hash: Uint8Array }
  | { kind: "flashblock"; message: unknown }
  | { kind: "resync" };

interface RebuiltBlock extends BlockInProgress {
  number: bigint;
  /** Index of the last flashblock applied. */
  index: number;
  /** Transactions applied (the first is the L1 attributes deposit, which touches no balance). */
  count: number;
  /** Notes what the builder reads from the store, for the block's witness record (absent: not recorded). */
  recorder: ReadRecorder | undefined;
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

export class Replica extends HeadHolder {
  /** Always empty: transactions sent to a replica are forwarded to the leader's pool. */
  readonly pool = new TxPool();
  readonly dropped: ReadonlyMap<string, string> = new Map();
  readonly leader: LeaderClient;
  private block: RebuiltBlock | undefined;
  private readonly events: ReplicaEvent[] = [];
  private queuedFlashblocks = 0;
  private draining: Promise<void> | undefined;
  private stopped = false;
  /** The newest block the leader is known to have sealed (eth_syncing's highestBlock). */
  private leaderHeadNumber = 0n;
  /** The head when the running catch-up began. */
  private catchUpFrom: bigint | undefined;

  constructor(private readonly opts: ReplicaOptions) {
    super(opts.store);
    this.leader = new LeaderClient({
      url: opts.leaderUrl,
      logger: opts.logger,
      ...(opts.reconnectDelayMs === undefined ? {} : { reconnectDelayMs: opts.reconnectDelayMs }),
    });
    this.leader.subscribe(["newHeads"], (result) => this.enqueueHead(result));
    this.leader.subscribe(["newFlashblocks"], (message) => this.enqueueFlashblock(message));
    this.leader.onConnected(() => this.enqueue({ kind: "resync" }));
  }

  /** The newest block number the leader has announced (0 before the first connection). */
  get leaderHead(): bigint {
    return this.leaderHeadNumber;
  }

  /**
   * eth_syncing's answer: undefined while the replica is at most one block behind its leader (the block just
   * announced is being sealed); otherwise where the catch-up began, the head and the leader's head.
   */
  syncProgress(): { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint } | undefined {
    const current = this.head.header.number;
    if (this.leaderHeadNumber <= current + 1n) return undefined;
    return {
      startingBlock: this.catchUpFrom ?? current,
      currentBlock: current,
      highestBlock: this.leaderHeadNumber,
    };
  }

  start(): void {
    this.leader.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.leader.close();
    this.events.length = 0;
    await this.draining;
  }

  private enqueueHead(result: unknown): void {
    try {
      const head = parseLeaderHead(result);
      if (head.number > this.leaderHeadNumber) this.leaderHeadNumber = head.number;
      // Consecutive heads coalesce: reaching the newest seals the ones before it, so a leader that floods
      // newHeads grows the queue by one event at most.
      if (this.events.at(-1)?.kind === "head") this.events.pop();
      this.enqueue({ kind: "head", ...head });
    } catch (e) {
      this.opts.logger.warn({ err: (e as Error).message }, "ignored a newHeads notification from the leader");
    }
  }

  private enqueueFlashblock(message: unknown): void {
    if (this.queuedFlashblocks >= MAX_QUEUED_FLASHBLOCKS) {
      // The replica is behind: drop the waiting flashblocks; the sealed blocks are fetched instead.
      // Of the heads left waiting only the newest is kept, for the same reason as above.
      let newestHead = true;
      for (let i = this.events.length - 1; i >= 0; i--) {
        const kind = this.events[i]!.kind;
        if (kind === "flashblock" || (kind === "head" && !newestHead)) this.events.splice(i, 1);
        else if (kind === "head") newestHead = false;
      }
      this.queuedFlashblocks = 0;
      this.dropBlock("the replica fell behind the flashblocks stream");
    }
    this.queuedFlashblocks++;
    this.enqueue({ kind: "flashblock", message });
  }

  private enqueue(event: ReplicaEvent): void {
    if (this.stopped) return;
    this.events.push(event);
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      const event = this.events.shift();
      if (event === undefined) return;
      if (event.kind === "flashblock") this.queuedFlashblocks--;
      try {
        await this.handle(event);
      } catch (e) {
        if (this.stopped) return;
        if (e instanceof LeaderDivergedError || e instanceof ReplicaVerificationError) {
          this.stopped = true;
          this.leader.close();
          this.opts.logger.fatal({ err: e }, "the replica stopped following its leader");
          this.opts.onFatal?.(e);
          return;
        }
        // The leader went away mid-step or sent something unusable: the next connection's resync repairs it.
        this.dropBlock(e instanceof Error ? e.message : String(e));
        this.opts.logger.warn(
          { err: e instanceof Error ? e.message : String(e), event: event.kind },
          e instanceof LeaderUnavailableError ? "leader unavailable" : "could not apply the leader's update",
        );
      }
    }
  }

  private async handle(event: ReplicaEvent): Promise<void> {
    switch (event.kind) {
      case "resync":
        return this.resync();
      case "head":
        return this.advanceTo(event.number, event.hash);
      case "flashblock":
        return this.applyFlashblock(parseLeaderFlashblock(event.message));
    }
  }

  /** After a (re)connection: the leader must hold the replica's chain; then catch up with its latest block. */
  private async resync(): Promise<void> {
    const genesis = await this.leaderBlockRef(0n);
    const ours = this.opts.store.blockByNumber(0n)!;
    if (genesis === undefined || !bytesEqual(genesis.hash, ours.hash))
      throw new LeaderDivergedError(
        `the leader's genesis ${genesis === undefined ? "(none)" : toHex(genesis.hash)} is not this chain's ${toHex(ours.hash)}: start the replica with the leader's --chain-id and --dev-accounts (or --rollup-config), or another --data-dir`,
        { leaderGenesis: genesis === undefined ? null : toHex(genesis.hash), genesis: toHex(ours.hash) },
      );
    const head = this.head;
    const atOurHead = await this.leaderBlockRef(head.header.number);
    if (atOurHead === undefined || !bytesEqual(atOurHead.hash, head.hash))
      throw new LeaderDivergedError(
        `the leader's block ${head.header.number} is ${atOurHead === undefined ? "missing" : toHex(atOurHead.hash)}, the replica's is ${toHex(head.hash)}: the leader serves another chain (use another --data-dir)`,
        { number: head.header.number, replica: toHex(head.hash) },
      );
    const latest = await this.leaderBlockRef("latest");
    if (latest === undefined) throw new LeaderDataError("the leader has no latest block");
    if (latest.number > this.leaderHeadNumber) this.leaderHeadNumber = latest.number;
    await this.advanceTo(latest.number, latest.hash);
  }

  private async leaderBlockRef(
    block: bigint | "latest",
  ): Promise<{ number: bigint; hash: Uint8Array } | undefined> {
    const answer = await this.leader.request("eth_getBlockByNumber", [
      typeof block === "bigint" ? `0x${block.toString(16)}` : block,
      false,
    ]);
    return answer === null ? undefined : parseLeaderHead(answer);
  }

  /**
   * Seals blocks until the head is block `number`, which must have `hash` when one is given (a no-op for a block
   * already held). Without a hash (a flashblock's claim, which is not authoritative) the leader's raw blocks are
   * taken as they re-execute.
   */
  private async advanceTo(number: bigint, hash: Uint8Array | undefined): Promise<void> {
    const head = this.head;
    if (number <= head.header.number) {
      const held = number === head.header.number ? head : this.opts.store.blockByNumber(number);
      if (hash !== undefined && held !== undefined && !bytesEqual(held.hash, hash))
        throw new LeaderDivergedError(
          `the leader sealed block ${number} as ${toHex(hash)}, the replica holds ${toHex(held.hash)}`,
          { number, leader: toHex(hash), replica: toHex(held.hash) },
        );
      return;
    }
    const b = this.block;
    if (
      hash !== undefined &&
      number === head.header.number + 1n &&
      b !== undefined &&
      b.number === number &&
      b.lastSnapshot !== undefined &&
      bytesEqual(b.lastSnapshot.blockHash, hash)
    ) {
      // The flashblocks already applied are the block the leader sealed.
      this.block = undefined;
      const sealed = await b.builder.seal();
      if (!bytesEqual(sealed.blockHash, hash))
        throw new ReplicaVerificationError(number, "sealing the rebuilt block changed its hash");
      this.setHead(
        await commitSealedInSteps(
          this.opts.store,
          sealed,
          this.toKeep(b.recorder, () => b.builder.keyPreimages),
        ),
      );
      return;
    }
    this.dropBlock(undefined);
    await this.fetchAndExecute(head.header.number + 1n, number, hash);
  }

  /** Catch-up: blocks `from`..`to` fetched (a few ahead) and re-executed in order; `to` must have `hash` if given. */
  private async fetchAndExecute(from: bigint, to: bigint, hash: Uint8Array | undefined): Promise<void> {
    const fetches = new Map<bigint, Promise<LeaderBlock>>();
    const fetch = (n: bigint): void => {
      if (n > to || fetches.has(n)) return;
      const p = this.leader.request("debug_getRawBlock", [`0x${n.toString(16)}`]).then((raw) => {
        // The leader has no block n: whatever it announced, its head is below n (eth_syncing must not
        // report a number the leader cannot serve).
        if (raw === null && this.leaderHeadNumber >= n) this.leaderHeadNumber = n - 1n;
        return decodeLeaderBlock(raw, n);
      });
      p.catch(() => undefined); // awaited below; a failure of one fetched ahead is not unhandled
      fetches.set(n, p);
    };
    if (to > this.leaderHeadNumber) this.leaderHeadNumber = to;
    if (to - from >= 1n) {
      this.catchUpFrom = from - 1n;
      this.opts.logger.info({ from: Number(from), to: Number(to) }, "catching up with the leader");
    }
    for (let n = from; n <= to && !this.stopped; n++) {
      for (let k = 0n; k < BigInt(FETCH_AHEAD); k++) fetch(n + k);
      const block = await fetches.get(n)!;
      fetches.delete(n);
      if (this.stopped) return;
      await this.executeLeaderBlock(block);
      if (n === to && hash !== undefined && !bytesEqual(this.head.hash, hash))
        throw new LeaderDivergedError(
          `the leader announced block ${to} as ${toHex(hash)} but serves ${toHex(this.head.hash)}`,
          { number: to },
        );
    }
    this.catchUpFrom = undefined;
  }

  private async executeLeaderBlock(block: LeaderBlock): Promise<void> {
    const parent = this.head;
    const number = block.header.number;
    if (!bytesEqual(block.header.parentHash, parent.hash))
      throw new LeaderDivergedError(
        `the leader's block ${number} builds on ${toHex(block.header.parentHash)}, not on the replica's block ${parent.header.number} (${toHex(parent.hash)})`,
        { number, parentHash: toHex(block.header.parentHash), replicaParent: toHex(parent.hash) },
      );
    const recorder = this.recorder();
    let executed;
    try {
      executed = await executeBlockWithKeys({
        config: this.opts.config,
        parent: parent.header,
        attributes: attributesOf(this.opts.config, number, block.header),
        transactions: block.transactions,
        source: recorder ?? this.opts.store,
        // The store inserts the written nodes OR IGNOREs them: no lookup for each (which the recorder would note).
        keepEveryWrite: true,
      });
    } catch (e) {
      if (e instanceof InvalidBlockError || e instanceof RangeError)
        throw new ReplicaVerificationError(number, e.message);
      throw e;
    }
    const { sealed } = executed;
    if (!bytesEqual(sealed.blockHash, block.hash))
      throw new ReplicaVerificationError(
        number,
        `re-executed to ${toHex(sealed.blockHash)}, the leader's is ${toHex(block.hash)}`,
        firstDifference(block, { header: sealed.header, transactions: sealed.transactions }),
      );
    this.setHead(
      await commitSealedInSteps(this.opts.store, sealed, this.toKeep(recorder, executed.keyPreimages)),
    );
  }

  private async applyFlashblock(f: LeaderFlashblock): Promise<void> {
    if (f.number <= this.head.header.number) return; // already sealed
    if (f.index === 0) {
      const base = f.base!;
      // A block started past the next one: the blocks before it are sealed at the leader; fetch them first
      // (checked by re-execution; the flashblock's parent hash is only a claim).
      if (f.number > this.head.header.number + 1n) await this.advanceTo(f.number - 1n, undefined);
      this.dropBlock(undefined);
      const parent = this.head;
      // A flashblock is not authoritative: one that does not fit drops the pending view, the sealed blocks decide.
      if (!bytesEqual(base.parentHash, parent.hash)) {
        this.opts.logger.warn(
          { number: Number(f.number), parentHash: toHex(base.parentHash), head: toHex(parent.hash) },
          "ignored a flashblock that does not build on the replica's head",
        );
        return;
      }
      let attributes;
      try {
        attributes = attributesOf(this.opts.config, f.number, base);
      } catch (e) {
        this.opts.logger.warn(
          { number: Number(f.number), err: (e as Error).message },
          "ignored a flashblock's base",
        );
        return;
      }
      const recorder = this.recorder();
      const builder = await BlockBuilder.start({
        config: this.opts.config,
        parent: parent.header,
        attributes,
        source: recorder ?? this.opts.store,
        // The store inserts the written nodes OR IGNOREs them: no lookup for each (PreimageTrieDBOptions).
        keepEveryWrite: true,
      });
      this.block = {
        ...beginBlock(this.opts.store, builder, parent, this.headView, base.timestamp),
        payloadId: f.payloadId,
        number: f.number,
        index: -1,
        count: 0,
        recorder,
      };
    }
    const b = this.block;
    if (b === undefined || b.number !== f.number || !bytesEqual(b.payloadId, f.payloadId)) return; // no base for it
    if (f.index <= b.index) return; // a repeat
    if (f.index !== b.index + 1) {
      this.dropBlock(`flashblock ${f.index} of block ${f.number} follows ${b.index}`);
      return;
    }
    for (const tx of f.transactions) {
      const result = await b.builder.addTransaction(tx);
      if (!result.ok) {
        this.dropBlock(
          `transaction ${b.count} of block ${f.number} cannot be included: ${result.error.message}`,
        );
        return;
      }
      if (b.count > 0) touch(b, result.details);
      b.count++;
    }
    const pending = await takeSnapshot(b, this.opts.config, f.index, now());
    if (!bytesEqual(pending.snapshot.blockHash, f.blockHash)) {
      this.dropBlock(
        `flashblock ${f.index} of block ${f.number} re-executed to ${toHex(pending.snapshot.blockHash)}, the leader's is ${toHex(f.blockHash)}`,
      );
      return;
    }
    b.index = f.index;
    this.publishPending(pending);
  }

  /** A recorder of a block's reads from the store, when the node keeps witness records. */
  private recorder(): ReadRecorder | undefined {
    return this.opts.witnessWindow > 0 ? new ReadRecorder(this.opts.store) : undefined;
  }

  /** The witness record to commit with a block built through `recorder` (undefined when none was kept). */
  private toKeep(
    recorder: ReadRecorder | undefined,
    keys: () => Uint8Array[],
  ): WitnessRecordToKeep | undefined {
    return recorder === undefined
      ? undefined
      : { record: recorder.record(keys()), window: this.opts.witnessWindow };
  }

  /** Forgets the block being rebuilt (pending reads answer `latest` until the next block); logs why if given. */
  private dropBlock(reason: string | undefined): void {
    if (reason !== undefined && this.block !== undefined)
      this.opts.logger.warn({ number: Number(this.block.number), reason }, "dropped the pending block");
    this.block = undefined;
    this.clearPending();
  }

  private setHead(stored: StoredBlock): void {
    this.opts.logger.debug(
      { number: Number(stored.header.number), txs: stored.transactions.length },
      "block followed",
    );
    this.publishSealed(stored);
  }
}
