/**
 * Derivation (library, rank 2; docs/derive.md): from L1 data to L2 payload attributes, pure (data comes in through
 * the provider interfaces).
 *
 * Public surface: `derive()` and the one "execute, else the deposit-only replacement" step its callers share
 * (`executeDerivedBlock`); the stages, each also usable alone: L1 traversal, retrieval (calldata and blobs, the blob
 * codec and KZG checks), frames, channels, batches (singular and span codecs, expansion, building), batch
 * validation, payload attributes (the L1 info deposit, system config, deposits); the provider interfaces and their
 * in-memory implementations; and the errors (`DeriveError` root).
 *
 * Concepts owned: the derivation pipeline and its rules (frames, channels, batches, validity windows, attributes).
 */

// Batches (src/derive/batches): singular and span batch codecs, span batch expansion and building.
export { decodeBatch, encodeBatch } from "./batches/batch.js";
export { BatchEncodeError } from "./batches/errors.js";
export {
  buildSpanBatch,
  SpanBatchBlockList,
  spanBatchBlocks,
  spanBatchEpochNumbers,
  spanBatchStartTimestamp,
  spanBatchToBlockBatches,
} from "./batches/expand.js";
export { decodeSingularBatch, encodeSingularBatch } from "./batches/singular.js";
export { decodeSpanBatch, encodeSpanBatch } from "./batches/span.js";
export { signedToSpanTx, spanTxToSigned, spanTxsToSigned } from "./batches/span-tx.js";
export {
  type Batch,
  type BlockBatch,
  type L1OriginHashResolver,
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  SINGULAR_BATCH_TYPE,
  SPAN_BATCH_TYPE,
  type SingularBatch,
  type SpanBatch,
  type SpanBatchBlock,
  type SpanBatchContext,
  type SpanBatchSourceBlock,
  type SpanBatchTransaction,
  type SpanBatchTxType,
} from "./batches/types.js";

// Frames and channels (src/derive/frames, src/derive/channel): batcher payloads, the Holocene frame queue and
// channel assembler, the lenient channel reader and the channel encoder.
export {
  CHANNEL_ID_LENGTH,
  DERIVATION_VERSION_0,
  type DropListener,
  FRAME_HEADER_OVERHEAD,
  type Frame,
  type FrameParseReason,
  type FramePruneReason,
  FrameQueue,
  MAX_FRAME_DATA_LENGTH,
  type QueuedFrame,
  channelToFrames,
  encodeFrame,
  encodeFrames,
  frameEncodedLength,
  parseFrames,
  pruneFrames,
} from "./frames/index.js";
export {
  CHANNEL_TIMEOUT_GRANITE,
  CHANNEL_VERSION_BROTLI,
  ChannelAssembler,
  type ChannelAssemblerOptions,
  type ChannelDropReason,
  type ChannelReadOptions,
  type ChannelReadResult,
  type ChannelStop,
  type CompressChannelOptions,
  type CompressionAlgo,
  FRAME_SIZE_OVERHEAD,
  MAX_RLP_BYTES_PER_CHANNEL,
  type ReadyChannel,
  channelCompression,
  compressChannel,
  decompressLenient,
  encodeBatchItems,
  readBatchItems,
  readChannel,
} from "./channel/index.js";

// Blobs and retrieval (src/derive/blob, src/derive/retrieval): the OP Stack blob codec, KZG verification of blobs,
// L1 transaction decoding with sender recovery, and an L1 block's batcher data (calldata and blobs).
export {
  BLOB_ENCODING_VERSION,
  BLOB_SIZE,
  FIELD_ELEMENTS_PER_BLOB,
  InvalidBlobError,
  type InvalidBlobReason,
  MAX_BLOB_DATA_SIZE,
  decodeBlob,
  encodeBlob,
} from "./blob/codec.js";
export {
  BlobMismatchError,
  KZG_COMMITMENT_SIZE,
  KZG_PROOF_SIZE,
  Kzg,
  VERIFIED_BLOBS_KEPT,
  VERSIONED_HASH_VERSION_KZG,
  blobCommitment,
  loadKzg,
  type ViemKzgAdapter,
  verifyBlob,
  versionedHash,
  viemKzg,
} from "./blob/kzg.js";
export { InvalidL1TransactionError, decodeL1Transaction } from "./retrieval/l1-transaction.js";
export { type RetrievalOptions, findBatcherData, retrieveBatcherData } from "./retrieval/retrieval.js";
export type { BatcherData, BatcherDataRef, BatcherFilter, L1Transaction } from "./retrieval/types.js";

