/**
 * Span-batch transactions: checking a `tx_datas` element, rebuilding the signed EIP-2718 transaction from a
 * span-batch transaction and the chain ID, and the reverse (a signed transaction to its span-batch form).
 *
 * `tx_datas` elements (delta/span-batches.md, isthmus/derivation.md):
 *   legacy  rlp([value, gas_price, data])
 *   0x01 ++ rlp([value, gas_price, data, access_list])
 *   0x02 ++ rlp([value, max_priority_fee_per_gas, max_fee_per_gas, data, access_list])
 *   0x04 ++ rlp([value, max_priority_fee_per_gas, max_fee_per_gas, data, access_list, authorization_list])
 * Every field is decoded strictly (canonical RLP, exact field counts, quantities of at most 32 bytes,
 * 20-byte addresses, 32-byte storage keys), so a transaction rebuilt from a decoded batch re-encodes to the
 * same bytes. Fee fields keep their exact bytes (kona narrows legacy gas_price to 128 bits; op-node does not).
 */
import {
  ByteWriter,
  type RlpItem,
  U64_MAX,
  bigToMinimalBytes,
  bytesToBig,
  newItem,
  readFixedItem,
  readItem,
  readList,
  readString,
  readUintItem,
  refuse,
  rlpHeaderSize,
  rlpStringSize,
  stripLeadingZeros,
} from "./bytes.js";
import { BatchEncodeError } from "./errors.js";
import type { SpanBatchTransaction, SpanBatchTxType } from "./types.js";

/** Field count of each type's `tx_datas` list. */
const FIELD_COUNT: Record<SpanBatchTxType, number> = { 0: 3, 1: 4, 2: 5, 4: 6 };

/**
 * Checks the `tx_datas` element at `pos` and returns its type and end offset. `base` is added to error
 * offsets. Unknown types (including 3, blob transactions) are refused.
 */
export function readTxData(
  buf: Uint8Array,
  pos: number,
  limit: number,
  base: number,
): [SpanBatchTxType, number] {
  const field = "span.tx_datas";
  if (pos >= limit) refuse(field, base + pos, "unexpected end of data");
  const first = buf[pos]!;
  let type: SpanBatchTxType;
  let listPos = pos;
  if (first <= 0x7f) {
    if (first !== 1 && first !== 2 && first !== 4)
      refuse(field, base + pos, `unsupported transaction type ${first}`);
    type = first;
    listPos = pos + 1;
  } else type = 0;
  const it = newItem();
  readList(buf, listPos, limit, field, base, it);
  const end = it.end;
  let p = it.start;
  // value
  p = readUintItem(buf, p, end, "span.tx.value", base, 32, it).next;
  if (type === 0 || type === 1) {
    p = readUintItem(buf, p, end, "span.tx.gas_price", base, 32, it).next;
  } else {
    p = readUintItem(buf, p, end, "span.tx.max_priority_fee_per_gas", base, 32, it).next;
    p = readUintItem(buf, p, end, "span.tx.max_fee_per_gas", base, 32, it).next;
  }
  p = readString(buf, p, end, "span.tx.data", base, it).next;
  if (type !== 0) p = checkAccessList(buf, p, end, base, it);
  if (type === 4) p = checkAuthorizationList(buf, p, end, base, it);
  if (p !== end)
    refuse(field, base + p, `more than ${FIELD_COUNT[type]} fields in a type ${type} transaction`);
  return [type, end];
}

function checkAccessList(buf: Uint8Array, pos: number, limit: number, base: number, it: RlpItem): number {
  const field = "span.tx.access_list";
  readList(buf, pos, limit, field, base, it);
  const next = it.next;
  const end = it.end;
  let p = it.start;
  while (p < end) {
    readList(buf, p, end, field, base, it);
    const tupleEnd = it.end;
    const tupleNext = it.next;
    let q = readFixedItem(buf, it.start, tupleEnd, field, base, 20, it).next;
    readList(buf, q, tupleEnd, field, base, it);
    const keysEnd = it.end;
    q = it.next;
    let k = it.start;
    while (k < keysEnd) k = readFixedItem(buf, k, keysEnd, field, base, 32, it).next;
    if (q !== tupleEnd) refuse(field, base + q, "access list entry has more than two fields");
    p = tupleNext;
  }
  return next;
}

function checkAuthorizationList(
  buf: Uint8Array,
  pos: number,
  limit: number,
  base: number,
  it: RlpItem,
): number {
  const field = "span.tx.authorization_list";
  readList(buf, pos, limit, field, base, it);
  const next = it.next;
  const end = it.end;
  let p = it.start;
  while (p < end) {
    readList(buf, p, end, field, base, it);
    const tupleEnd = it.end;
    const tupleNext = it.next;
    let q = readUintItem(buf, it.start, tupleEnd, field, base, 32, it).next; // chain_id
    q = readFixedItem(buf, q, tupleEnd, field, base, 20, it).next; // address
    q = readUintItem(buf, q, tupleEnd, field, base, 8, it).next; // nonce
    q = readUintItem(buf, q, tupleEnd, field, base, 1, it).next; // y_parity
    q = readUintItem(buf, q, tupleEnd, field, base, 32, it).next; // r
    q = readUintItem(buf, q, tupleEnd, field, base, 32, it).next; // s
    if (q !== tupleEnd) refuse(field, base + q, "authorization has more than six fields");
    p = tupleNext;
  }
  return next;
}

