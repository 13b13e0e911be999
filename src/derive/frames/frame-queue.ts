/**
 * The Holocene frame queue (docs/derive.md, "Frame queue"). Frames are pushed one batcher transaction at a
 * time and pruned pairwise as op-node's `pruneFrameQueue` does, within that transaction's frames:
 * - a frame of the same channel as its predecessor is kept only if the predecessor is not last and the
 *   frame number is the predecessor's + 1;
 * - a frame of another channel is kept only if it is frame 0; and frame 0 of another channel drops an
 *   unclosed predecessor, and then the frames before it are checked again against the new frame, one pair at
 *   a time (so a channel id used earlier in the same transaction is never drained with it: kona's range
 *   drain from the first frame carrying that id does, which is the bug not reproduced here).
 * Ordering across transactions is the channel assembler's job.
 */
import { DroppedInputError } from "../errors.js";
import { bytesEqual } from "../../chain/index.js";
import type { Frame } from "./frame.js";

/** A frame and the number of the L1 block whose transaction carried it. */
export interface QueuedFrame {
  readonly frame: Frame;
  readonly l1BlockNumber: bigint;
}

export type FramePruneReason =
  "frame-after-last" | "frame-out-of-order" | "non-first-frame-of-new-channel" | "unclosed-channel-replaced";

export type DropListener = (error: DroppedInputError) => void;

function pruneDrop(reason: FramePruneReason, frame: Frame, message: string): DroppedInputError {
  return new DroppedInputError("frames", message, {
    reason,
    channelId: frame.channelId,
    frameNumber: frame.number,
  });
}

/**
 * Holocene pruning of one transaction's frames (in order): returns the frames kept, in order, and reports
 * each dropped frame to `onDrop`.
 */
export function pruneFrames<T extends { readonly frame: Frame }>(
  items: readonly T[],
  onDrop?: DropListener,
): T[] {
  const kept: T[] = [];
  for (const item of items) {
    const next = item.frame;
    for (;;) {
      const top = kept[kept.length - 1];
      if (top === undefined) {
        kept.push(item);
        break;
      }
      const current = top.frame;
      if (bytesEqual(current.channelId, next.channelId)) {
        if (current.isLast) {
          onDrop?.(
            pruneDrop("frame-after-last", next, `frame ${next.number} follows the last frame of its channel`),
          );
        } else if (next.number !== current.number + 1) {
          onDrop?.(
            pruneDrop(
              "frame-out-of-order",
              next,
              `frame ${next.number} follows frame ${current.number} of the same channel`,
            ),
          );
        } else {
          kept.push(item);
        }
        break;
      }
      if (next.number === 0 && !current.isLast) {
        // Frame 0 of another channel: the unclosed predecessor goes, and the pair before it is checked again.
        kept.pop();
        onDrop?.(
          pruneDrop(
            "unclosed-channel-replaced",
            current,
            `frame ${current.number} of an unclosed channel is followed by frame 0 of another channel`,
          ),
        );
        continue;
      }
      if (next.number !== 0) {
        onDrop?.(
          pruneDrop(
            "non-first-frame-of-new-channel",
            next,
            `frame ${next.number} of a channel whose frame 0 does not precede it`,
          ),
        );
      } else {
        kept.push(item);
      }
      break;
    }
  }
  return kept;
}

/**
 * Frames waiting for the channel assembler. `push` takes the frames of one batcher transaction (already
 * parsed with `parseFrames`) and prunes them; `next` hands them out in order.
 */
export class FrameQueue {
  private readonly groups: QueuedFrame[][] = [];
  private head = 0;
  private size = 0;
  private readonly onDrop: DropListener | undefined;

  constructor(options: { onDrop?: DropListener } = {}) {
    this.onDrop = options.onDrop;
  }

  /** Queues the frames of one batcher transaction included in L1 block `l1BlockNumber`. */
  push(frames: readonly Frame[], l1BlockNumber: bigint): void {
    const kept = pruneFrames(
      frames.map((frame) => ({ frame, l1BlockNumber })),
      this.onDrop,
    );
    if (kept.length === 0) return;
    this.groups.push(kept);
    this.size += kept.length;
  }

  /** The next frame, or undefined when the queue is empty. */
  next(): QueuedFrame | undefined {
    while (this.groups.length > 0) {
      const group = this.groups[0]!;
      if (this.head < group.length) {
        const item = group[this.head++]!;
        this.size--;
        if (this.head === group.length) {
          this.groups.shift();
          this.head = 0;
        }
        return item;
      }
      this.groups.shift();
      this.head = 0;
    }
    return undefined;
  }

  /** Frames waiting. */
  get length(): number {
    return this.size;
  }

  /** Forgets every queued frame (pipeline reset). */
  clear(): void {
    this.groups.length = 0;
    this.head = 0;
    this.size = 0;
  }
}