// Attributes (src/derive/attributes): system config and its ConfigUpdate logs, user deposits, the L1 info deposit,
// the Isthmus/Jovian upgrade deposits, payload attributes.
export {
  CONFIG_UPDATE_TOPIC,
  ConfigUpdateType,
  DEFAULT_DA_FOOTPRINT_GAS_SCALAR,
  type BuildPayloadAttributesInput,
  type DerivedPayloadAttributes,
  type DerivedL1InfoFormat,
  type L1OriginInfo,
  type L2ParentInfo,
  type ReceiptLogs,
  SEQUENCER_FEE_VAULT,
  type SystemConfig,
  TRANSACTION_DEPOSITED_TOPIC,
  applyConfigUpdateLog,
  applyConfigUpdates,
  buildL1BlockInfo,
  buildPayloadAttributes,
  createAddress,
  decodeDepositLog,
  decodeL1InfoCalldata,
  decodeL1InfoDeposit,
  depositOnlyAttributes,
  deriveUserDeposits,
  eip1559ParamsOf,
  isUpgradeActivationBlock,
  isthmusUpgradeDeposits,
  isthmusUpgradeTransactions,
  jovianUpgradeDeposits,
  jovianUpgradeTransactions,
  l1InfoFormatAt,
  l1OriginFromHeader,
  systemConfigFromGenesis,
  systemConfigFromL2Block,
  upgradeToCalldata,
  upgradeTransactionsAt,
} from "./attributes/index.js";

// Errors (src/derive/errors.ts): every refusal names its stage and is data missing, dropped or critical.
export {
  CriticalDeriveError,
  DataMissingError,
  DeriveError,
  type DeriveErrorKind,
  type DeriveStage,
  DroppedInputError,
} from "./errors.js";

// Pipeline (types, providers, traversal, validation, batch stage, driver): docs/derive.md.
export {
  type BlockId,
  type DerivationConfig,
  type L1BlockRef,
  type L2BlockRef,
  MAX_SEQUENCER_DRIFT_FJORD,
  type SingularBatchData,
  derivationConfig,
} from "./types.js";
export type { BlobProvider, L1Provider, L2Block, L2Provider } from "./providers.js";
export {
  type MemoryL1Block,
  MemoryBlobProvider,
  MemoryL1Provider,
  MemoryL2Provider,
} from "./providers/memory.js";
export {
  type ConfigUpdater,
  type L1BlockData,
  L1Traversal,
  l1BlockRef,
  receiptsOf,
  verifiedHeader,
} from "./traversal/index.js";
export {
  type BatchValidity,
  type DropReason,
  type EmptyBatchDecision,
  type SafeBlock,
  type SafeChainReader,
  type SpanBatchView,
  type SpanBlock,
  type SpanBlockList,
  checkSingularBatch,
  checkSpanBatchOverlap,
  checkSpanBatchPrefix,
  deriveEmptyBatch,
  spanSingularBatches,
} from "./validation/index.js";
export { BatchSource, type SourceBatch } from "./pipeline/batch-source.js";
export { BatchStage, type BatchStageResult } from "./pipeline/batch-stage.js";
export {
  type DeriveInput,
  type DeriveResult,
  type DerivationInput,
  type DerivedBlock,
  type ExecutedBlock,
  Derivation,
  derive,
} from "./driver.js";
export { type ExecutedDerivedBlock, executeDerivedBlock } from "./execute-derived.js";
