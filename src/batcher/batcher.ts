/**
 * The batcher's loop (docs/batcher.md): resume after the last L2 block L1 holds, read sealed L2 blocks, close a
 * channel when it is full or has been open `maxChannelDuration` L1 blocks (or its first block nears the end of its
 * sequencing window), post its frames as calldata or blob transactions one at a time, in order, and start over from
 * what L1 holds whenever something unexpected happens (an L1 reorg of a posted transaction, a refused transaction,
 * an L2 block that does not extend the previous one). L1 is the only state: a restart, even after kill -9, re-reads
 * it and neither skips nor re-posts a block.
 */
import { type Hex, type PublicClient, type TransactionReceipt, bytesToHex, toHex } from "viem";
import {
  type CompressionAlgo,
  FRAME_HEADER_OVERHEAD,
  MAX_BLOB_DATA_SIZE,
  type SpanBatchContext,
  encodeBlob,
  encodeFrames,
} from "../derive/index.js";
import type { Logger } from "../log/index.js";
import { type BuiltChannel, type ChannelShape, FullnessTracker, buildChannel } from "./channel-builder.js";
import {
  ChannelTimedOutError,
  ChannelTooLargeError,
  L1ReorgError,
  L2ReorgError,
  PostedChainMismatchError,
  BatcherError,
  TransactionFailedError,
} from "./errors.js";
import type { L1PostedReader } from "./l1-posted.js";
import type { L2BlockData, L2BlockReader } from "./l2-source.js";
import type { BatcherMetrics } from "./metrics.js";
import { type TxCandidate, type TxSender, sleep } from "./tx-sender.js";

/** op-batcher's default largest calldata transaction payload (version byte and one frame). */
export const MAX_CALLDATA_TX_BYTES = 120_000;
/** Largest frame in a blob: the blob's data less the version byte. */
export const MAX_BLOB_FRAME_BYTES = MAX_BLOB_DATA_SIZE - 1;
/** Most blobs per transaction (Prague). */
export const MAX_BLOBS_PER_TX = 6;

export type DataAvailability = "blobs" | "calldata";

export interface BatcherSettings {
  readonly dataAvailability: DataAvailability;
  readonly compression: CompressionAlgo;
  /** Frames per channel at most (default: 1 for calldata, blobs per transaction for blobs). */
  readonly targetNumFrames: number;
  readonly maxBlobsPerTx: number;
  /** L1 blocks a channel stays open at most; 0: only size and the sequencing window close it. */
  readonly maxChannelDuration: number;
  readonly subSafetyMargin: bigint;
  readonly seqWindowSize: bigint;
  readonly channelTimeout: bigint;
  /** First L1 block the batcher's posts can be in (where the re-reading of L1 stops). */
  readonly l1StartBlock: bigint;
  /** Largest calldata transaction payload. */
  readonly maxCalldataTxBytes: number;
  readonly pollIntervalMs: number;
  readonly resubmitAfterBlocks: number;
}

export interface BatcherDeps {
  readonly l1: PublicClient;
  readonly l2: L2BlockReader;
  readonly posted: L1PostedReader;
  readonly sender: TxSender;
  readonly span: SpanBatchContext;
  readonly metrics: BatcherMetrics;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

interface PostedTx {
  readonly hash: Hex;
  readonly l1Block: bigint;
  readonly l1BlockHash: Hex;
}

/** The channel shape of a data availability mode. */
export function channelShape(settings: BatcherSettings): ChannelShape {
  const maxFrameBytes =
    settings.dataAvailability === "blobs" ? MAX_BLOB_FRAME_BYTES : settings.maxCalldataTxBytes - 1;
  return {
    compression: settings.compression,
    maxFrameDataLength: maxFrameBytes - FRAME_HEADER_OVERHEAD,
    maxFrames: settings.targetNumFrames,
  };
}

/** The L1 transactions of a channel: one frame per calldata transaction, one frame per blob. */
export function channelTransactions(channel: BuiltChannel, settings: BatcherSettings): TxCandidate[] {
  if (settings.dataAvailability === "calldata")
    return channel.frames.map((f) => ({ kind: "calldata", data: encodeFrames([f]) }));
  const out: TxCandidate[] = [];
  for (let i = 0; i < channel.frames.length; i += settings.maxBlobsPerTx) {
    const frames = channel.frames.slice(i, i + settings.maxBlobsPerTx);
    out.push({ kind: "blobs", blobs: frames.map((f) => encodeBlob(encodeFrames([f]))) });
  }
  return out;
}

export class Batcher {
  private lastPosted: { number: bigint; hash: Hex } = { number: 0n, hash: "0x" };
  private pending: L2BlockData[] = [];
  private openedAt: bigint | undefined;
  private readonly recent: PostedTx[] = [];
  private readonly shape: ChannelShape;
  private readonly fullness: FullnessTracker;

