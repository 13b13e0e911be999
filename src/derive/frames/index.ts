/** Frames and the Holocene frame queue (docs/derive.md). */
export {
  CHANNEL_ID_LENGTH,
  DERIVATION_VERSION_0,
  FRAME_HEADER_OVERHEAD,
  type Frame,
  type FrameParseReason,
  MAX_FRAME_DATA_LENGTH,
  channelToFrames,
  encodeFrame,
  encodeFrames,
  frameEncodedLength,
  parseFrames,
} from "./frame.js";
export {
  type DropListener,
  type FramePruneReason,
  FrameQueue,
  type QueuedFrame,
  pruneFrames,
} from "./frame-queue.js";
