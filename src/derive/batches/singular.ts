/**
 * Singular batches (type 0x00): `rlp([parent_hash, epoch_number, epoch_hash, timestamp, [tx, ...]])`.
 * Decoding is strict RLP (canonical integers and lengths, 32-byte hashes, u64 numbers, exactly five fields,
 * byte-string transactions) like op-node's and kona's; bytes after the list are ignored as both do.
 */
import {
  ByteWriter,
  U64_MAX,
  bigToMinimalBytes,
  bytesToBig,
  newItem,
  readFixedItem,
  readList,
  readString,
  readUintItem,
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
  const it = newItem();
  const outer = readList(data, 0, data.length, "singular.batch", base, it);
  const end = outer.end;
  let pos = outer.start;

  readFixedItem(data, pos, end, "singular.parent_hash", base, 32, it);
  const parentHash = data.slice(it.start, it.end);
  pos = it.next;

  readUintItem(data, pos, end, "singular.epoch_number", base, 8, it);
  const epochNumber = bytesToBig(data, it.start, it.end);
  pos = it.next;

  readFixedItem(data, pos, end, "singular.epoch_hash", base, 32, it);
  const epochHash = data.slice(it.start, it.end);
  pos = it.next;

  readUintItem(data, pos, end, "singular.timestamp", base, 8, it);
  const timestamp = bytesToBig(data, it.start, it.end);
  pos = it.next;

  readList(data, pos, end, "singular.transactions", base, it);
  const txEnd = it.end;
  let txPos = it.start;
  pos = it.next;
  const transactions: Uint8Array[] = [];
  while (txPos < txEnd) {
    readString(data, txPos, txEnd, "singular.transactions", base, it);
    transactions.push(data.slice(it.start, it.end));
    txPos = it.next;
  }
  if (pos !== end) refuse("singular.batch", base + pos, "more than five fields in the batch list");
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
