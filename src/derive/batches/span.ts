/**
 * Span batches (type 0x01, delta/span-batches.md; Fjord limits; Isthmus type-4 transactions):
 *   prefix  = rel_timestamp ++ l1_origin_num ++ parent_check ++ l1_origin_check
 *   payload = block_count ++ origin_bits ++ block_tx_counts ++ txs
 *   txs     = contract_creation_bits ++ y_parity_bits ++ tx_sigs ++ tx_tos ++ tx_datas ++ tx_nonces ++ tx_gases
 *             ++ protected_bits
 * Decoding refuses every malformed or non-canonical form (so the decoded batch re-encodes to the bytes it came
 * from) and checks the element limits and the input length before allocating. Bytes after the batch are
 * ignored, as op-node and kona do.
 */
import { ByteWriter, type Cursor, U64_MAX, readBits, readUvarint, refuse } from "./bytes.js";
import { BatchEncodeError } from "./errors.js";
import { readTxData } from "./span-tx.js";
import { MAX_SPAN_BATCH_ELEMENT_COUNT, type SpanBatch, type SpanBatchTransaction } from "./types.js";

/**
 * Decodes a span batch (the bytes after the type byte). `base` is the offset of `data[0]` in the caller's
 * input, used in error details.
 */
export function decodeSpanBatch(data: Uint8Array, base = 0): SpanBatch {
  const end = data.length;
  const cur: Cursor = { pos: 0 };
  const relTimestamp = readUvarint(data, cur, end, "span.rel_timestamp", base);
  const l1OriginNumber = readUvarint(data, cur, end, "span.l1_origin_num", base);
  if (end - cur.pos < 20) refuse("span.parent_check", base + cur.pos, "truncated");
  const parentCheck = data.slice(cur.pos, cur.pos + 20);
  cur.pos += 20;
  if (end - cur.pos < 20) refuse("span.l1_origin_check", base + cur.pos, "truncated");
  const l1OriginCheck = data.slice(cur.pos, cur.pos + 20);
  cur.pos += 20;

  const countAt = cur.pos;
  const count = readUvarint(data, cur, end, "span.block_count", base);
  if (count === 0n) refuse("span.block_count", base + countAt, "empty span batch");
  if (count > BigInt(MAX_SPAN_BATCH_ELEMENT_COUNT))
    refuse("span.block_count", base + countAt, "too many blocks", {
      count,
      max: MAX_SPAN_BATCH_ELEMENT_COUNT,
    });
  const blockCount = Number(count);
  const originBits = readBits(data, cur, end, blockCount, "span.origin_bits", base);

  // Each count takes at least one byte: check the input holds them before allocating.
  if (end - cur.pos < blockCount) refuse("span.block_tx_counts", base + cur.pos, "truncated");
  const blockTxCounts = new Array<number>(blockCount);
  let total = 0;
  for (let i = 0; i < blockCount; i++) {
    const at = cur.pos;
    const n = readUvarint(data, cur, end, "span.block_tx_counts", base);
    if (n > BigInt(MAX_SPAN_BATCH_ELEMENT_COUNT))
      refuse("span.block_tx_counts", base + at, "too many transactions in a block", { block: i, count: n });
    blockTxCounts[i] = Number(n);
    total += Number(n);
    if (total > MAX_SPAN_BATCH_ELEMENT_COUNT)
      refuse("span.block_tx_counts", base + at, "too many transactions", {
        max: MAX_SPAN_BATCH_ELEMENT_COUNT,
      });
  }

  // Signatures alone need 64 bytes per transaction, the two bitlists a bit each.
  if ((end - cur.pos - 2 * Math.ceil(total / 8)) / 64 < total)
    refuse("span.txs", base + cur.pos, "too short for its transaction count", { transactions: total });
  const creationAt = cur.pos;
  const creationBits = readBits(data, cur, end, total, "span.contract_creation_bits", base);
  const parityBits = readBits(data, cur, end, total, "span.y_parity_bits", base);
  const sigAt = cur.pos;
  cur.pos += 64 * total;
  let creations = 0;
  for (let i = 0; i < total; i++) creations += creationBits[i]!;
  const tosAt = cur.pos;
  if ((end - cur.pos) / 20 < total - creations) refuse("span.tx_tos", base + cur.pos, "truncated");
  cur.pos += 20 * (total - creations);

  const types = new Uint8Array(total);
  const datas = new Array<Uint8Array>(total);
  let legacy = 0;
  for (let i = 0; i < total; i++) {
    const [type, next] = readTxData(data, cur.pos, end, base);
    types[i] = type;
    datas[i] = data.slice(cur.pos, next);
    if (type === 0) legacy++;
    cur.pos = next;
  }
  const nonces = new Array<bigint>(total);
  for (let i = 0; i < total; i++) nonces[i] = readUvarint(data, cur, end, "span.tx_nonces", base);
  const gases = new Array<bigint>(total);
  for (let i = 0; i < total; i++) gases[i] = readUvarint(data, cur, end, "span.tx_gases", base);
  const protectedBits = readBits(data, cur, end, legacy, "span.protected_bits", base);

  const transactions = new Array<SpanBatchTransaction>(total);
  let toAt = tosAt;
  let legacyIndex = 0;
  for (let i = 0; i < total; i++) {
    const type = types[i] as SpanBatchTransaction["type"];
    let to: Uint8Array | null = null;
    if (creationBits[i] === 0) {
      to = data.slice(toAt, toAt + 20);
      toAt += 20;
    } else if (type === 4) {
      refuse(
        "span.contract_creation_bits",
        base + creationAt,
        "a type 4 transaction cannot create a contract",
        { tx: i },
      );
    }
    const sig = sigAt + 64 * i;
    transactions[i] = {
      type,
      nonce: nonces[i]!,
      gasLimit: gases[i]!,
      to,
      r: data.slice(sig, sig + 32),
      s: data.slice(sig + 32, sig + 64),
      yParity: parityBits[i] as 0 | 1,
      protected: type === 0 ? protectedBits[legacyIndex++] === 1 : true,
      data: datas[i]!,
    };
  }
  return {
    type: "span",
    relTimestamp,
    l1OriginNumber,
    parentCheck,
    l1OriginCheck,
    originBits,
    blockTxCounts,
    transactions,
  };
}

