/** The Holocene channel assembler, the channel reader (lenient decompression) and the channel encoder. */
export {
  CHANNEL_TIMEOUT_GRANITE,
  ChannelAssembler,
  type ChannelAssemblerOptions,
  type ChannelDropReason,
  FRAME_SIZE_OVERHEAD,
  MAX_RLP_BYTES_PER_CHANNEL,
  type ReadyChannel,
} from "./assembler.js";
export {
  CHANNEL_VERSION_BROTLI,
  type ChannelReadOptions,
  type ChannelReadResult,
  type ChannelStop,
  type CompressionAlgo,
  channelCompression,
  decompressLenient,
  readBatchItems,
  readChannel,
} from "./reader.js";
export { type CompressChannelOptions, compressChannel, encodeBatchItems } from "./encoder.js";
