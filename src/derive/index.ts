/** Derivation library: public API (docs/derive.md). */

// Batches (src/derive/batches): singular and span batch codecs, span batch expansion and building.
export { decodeBatch, encodeBatch } from "./batches/batch.js";
export { BatchEncodeError } from "./batches/errors.js";
export {
  buildSpanBatch,
  spanBatchBlocks,
  spanBatchEpochNumbers,
  spanBatchStartTimestamp,
  spanBatchToBlockBatches,
} from "./batches/expand.js";
export { decodeSingularBatch, encodeSingularBatch } from "./batches/singular.js";
export { decodeSpanBatch, encodeSpanBatch } from "./batches/span.js";
export { signedToSpanTx, spanTxToSigned } from "./batches/span-tx.js";
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
