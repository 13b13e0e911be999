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
  VERSIONED_HASH_VERSION_KZG,
  blobCommitment,
  loadKzg,
  verifyBlob,
  versionedHash,
} from "./blob/kzg.js";
export { InvalidL1TransactionError, decodeL1Transaction } from "./retrieval/l1-transaction.js";
export { type RetrievalOptions, findBatcherData, retrieveBatcherData } from "./retrieval/retrieval.js";
export type { BatcherData, BatcherDataRef, BatcherFilter, L1Transaction } from "./retrieval/types.js";
