/**
 * The batch source: an L1 block's batcher data items → frames (Holocene frame queue) → one staging channel
 * (channel assembler) → lenient decompression → batches, in order, one at a time.
 *
 * Pull-based like op-node's stages: `next()` hands out the next batch of the channel being read; when that channel
 * is exhausted it assembles the next one from queued frames, loading the block's next data item when the frame
 * queue is empty; when the block's data is used up it answers "eof" and the driver advances L1. Invalid input is
 * dropped per the spec and reported to `onDrop`:
 * - a data item whose frames do not parse (parseFrames refuses the whole item);
 * - frames the frame queue or the assembler prune, channels that time out or grow too large;
 * - a channel whose compression is unknown; and the rest of a channel from its first batch that does not decode.
 */
import { decodeBatch } from "../batches/batch.js";
import { SpanBatchBlockList } from "../batches/expand.js";
import type { Batch, SpanBatchContext } from "../batches/types.js";
import { ChannelAssembler, readChannel } from "../channel/index.js";
import { DroppedInputError } from "../errors.js";
import { type DropListener, FrameQueue, parseFrames } from "../frames/index.js";
import type { DerivationConfig, L1BlockRef, SingularBatchData } from "../types.js";
import type { SpanBatchView } from "../validation/index.js";

/** A decoded batch in the form validation takes. */
export type SourceBatch =
  | { readonly kind: "singular"; readonly batch: SingularBatchData }
  | { readonly kind: "span"; readonly span: SpanBatchView };

export class BatchSource {
  private readonly frames: FrameQueue;
  private readonly assembler: ChannelAssembler;
  private readonly spanContext: SpanBatchContext;
  private readonly onDrop: DropListener | undefined;
  private block: L1BlockRef | undefined;
  private items: readonly Uint8Array[] = [];
  private nextItem = 0;
  private channel: Uint8Array[] = [];
  private nextBatch = 0;

  constructor(config: DerivationConfig, onDrop?: DropListener) {
    this.onDrop = onDrop;
    this.frames = new FrameQueue({ onDrop });
    this.assembler = new ChannelAssembler({ channelTimeout: config.channelTimeout, onDrop });
    this.spanContext = {
      genesisTimestamp: config.genesisL2Time,
      blockTime: config.blockTime,
      chainId: config.rollup.l2ChainId,
    };
  }

  /** Starts reading L1 block `block`, whose batcher data items (calldata or blob data) are `items`. */
  setBlock(block: L1BlockRef, items: readonly Uint8Array[]): void {
    this.block = block;
    this.items = items;
    this.nextItem = 0;
    this.assembler.checkTimeout(block.number);
  }

  /** Drops the rest of the channel being read (Holocene fast channel invalidation). */
  flushChannel(): void {
    this.channel = [];
    this.nextBatch = 0;
  }

  /** The next batch, or "eof" when the current L1 block has nothing more. */
  next(): SourceBatch | "eof" {
    for (;;) {
      if (this.nextBatch < this.channel.length) {
        const raw = this.channel[this.nextBatch++]!;
        const decoded = this.decode(raw);
        if (decoded !== undefined) return decoded;
        this.flushChannel();
        continue;
      }
      if (!this.loadChannel()) return "eof";
    }
  }

  private decode(raw: Uint8Array): SourceBatch | undefined {
    let batch: Batch;
    try {
      batch = decodeBatch(raw);
      if (batch.type === "singular") {
        return {
          kind: "singular",
          batch: {
            parentHash: batch.parentHash,
            epochNumber: batch.epochNumber,
            epochHash: batch.epochHash,
            timestamp: batch.timestamp,
            transactions: batch.transactions,
          },
        };
      }
      // Blocks are computed when validation asks for them: nothing is expanded before the prefix checks.
      const blocks = new SpanBatchBlockList(batch, this.spanContext);
      return {
        kind: "span",
        span: { parentCheck: batch.parentCheck, l1OriginCheck: batch.l1OriginCheck, blocks },
      };
    } catch (e) {
      if (e instanceof DroppedInputError) {
        this.onDrop?.(e);
        return undefined;
      }
      throw e;
    }
  }

  /** Assembles the next channel from the frames; false when the block's data is used up first. */
  private loadChannel(): boolean {
    const block = this.block;
    if (block === undefined) return false;
    for (;;) {
      const queued = this.frames.next();
      if (queued === undefined) {
        if (this.nextItem >= this.items.length) return false;
        const item = this.items[this.nextItem++]!;
        try {
          this.frames.push(parseFrames(item), block.number);
        } catch (e) {
          if (!(e instanceof DroppedInputError)) throw e;
          this.onDrop?.(e);
        }
        continue;
      }
      const ready = this.assembler.addFrame(queued.frame, queued.l1BlockNumber);
      if (ready === undefined) continue;
      try {
        this.channel = readChannel(ready.data).batches;
        this.nextBatch = 0;
      } catch (e) {
        if (!(e instanceof DroppedInputError)) throw e;
        this.onDrop?.(e);
        continue;
      }
      return true;
    }
  }
}
