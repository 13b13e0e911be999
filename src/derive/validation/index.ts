/** Batch validation (Holocene batch queue rules): singular batches, span batch prefix and overlap checks, empty batches. */
export { ACCEPT, type BatchValidity, type DropReason, PAST, drop, undecided } from "./validity.js";
export {
  checkBatchTimestamp,
  checkBatchTransactions,
  checkSequencerDrift,
  checkSingularBatch,
} from "./singular.js";
export {
  type SafeBlock,
  type SafeChainReader,
  type SpanBatchView,
  type SpanBlock,
  type SpanBlockList,
  type SpanPrefixResult,
  checkSpanBatchOverlap,
  checkSpanBatchPrefix,
  spanSingularBatches,
} from "./span.js";
export { type EmptyBatchDecision, deriveEmptyBatch } from "./empty.js";
