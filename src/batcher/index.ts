/**
 * The batcher (service; docs/batcher.md): posts sealed L2 blocks to L1 as span batches in channels, by blobs or
 * calldata. The process is src/batcher/main.ts.
 *
 * Public surface: the `Batcher` loop and its settings, channel building (`buildChannel`, `channelCapacity`,
 * `compressBlocks`, `encodeSpanBatches`, `FullnessTracker`), its command line (`parseBatcherCommandLine`,
 * `BATCHER_USAGE`), reading back what L1 holds, the L2 block source, the transaction sender, its metrics, the
 * in-process service start, and the errors (`BatcherError` root).
 *
 * Concepts owned: the channel (what a batch transaction carries), resuming from what L1 holds, the batcher's
 * transaction fees and replacement.
 */
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