/** Encodes a span batch (without the type byte), checking that its parts agree. */
export function encodeSpanBatch(batch: SpanBatch): Uint8Array {
  return writeSpanBatch(batch, new ByteWriter(spanBatchSizeHint(batch))).finish();
}

/** An upper estimate of a span batch's encoded size (so the writer rarely grows). */
export function spanBatchSizeHint(batch: SpanBatch): number {
  let size = 128 + 11 * batch.blockTxCounts.length;
  for (const tx of batch.transactions) size += 106 + tx.data.length;
  return size;
}

/** Appends a span batch's encoding to `w`. */
export function writeSpanBatch(batch: SpanBatch, w: ByteWriter): ByteWriter {
  const n = batch.originBits.length;
  if (n === 0) throw new BatchEncodeError("originBits", "a span batch has at least one block");
  if (n > MAX_SPAN_BATCH_ELEMENT_COUNT)
    throw new BatchEncodeError("originBits", "too many blocks", { blocks: n });
  if (batch.blockTxCounts.length !== n)
    throw new BatchEncodeError("blockTxCounts", "must have one entry per block", { blocks: n });
  let total = 0;
  for (const c of batch.blockTxCounts) {
    if (!Number.isSafeInteger(c) || c < 0)
      throw new BatchEncodeError("blockTxCounts", "invalid count", { count: c });
    total += c;
  }
  const txs = batch.transactions;
  if (total !== txs.length)
    throw new BatchEncodeError("blockTxCounts", "counts do not add up to the transactions", {
      total,
      txs: txs.length,
    });
  if (total > MAX_SPAN_BATCH_ELEMENT_COUNT)
    throw new BatchEncodeError("transactions", "too many transactions");
  if (batch.parentCheck.length !== 20) throw new BatchEncodeError("parentCheck", "must be 20 bytes");
  if (batch.l1OriginCheck.length !== 20) throw new BatchEncodeError("l1OriginCheck", "must be 20 bytes");
  checkU64(batch.relTimestamp, "relTimestamp");
  checkU64(batch.l1OriginNumber, "l1OriginNumber");
  for (let i = 0; i < n; i++)
    if (batch.originBits[i]! > 1)
      throw new BatchEncodeError("originBits", "entries must be 0 or 1", { block: i });
  for (let i = 0; i < total; i++) checkTx(txs[i]!, i);

  w.uvarint(batch.relTimestamp);
  w.uvarint(batch.l1OriginNumber);
  w.bytes(batch.parentCheck);
  w.bytes(batch.l1OriginCheck);
  w.uvarint(n);
  w.bits(batch.originBits);
  for (const c of batch.blockTxCounts) w.uvarint(c);
  const bits = new Uint8Array(total);
  for (let i = 0; i < total; i++) bits[i] = txs[i]!.to === null ? 1 : 0;
  w.bits(bits);
  for (let i = 0; i < total; i++) bits[i] = txs[i]!.yParity;
  w.bits(bits);
  for (const tx of txs) {
    w.bytes(tx.r);
    w.bytes(tx.s);
  }
  for (const tx of txs) if (tx.to !== null) w.bytes(tx.to);
  for (const tx of txs) w.bytes(tx.data);
  for (const tx of txs) w.uvarint(tx.nonce);
  for (const tx of txs) w.uvarint(tx.gasLimit);
  const protectedBits: number[] = [];
  for (const tx of txs) if (tx.type === 0) protectedBits.push(tx.protected ? 1 : 0);
  w.bits(protectedBits);
  return w;
}

function checkU64(value: bigint, field: string, details?: Record<string, unknown>): void {
  if (value < 0n || value > U64_MAX) throw new BatchEncodeError(field, "must be a u64", details);
}

function checkTx(tx: SpanBatchTransaction, i: number): void {
  const at = { tx: i };
  checkU64(tx.nonce, "transactions.nonce", at);
  checkU64(tx.gasLimit, "transactions.gasLimit", at);
  if (tx.r.length !== 32 || tx.s.length !== 32)
    throw new BatchEncodeError("transactions.signature", "r and s are 32 bytes", at);
  if (tx.yParity !== 0 && tx.yParity !== 1)
    throw new BatchEncodeError("transactions.yParity", "must be 0 or 1", at);
  if (tx.to !== null && tx.to.length !== 20)
    throw new BatchEncodeError("transactions.to", "must be 20 bytes", at);
  if (tx.type === 4 && tx.to === null)
    throw new BatchEncodeError("transactions.to", "a type 4 transaction cannot create a contract", at);
  let type: number, end: number;
  try {
    [type, end] = readTxData(tx.data, 0, tx.data.length, 0);
  } catch (e) {
    throw new BatchEncodeError("transactions.data", (e as Error).message, at);
  }
  if (type !== tx.type || end !== tx.data.length)
    throw new BatchEncodeError(
      "transactions.data",
      "does not match the transaction type or has extra bytes",
      at,
    );
}
