/**
 * The Holocene channel assembler (docs/derive.md, "Channel assembler"): one staging channel at a time.
 * - Frame 0 always opens a new staging channel, replacing (dropping) the one being assembled.
 * - Any other frame must belong to the staging channel and carry the next frame number; otherwise it is
 *   dropped (with no staging channel, every non-first frame is dropped).
 * - The staging channel is dropped when it has timed out: opened in L1 block `open`, it is dropped as soon
 *   as the current L1 block is past `open + channelTimeout` (50 blocks since Granite).
 * - It is dropped when its size (the sum of data_len + 200 over its frames) exceeds
 *   MAX_RLP_BYTES_PER_CHANNEL.
 * - The frame marked is_last completes it: its frames' data, concatenated, are the compressed channel.
 */
import { DroppedInputError } from "../errors.js";
import { bytesEqual, toHexRaw } from "../../chain/index.js";
import type { Frame } from "../frames/frame.js";
import type { DropListener } from "../frames/frame-queue.js";

/** Channel timeout in L1 blocks since Granite (every chain derivation supports is past Holocene). */
export const CHANNEL_TIMEOUT_GRANITE = 50n;
/** Fjord and later: the most bytes a channel may hold (compressed, with frame overhead) and decompress to. */
export const MAX_RLP_BYTES_PER_CHANNEL = 100_000_000;
/** What each frame adds to a channel's size besides its data. */
export const FRAME_SIZE_OVERHEAD = 200;

/** A complete channel, ready for the channel reader. */
export interface ReadyChannel {
  readonly channelId: Uint8Array;
  /** The compressed channel: the frames' data in order (for a one-frame channel, that frame's data itself). */
  readonly data: Uint8Array;
  /** L1 block of the transaction that carried frame 0. */
  readonly openBlockNumber: bigint;
  /** L1 block of the transaction that carried the last frame. */
  readonly closeBlockNumber: bigint;
}

export type ChannelDropReason =
  | "no-staging-channel"
  | "wrong-channel"
  | "frame-out-of-order"
  | "channel-replaced"
  | "channel-timed-out"
  | "channel-too-large";

export interface ChannelAssemblerOptions {
  /** Defaults to CHANNEL_TIMEOUT_GRANITE. */
  readonly channelTimeout?: bigint;
  /** Defaults to MAX_RLP_BYTES_PER_CHANNEL. */
  readonly maxChannelSize?: number;
  /** Told of every frame or channel dropped (DroppedInputError, stage "channel"). */
  readonly onDrop?: DropListener;
}

interface Staging {
  readonly channelId: Uint8Array;
  readonly openBlockNumber: bigint;
  readonly parts: Uint8Array[];
  size: number;
  dataLength: number;
}

export class ChannelAssembler {
  private staging: Staging | undefined;
  private readonly channelTimeout: bigint;
  private readonly maxChannelSize: number;
  private readonly onDrop: DropListener | undefined;

  constructor(options: ChannelAssemblerOptions = {}) {
    this.channelTimeout = options.channelTimeout ?? CHANNEL_TIMEOUT_GRANITE;
    this.maxChannelSize = options.maxChannelSize ?? MAX_RLP_BYTES_PER_CHANNEL;
    this.onDrop = options.onDrop;
  }

  private drop(reason: ChannelDropReason, message: string, details: Record<string, unknown>): void {
    this.onDrop?.(new DroppedInputError("channel", message, { reason, ...details }));
  }

  /**
   * Drops the staging channel if it has timed out at L1 block `l1BlockNumber` (the pipeline's current L1
   * origin). `addFrame` calls it first; call it on its own when the origin advances without frames.
   */
  checkTimeout(l1BlockNumber: bigint): void {
    const s = this.staging;
    if (s !== undefined && s.openBlockNumber + this.channelTimeout < l1BlockNumber) {
      this.staging = undefined;
      this.drop("channel-timed-out", `channel ${toHexRaw(s.channelId)} timed out`, {
        channelId: s.channelId,
        openBlockNumber: s.openBlockNumber,
        l1BlockNumber,
      });
    }
  }

  /**
   * Adds a frame from a transaction of L1 block `l1BlockNumber`; returns the channel it completes, if any.
   */
  addFrame(frame: Frame, l1BlockNumber: bigint): ReadyChannel | undefined {
    this.checkTimeout(l1BlockNumber);
    if (frame.number === 0) {
      const old = this.staging;
      if (old !== undefined) {
        this.drop("channel-replaced", `channel ${toHexRaw(old.channelId)} replaced by a new frame 0`, {
          channelId: old.channelId,
          by: frame.channelId,
        });
      }
      this.staging = {
        channelId: frame.channelId,
        openBlockNumber: l1BlockNumber,
        parts: [],
        size: 0,
        dataLength: 0,
      };
    }
    const s = this.staging;
    if (s === undefined) {
      this.drop("no-staging-channel", `frame ${frame.number} dropped: no channel is being assembled`, {
        channelId: frame.channelId,
        frameNumber: frame.number,
      });
      return undefined;
    }
    if (!bytesEqual(s.channelId, frame.channelId)) {
      this.drop("wrong-channel", `frame ${frame.number} of another channel than the one being assembled`, {
        channelId: frame.channelId,
        frameNumber: frame.number,
        stagingChannelId: s.channelId,
      });
      return undefined;
    }
    if (frame.number !== s.parts.length) {
      this.drop("frame-out-of-order", `frame ${frame.number} where frame ${s.parts.length} was expected`, {
        channelId: frame.channelId,
        frameNumber: frame.number,
        expected: s.parts.length,
      });
      return undefined;
    }
    s.parts.push(frame.data);
    s.size += frame.data.length + FRAME_SIZE_OVERHEAD;
    s.dataLength += frame.data.length;
    if (s.size > this.maxChannelSize) {
      this.staging = undefined;
      this.drop(
        "channel-too-large",
        `channel ${toHexRaw(s.channelId)} exceeds ${this.maxChannelSize} bytes`,
        {
          channelId: s.channelId,
          size: s.size,
        },
      );
      return undefined;
    }
    if (!frame.isLast) return undefined;
    this.staging = undefined;
    let data: Uint8Array;
    if (s.parts.length === 1) {
      data = s.parts[0]!; // a one-frame channel: its frame's data, no copy
    } else {
      data = new Uint8Array(s.dataLength);
      let pos = 0;
      for (const part of s.parts) {
        data.set(part, pos);
        pos += part.length;
      }
    }
    return {
      channelId: s.channelId,
      data,
      openBlockNumber: s.openBlockNumber,
      closeBlockNumber: l1BlockNumber,
    };
  }

  /** The channel being assembled, if any (id, open block, frames so far, size). */
  get stagingChannel():
    { channelId: Uint8Array; openBlockNumber: bigint; frameCount: number; size: number } | undefined {
    const s = this.staging;
    return (
      s && {
        channelId: s.channelId,
        openBlockNumber: s.openBlockNumber,
        frameCount: s.parts.length,
        size: s.size,
      }
    );
  }

  /** Drops the staging channel without reporting it (pipeline reset). */
  reset(): void {
    this.staging = undefined;
  }
}