/** The encoded fields (header included) of a checked `tx_datas` element, as [start, end) pairs. */
function txDataFields(data: Uint8Array): number[] {
  const it = newItem();
  const listPos = data[0]! <= 0x7f ? 1 : 0;
  readItem(data, listPos, data.length, "span.tx_datas", 0, it);
  const out: number[] = [];
  let p = it.start;
  const end = it.end;
  while (p < end) {
    readItem(data, p, end, "span.tx_datas", 0, it);
    out.push(p, it.next);
    p = it.next;
  }
  return out;
}

/**
 * The signed EIP-2718 bytes of a span-batch transaction on chain `chainId`: v = yParity for typed
 * transactions, 27 + yParity for unprotected legacy ones, chainId * 2 + 35 + yParity for EIP-155 ones.
 * `tx.data` must be a checked `tx_datas` element (as decodeBatch yields).
 */
export function spanTxToSigned(tx: SpanBatchTransaction, chainId: bigint): Uint8Array {
  const d = tx.data;
  const f = txDataFields(d);
  const part = (i: number): Uint8Array => d.subarray(f[2 * i]!, f[2 * i + 1]!);
  const nonce = bigToMinimalBytes(tx.nonce);
  const gas = bigToMinimalBytes(tx.gasLimit);
  const to = tx.to ?? EMPTY;
  const r = stripLeadingZeros(tx.r);
  const s = stripLeadingZeros(tx.s);
  let v: Uint8Array;
  if (tx.type !== 0) v = tx.yParity ? ONE : EMPTY;
  else
    v = bigToMinimalBytes(tx.protected ? chainId * 2n + 35n + BigInt(tx.yParity) : 27n + BigInt(tx.yParity));
  const chain = bigToMinimalBytes(chainId);

  // Field order of the signed transaction, as raw encodings or byte strings to encode.
  const items: (Uint8Array | { raw: Uint8Array })[] = [];
  const raw = (i: number) => ({ raw: part(i) });
  switch (tx.type) {
    case 0: // [nonce, gas_price, gas, to, value, data, v, r, s]
      items.push(nonce, raw(1), gas, to, raw(0), raw(2), v, r, s);
      break;
    case 1: // [chain_id, nonce, gas_price, gas, to, value, data, access_list, y_parity, r, s]
      items.push(chain, nonce, raw(1), gas, to, raw(0), raw(2), raw(3), v, r, s);
      break;
    case 2: // [chain_id, nonce, max_priority_fee, max_fee, gas, to, value, data, access_list, y_parity, r, s]
      items.push(chain, nonce, raw(1), raw(2), gas, to, raw(0), raw(3), raw(4), v, r, s);
      break;
    case 4: // as type 2 with authorization_list after access_list
      items.push(chain, nonce, raw(1), raw(2), gas, to, raw(0), raw(3), raw(4), raw(5), v, r, s);
      break;
  }
  let payload = 0;
  for (const item of items) payload += item instanceof Uint8Array ? rlpStringSize(item) : item.raw.length;
  const total = (tx.type === 0 ? 0 : 1) + rlpHeaderSize(payload) + payload;
  const w = new ByteWriter(total);
  if (tx.type !== 0) w.byte(tx.type);
  w.rlpHeader(payload, true);
  for (const item of items) {
    if (item instanceof Uint8Array) w.rlpString(item);
    else w.bytes(item.raw);
  }
  return w.finish();
}

const EMPTY = new Uint8Array(0);
const ONE = Uint8Array.of(1);

/**
 * The span-batch form of a signed EIP-2718 transaction (types 0, 1, 2, 4) of chain `chainId`. Refuses other
 * types (deposits, blob transactions), non-canonical encodings, a chain ID other than `chainId` (EIP-155 or
 * typed), a legacy `v` that is neither 27/28 nor EIP-155, a typed y_parity above 1 and a type-4 creation.
 */
