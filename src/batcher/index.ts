/** The batcher service: public API (docs/batcher.md). */
export {
  Batcher,
  type BatcherDeps,
  type BatcherSettings,
  type DataAvailability,
  MAX_BLOBS_PER_TX,
  MAX_BLOB_FRAME_BYTES,
  MAX_CALLDATA_TX_BYTES,
  channelShape,
  channelTransactions,
} from "./batcher.js";
export {
  type BuiltChannel,
  type ChannelShape,
  FullnessTracker,
  buildChannel,
  channelCapacity,
  compressBlocks,
  encodeSpanBatches,
  spanRuns,
} from "./channel-builder.js";
export {
  BATCHER_USAGE,
  type BatcherConfig,
  type ParsedCommandLine,
  parseBatcherCommandLine,
} from "./config.js";
export {
  BatcherConfigError,
  BatcherError,
  type BatcherErrorKind,
  ChannelTimedOutError,
  ChannelTooLargeError,
  L1ReadError,
  L1ReorgError,
  L2ReadError,
  L2ReorgError,
  PostedChainMismatchError,
  TransactionFailedError,
} from "./errors.js";
export { type BatcherTxData, L1PostedReader, type PostedChannel, channelBlocks } from "./l1-posted.js";
export { type JsonRpcRequest, type L2BlockData, L2BlockReader } from "./l2-source.js";
export { BatcherMetrics } from "./metrics.js";
export { type RunningBatcher, startBatcher, viemKzg } from "./service.js";
export { type TxCandidate, TxSender } from "./tx-sender.js";