  constructor(
    private readonly settings: BatcherSettings,
    private readonly deps: BatcherDeps,
  ) {
    this.shape = channelShape(settings);
    this.fullness = new FullnessTracker(deps.span, this.shape);
  }

  /** The newest L2 block the batcher knows to be posted. */
  get lastPostedBlock(): bigint {
    return this.lastPosted.number;
  }

  /** Runs until the signal aborts; rejects only on errors that a restart cannot fix (a mismatched chain). */
  async run(): Promise<void> {
    const { logger, metrics, signal } = this.deps;
    let reason = "start";
    while (!signal.aborted) {
      try {
        metrics.recoveries.labels({ reason }).inc();
        await this.resume();
        await this.postLoop();
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof PostedChainMismatchError || e instanceof ChannelTooLargeError) throw e;
        reason = e instanceof BatcherError ? e.kind : "error";
        logger.warn({ err: e }, "batcher resumes from what L1 holds");
        await sleep(this.settings.pollIntervalMs, signal).catch(() => undefined);
      }
    }
  }

  /** Finds the last L2 block posted on L1 and resumes after it. */
  private async resume(): Promise<void> {
    const { sender, logger, l2 } = this.deps;
    await sender.settle(this.settings.resubmitAfterBlocks * 2);
    const found = await this.findLastPosted();
    if (found === undefined) {
      this.lastPosted = { number: 0n, hash: (await l2.header(0n)).hash };
    } else this.lastPosted = found;
    this.pending = [];
    this.openedAt = undefined;
    this.recent.length = 0;
    this.fullness.reset();
    this.deps.metrics.lastPostedBlock.set(Number(this.lastPosted.number));
    logger.info(
      { lastPosted: this.lastPosted.number, hash: this.lastPosted.hash },
      "resuming after L2 block",
    );
  }

  /**
   * The last L2 block of the last complete channel the batcher posted, scanning L1 backwards in growing windows
   * down to `l1StartBlock`; checked against the L2 chain (same timestamp, L1 origin and transactions).
   */
  async findLastPosted(): Promise<{ number: bigint; hash: Hex } | undefined> {
    const { l1, posted, l2, span } = this.deps;
    const { l1StartBlock, channelTimeout } = this.settings;
    const head = await l1.getBlockNumber();
    let window = 2n * channelTimeout + 2n;
    for (;;) {
      const from = head - window + 1n > l1StartBlock ? head - window + 1n : l1StartBlock;
      const channels = await posted.channels(from, head, span, channelTimeout);
      const last = channels.findLast((c) => c.blocks.length > 0);
      if (last !== undefined) {
        const block = last.blocks[last.blocks.length - 1]!;
        const number = await l2.numberAtTimestamp(block.timestamp, span.genesisTimestamp, span.blockTime);
        const mismatch = (reason: string): PostedChainMismatchError =>
          new PostedChainMismatchError(`the last posted L2 block does not match the L2 chain: ${reason}`, {
            reason,
            timestamp: block.timestamp,
            channelId: last.channelId,
            l1Block: last.closeL1Block,
          });
        if (number === undefined) throw mismatch("no L2 block has its timestamp");
        const actual = await l2.block(number);
        if (actual === undefined) throw mismatch("the L2 block is gone");
        if (actual.l1OriginNumber !== block.epochNumber) throw mismatch("another L1 origin");
        if (
          actual.transactions.length !== block.transactions.length ||
          actual.transactions.some((t, i) => bytesToHex(t) !== bytesToHex(block.transactions[i]!))
        )
          throw mismatch("other transactions");
        return { number, hash: actual.hash };
      }
      if (from === l1StartBlock) return undefined;
      window *= 4n;
    }
  }

  private async postLoop(): Promise<void> {
    const { l1, metrics, signal } = this.deps;
    const { maxChannelDuration, seqWindowSize, subSafetyMargin, pollIntervalMs } = this.settings;
    let lastL1Head = -1n;
    for (;;) {
      if (signal.aborted) return;
      const l1Head = await l1.getBlockNumber();
      if (l1Head !== lastL1Head) {
        await this.checkRecent(l1Head);
        lastL1Head = l1Head;
      }
      const l2Head = await this.fetchL2();
      metrics.pendingBlocks.set(Number(l2Head - this.lastPosted.number));
      if (this.pending.length > 0) {
        this.openedAt ??= l1Head;
        const first = this.pending[0]!;
        const close =
          this.fullness.isFull(this.pending) ||
          (maxChannelDuration > 0 && l1Head >= this.openedAt + BigInt(maxChannelDuration)) ||
          l1Head + subSafetyMargin >= first.l1OriginNumber + seqWindowSize;
        if (close) {
          await this.postChannel();
          continue;
        }
      }
      await sleep(pollIntervalMs, signal);
    }
  }