export function signedToSpanTx(
  raw: Uint8Array,
  chainId: bigint,
  where: Record<string, unknown> = {},
): SpanBatchTransaction {
  const fail = (message: string): never => {
    throw new BatchEncodeError("transaction", message, where);
  };
  if (raw.length === 0) fail("empty transaction");
  const first = raw[0]!;
  let type: SpanBatchTxType;
  if (first >= 0xc0) type = 0;
  else if (first === 1 || first === 2 || first === 4) type = first;
  else return fail(`transaction type ${first} cannot be put in a span batch`);
  const it = newItem();
  const start = type === 0 ? 0 : 1;
  let list: RlpItem;
  try {
    list = readList(raw, start, raw.length, "transaction", 0, it);
  } catch (e) {
    return fail(`invalid RLP: ${(e as Error).message}`);
  }
  if (list.next !== raw.length) fail("bytes after the transaction");
  // Collect the top-level fields.
  const fields: [number, number, number, number][] = []; // [itemStart, itemNext, payloadStart, payloadEnd]
  let p = list.start;
  const end = list.end;
  try {
    while (p < end) {
      readItem(raw, p, end, "transaction", 0, it);
      fields.push([p, it.next, it.start, it.end]);
      p = it.next;
    }
  } catch (e) {
    return fail(`invalid RLP: ${(e as Error).message}`);
  }
  const expected = type === 0 ? 9 : type === 1 ? 11 : type === 2 ? 12 : 13;
  if (fields.length !== expected)
    fail(`type ${type} transaction has ${fields.length} fields, expected ${expected}`);
  const rawField = (i: number) => raw.subarray(fields[i]![0], fields[i]![1]);
  const uint = (i: number, maxBytes: number, name: string): bigint => {
    try {
      readUintItem(raw, fields[i]![0], fields[i]![1], name, 0, maxBytes, it);
    } catch (e) {
      return fail(`${name}: ${(e as Error).message}`);
    }
    return bytesToBig(raw, fields[i]![2], fields[i]![3]);
  };
  const word = (i: number, name: string): Uint8Array => {
    uint(i, 32, name);
    const out = new Uint8Array(32);
    const [, , s, e] = fields[i]!;
    out.set(raw.subarray(s, e), 32 - (e - s));
    return out;
  };
  const toField = (i: number): Uint8Array | null => {
    const [, , s, e] = fields[i]!;
    if (e - s === 0 && raw[fields[i]![0]] === 0x80) return null;
    if (e - s !== 20 || raw[fields[i]![0]] !== 0x94) fail("to must be empty or 20 bytes");
    return raw.slice(s, e);
  };
  // Check the fields the span batch keeps as RLP, by re-checking the tx_datas element built from them.
  const dataOf = (idx: number[]): Uint8Array => {
    let len = 0;
    for (const i of idx) len += fields[i]![1] - fields[i]![0];
    const w = new ByteWriter((type === 0 ? 0 : 1) + rlpHeaderSize(len) + len);
    if (type !== 0) w.byte(type);
    w.rlpHeader(len, true);
    for (const i of idx) w.bytes(rawField(i));
    const data = w.finish();
    try {
      readTxData(data, 0, data.length, 0);
    } catch (e) {
      return fail((e as Error).message);
    }
    return data;
  };

  let nonce: bigint, gasLimit: bigint, to: Uint8Array | null, data: Uint8Array;
  let yParity: 0 | 1;
  let isProtected = true;
  let sigAt: number;
  if (type === 0) {
    nonce = uint(0, 8, "nonce");
    gasLimit = uint(2, 8, "gas");
    to = toField(3);
    data = dataOf([4, 1, 5]);
    const v = uint(6, 32, "v");
    if (v === 27n || v === 28n) {
      isProtected = false;
      yParity = v === 28n ? 1 : 0;
    } else {
      if (v < 35n) fail(`legacy v ${v} is neither 27/28 nor EIP-155`);
      if ((v - 35n) / 2n !== chainId) fail(`EIP-155 chain ID ${(v - 35n) / 2n} is not ${chainId}`);
      yParity = (v - 35n) % 2n === 1n ? 1 : 0;
    }
    sigAt = 7;
  } else {
    const txChain = uint(0, 32, "chain_id");
    if (txChain !== chainId) fail(`chain ID ${txChain} is not ${chainId}`);
    nonce = uint(1, 8, "nonce");
    if (type === 1) {
      gasLimit = uint(3, 8, "gas");
      to = toField(4);
      data = dataOf([5, 2, 6, 7]);
    } else {
      gasLimit = uint(4, 8, "gas");
      to = toField(5);
      data = dataOf(type === 2 ? [6, 2, 3, 7, 8] : [6, 2, 3, 7, 8, 9]);
      if (type === 4 && to === null) fail("a type 4 transaction cannot create a contract");
    }
    sigAt = expected - 3;
    const y = uint(sigAt, 1, "y_parity");
    if (y > 1n) fail(`y_parity ${y} is not 0 or 1`);
    yParity = y === 1n ? 1 : 0;
    sigAt += 1;
  }
  const r = word(sigAt, "r");
  const s = word(sigAt + 1, "s");
  if (nonce > U64_MAX || gasLimit > U64_MAX) fail("nonce or gas past u64");
  return { type, nonce, gasLimit, to, r, s, yParity, protected: isProtected, data };
}
