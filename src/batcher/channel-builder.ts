/**
 * From sealed L2 blocks to a channel's frames (the batcher's encoding side of src/derive): consecutive blocks become
 * span batches, the batches are compressed (zlib or brotli) into one channel with a fresh random 16-byte id, and
 * the channel is cut into frames of at most `maxFrameDataLength` data bytes.
 *
 * A span batch states block timestamps as `start + i * blockTime` and L1 origins that stay or advance by one per
 * block. Blocks that break either rule (a node whose timestamps follow the wall clock, an origin jump) start a new
 * span batch in the same channel, so every block keeps its exact timestamp and origin.
 */
import { randomBytes } from "node:crypto";
import { hexToBytes } from "viem";
import {
  type CompressionAlgo,
  type Frame,
  type SpanBatchContext,
  buildSpanBatch,
  channelToFrames,
  compressChannel,
  encodeBatch,
  encodeBatchItems,
} from "../derive/index.js";
import { ChannelTooLargeError } from "./errors.js";
import type { L2BlockData } from "./l2-source.js";

export interface ChannelShape {
  readonly compression: CompressionAlgo;
  /** Data bytes per frame (the frame's encoded size less its 23-byte header). */
  readonly maxFrameDataLength: number;
  /** Most frames a channel may have. */
  readonly maxFrames: number;
}

export interface BuiltChannel {
  readonly id: Uint8Array;
  readonly blocks: readonly L2BlockData[];
  readonly frames: readonly Frame[];
  /** Uncompressed size (the batches as RLP strings) and compressed size, in bytes. */
  readonly rawSize: number;
  readonly compressedSize: number;
  /** Number of span batches in the channel. */
  readonly batchCount: number;
}

/** Largest compressed channel a shape allows. */
export function channelCapacity(shape: ChannelShape): number {
  return shape.maxFrames * shape.maxFrameDataLength;
}

/** Runs of blocks one span batch can carry: same block-time steps, L1 origin staying or advancing by one. */
export function spanRuns(blocks: readonly L2BlockData[], ctx: SpanBatchContext): L2BlockData[][] {
  const runs: L2BlockData[][] = [];
  let run: L2BlockData[] = [];
  for (const block of blocks) {
    const prev = run[run.length - 1];
    if (prev !== undefined) {
      const step = block.l1OriginNumber - prev.l1OriginNumber;
      const regular = block.timestamp === prev.timestamp + ctx.blockTime && (step === 0n || step === 1n);
      if (!regular) {
        runs.push(run);
        run = [];
      }
    }
    run.push(block);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The encoded span batches (type byte and payload) of `blocks`, in order. */
export function encodeSpanBatches(blocks: readonly L2BlockData[], ctx: SpanBatchContext): Uint8Array[] {
  return spanRuns(blocks, ctx).map((run) =>
    encodeBatch(
      buildSpanBatch(
        run.map((b) => ({
          parentHash: hexToBytes(b.parentHash),
          epochNumber: b.l1OriginNumber,
          epochHash: b.l1OriginHash,
          timestamp: b.timestamp,
          transactions: b.transactions,
        })),
        ctx,
        run[0]!.sequenceNumber === 0n,
      ),
    ),
  );
}

/** Compressed channel bytes of `blocks` and their uncompressed size. */
export function compressBlocks(
  blocks: readonly L2BlockData[],
  ctx: SpanBatchContext,
  compression: CompressionAlgo,
): { compressed: Uint8Array; rawSize: number; batchCount: number } {
  const batches = encodeSpanBatches(blocks, ctx);
  return {
    compressed: compressChannel(batches, compression),
    rawSize: encodeBatchItems(batches).length,
    batchCount: batches.length,
  };
}

/**
 * The channel of the longest prefix of `blocks` that fits the shape (at least one block), with a fresh random id.
 * ChannelTooLargeError when the first block alone does not fit.
 */
export function buildChannel(
  blocks: readonly L2BlockData[],
  ctx: SpanBatchContext,
  shape: ChannelShape,
  newId: () => Uint8Array = () => new Uint8Array(randomBytes(16)),
): BuiltChannel {
  if (blocks.length === 0) throw new RangeError("a channel needs at least one block");
  const capacity = channelCapacity(shape);
  let best = compressBlocks(blocks, ctx, shape.compression);
  let count = blocks.length;
  if (best.compressed.length > capacity) {
    // Bisect on the number of blocks: lo always fits (or is 0), hi never does.
    let lo = 0;
    let hi = blocks.length;
    let fit: typeof best | undefined;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const candidate = compressBlocks(blocks.slice(0, mid), ctx, shape.compression);
      if (candidate.compressed.length <= capacity) {
        lo = mid;
        fit = candidate;
      } else hi = mid;
    }
    if (fit === undefined)
      throw new ChannelTooLargeError(`L2 block ${blocks[0]!.number} does not fit in one channel`, {
        block: blocks[0]!.number,
        capacity,
      });
    best = fit;
    count = lo;
  }
  const id = newId();
  return {
    id,
    blocks: blocks.slice(0, count),
    frames: channelToFrames(id, best.compressed, shape.maxFrameDataLength),
    rawSize: best.rawSize,
    compressedSize: best.compressed.length,
    batchCount: best.batchCount,
  };
}

/**
 * Decides cheaply whether pending blocks fill a channel: compresses only when the uncompressed size has grown past
 * what could still fit since the last check (compression never grows data by more than a few bytes per block).
 */
export class FullnessTracker {
  private checkAtRaw = 0;
  private lastRaw = 0;

  constructor(
    private readonly ctx: SpanBatchContext,
    private readonly shape: ChannelShape,
  ) {}

  /** Forget earlier checks (the pending blocks were replaced or a channel was cut from them). */
  reset(): void {
    this.checkAtRaw = 0;
    this.lastRaw = 0;
  }

  /** Uncompressed size at the last call. */
  get rawSize(): number {
    return this.lastRaw;
  }

  /** True when `blocks` no longer fit in one channel. */
  isFull(blocks: readonly L2BlockData[]): boolean {
    if (blocks.length === 0) return false;
    const batches = encodeSpanBatches(blocks, this.ctx);
    const raw = encodeBatchItems(batches).length;
    this.lastRaw = raw;
    if (raw < this.checkAtRaw) return false;
    const capacity = channelCapacity(this.shape);
    const compressed = compressChannel(batches, this.shape.compression).length;
    if (compressed > capacity) return true;
    // Each further raw byte adds at most about one compressed byte (plus framing slack kept by the margin).
    this.checkAtRaw = raw + Math.max(1, capacity - compressed - 64 * batches.length);
    return false;
  }
}
