/**
 * Batches as the channel carries them (derivation.md "Batch format"): a type byte, then the type's
 * encoding. 0x00 singular, 0x01 span; any other type is refused (dropped).
 */
import { ByteWriter, refuse } from "./bytes.js";
import { decodeSingularBatch, singularBatchSizeHint, writeSingularBatch } from "./singular.js";
import { decodeSpanBatch, spanBatchSizeHint, writeSpanBatch } from "./span.js";
import { type Batch, SINGULAR_BATCH_TYPE, SPAN_BATCH_TYPE } from "./types.js";

/**
 * Decodes one batch (type byte + payload). Refusals are DroppedInputError("batches") whose details name the
 * `field` and the `offset` of the offending byte in `bytes`.
 */
export function decodeBatch(bytes: Uint8Array): Batch {
  if (bytes.length === 0) refuse("batch.type", 0, "empty batch");
  const type = bytes[0]!;
  if (type === SINGULAR_BATCH_TYPE) return decodeSingularBatch(bytes.subarray(1), 1);
  if (type === SPAN_BATCH_TYPE) return decodeSpanBatch(bytes.subarray(1), 1);
  return refuse("batch.type", 0, `unknown batch type ${type}`, { batchType: type });
}

/** Encodes one batch: type byte + payload (BatchEncodeError when its parts disagree). */
export function encodeBatch(batch: Batch): Uint8Array {
  if (batch.type === "singular") {
    const w = new ByteWriter(1 + singularBatchSizeHint(batch));
    w.byte(SINGULAR_BATCH_TYPE);
    return writeSingularBatch(batch, w).finish();
  }
  const w = new ByteWriter(1 + spanBatchSizeHint(batch));
  w.byte(SPAN_BATCH_TYPE);
  return writeSpanBatch(batch, w).finish();
}
