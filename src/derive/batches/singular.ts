/**
 * Singular batches (type 0x00): `rlp([parent_hash, epoch_number, epoch_hash, timestamp, [tx, ...]])`.
 * Decoding is strict RLP (canonical integers and lengths, 32-byte hashes, u64 numbers, exactly five fields,
 * byte-string transactions) like op-node's and kona's; bytes after the list are ignored as both do.
 */
import {
  ByteWriter,
  U64_MAX,
  bigToMinimalBytes,
  RlpReader,
  refuse,
  rlpHeaderSize,
  rlpStringSize,
} from "./bytes.js";
import { BatchEncodeError } from "./errors.js";
import type { SingularBatch } from "./types.js";

/**
 * Decodes a singular batch's RLP (the bytes after the type byte). `base` is the offset of `data[0]` in the
 * caller's input, used in error details.
 */
export function decodeSingularBatch(data: Uint8Array, base = 0): SingularBatch {
  const r = new RlpReader(data, base);
  const end = r.list(0, data.length, "singular.batch").end;
  let pos = r.start;
  r.fixed(pos, end, "singular.parent_hash", 32);
  const parentHash = data.slice(r.start, r.end);
  const epochNumber = r.uint(r.next, end, "singular.epoch_number", 8).value();
  r.fixed(r.next, end, "singular.epoch_hash", 32);
  const epochHash = data.slice(r.start, r.end);
  const timestamp = r.uint(r.next, end, "singular.timestamp", 8).value();
  r.list(r.next, end, "singular.transactions");
  const txEnd = r.end;
  const after = r.next;
  const transactions: Uint8Array[] = [];
  for (pos = r.start; pos < txEnd; pos = r.next) {
    r.string(pos, txEnd, "singular.transactions");
    transactions.push(data.slice(r.start, r.end));
  }
  if (after !== end) refuse("singular.batch", base + after, "more than five fields in the batch list");
  return { type: "singular", parentHash, epochNumber, epochHash, timestamp, transactions };
}

/** Encodes a singular batch's RLP (without the type byte). */
export function encodeSingularBatch(batch: SingularBatch): Uint8Array {
  return writeSingularBatch(batch, new ByteWriter(singularBatchSizeHint(batch))).finish();
}

/** An upper estimate of a singular batch's encoded size. */
export function singularBatchSizeHint(batch: SingularBatch): number {
  let size = 128;
  for (const tx of batch.transactions) size += 5 + tx.length;
  return size;
}

/** Appends a singular batch's RLP to `w`. */
export function writeSingularBatch(batch: SingularBatch, w: ByteWriter): ByteWriter {
  if (batch.parentHash.length !== 32) throw new BatchEncodeError("parentHash", "must be 32 bytes");
  if (batch.epochHash.length !== 32) throw new BatchEncodeError("epochHash", "must be 32 bytes");
  const epoch = uintBytes(batch.epochNumber, "epochNumber");
  const ts = uintBytes(batch.timestamp, "timestamp");
  let txsLen = 0;
  for (const tx of batch.transactions) txsLen += rlpStringSize(tx);
  const payloadLen = 33 + rlpStringSize(epoch) + 33 + rlpStringSize(ts) + rlpHeaderSize(txsLen) + txsLen;
  w.rlpHeader(payloadLen, true);
  w.rlpString(batch.parentHash);
  w.rlpString(epoch);
  w.rlpString(batch.epochHash);
  w.rlpString(ts);
  w.rlpHeader(txsLen, true);
  for (const tx of batch.transactions) w.rlpString(tx);
  return w;
}

function uintBytes(value: bigint, field: string): Uint8Array {
  if (value < 0n || value > U64_MAX) throw new BatchEncodeError(field, "must be a u64", { value });
  return bigToMinimalBytes(value);
}