  /** Appends newly sealed L2 blocks to the pending ones (at most 500 per call); returns the L2 head. */
  private async fetchL2(): Promise<bigint> {
    const { l2 } = this.deps;
    const head = await l2.headNumber();
    let prev = this.pending[this.pending.length - 1] ?? this.lastPosted;
    for (let n = prev.number + 1n; n <= head && this.pending.length < 500; n++) {
      const block = await l2.block(n);
      if (block === undefined) break;
      if (block.parentHash !== prev.hash)
        throw new L2ReorgError(`L2 block ${n} does not extend the block before it`, {
          number: n,
          expectedParent: prev.hash,
          parentHash: block.parentHash,
        });
      this.pending.push(block);
      prev = block;
    }
    return head;
  }

  /** Throws L1ReorgError when a recently confirmed batcher transaction left the canonical chain. */
  private async checkRecent(l1Head: bigint): Promise<void> {
    const { l1 } = this.deps;
    const horizon = 2n * this.settings.channelTimeout;
    while (this.recent.length > 0 && this.recent[0]!.l1Block + horizon < l1Head) this.recent.shift();
    for (const tx of this.recent) {
      const receipt = await l1.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined);
      if (receipt?.blockHash !== tx.l1BlockHash)
        throw new L1ReorgError(`batcher transaction ${tx.hash} left the canonical L1 chain`, {
          hash: tx.hash,
          l1Block: tx.l1Block,
        });
    }
  }

  /**
   * Posts one transaction. When it fails, an L1 reorg is the likelier cause if a recent batcher transaction left
   * the chain: the reorg returned that transaction to the pool, where it took the nonce this one was signed with.
   * Then the reorg (L1ReorgError) is what the batcher reports and counts, not the symptom.
   */
  private async postOrExplain(tx: TxCandidate): Promise<TransactionReceipt> {
    try {
      return await this.deps.sender.post(tx);
    } catch (e) {
      if (e instanceof TransactionFailedError) await this.checkRecent(await this.deps.l1.getBlockNumber());
      throw e;
    }
  }

  private async postChannel(): Promise<void> {
    const { logger, metrics, span } = this.deps;
    const channel = buildChannel(this.pending, span, this.shape);
    const txs = channelTransactions(channel, this.settings);
    const blocks: bigint[] = [];
    for (const [i, tx] of txs.entries()) {
      logger.debug({ channelId: toHex(channel.id), tx: i, txs: txs.length }, "posting channel transaction");
      const receipt = await this.postOrExplain(tx);
      blocks.push(receipt.blockNumber);
      this.recent.push({
        hash: receipt.transactionHash,
        l1Block: receipt.blockNumber,
        l1BlockHash: receipt.blockHash,
      });
    }
    const spread = blocks[blocks.length - 1]! - blocks[0]!;
    if (spread > this.settings.channelTimeout - this.settings.subSafetyMargin)
      throw new ChannelTimedOutError("the channel's frames span too many L1 blocks", {
        channelId: toHex(channel.id),
        spread,
      });
    const last = channel.blocks[channel.blocks.length - 1]!;
    this.lastPosted = { number: last.number, hash: last.hash };
    this.pending = this.pending.slice(channel.blocks.length);
    this.openedAt = this.pending.length > 0 ? await this.deps.l1.getBlockNumber() : undefined;
    this.fullness.reset();
    metrics.channels.labels({ da: this.settings.dataAvailability }).inc();
    metrics.channelRawBytes.observe(channel.rawSize);
    metrics.channelCompressedBytes.observe(channel.compressedSize);
    metrics.channelBlocks.observe(channel.blocks.length);
    metrics.compressionRatio.set(channel.compressedSize / Math.max(1, channel.rawSize));
    metrics.lastPostedBlock.set(Number(last.number));
    logger.info(
      {
        channelId: toHex(channel.id),
        from: channel.blocks[0]!.number,
        to: last.number,
        frames: channel.frames.length,
        txs: txs.length,
        l1Blocks: blocks,
        rawBytes: channel.rawSize,
        compressedBytes: channel.compressedSize,
        da: this.settings.dataAvailability,
      },
      "channel posted",
    );
  }
}
