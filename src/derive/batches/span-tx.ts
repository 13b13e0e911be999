/**
 * Span-batch transactions: checking a `tx_datas` element, rebuilding the signed EIP-2718 transaction from a
 * span-batch transaction and the chain ID, and the reverse (a signed transaction to its span-batch form).
 *
 * `tx_datas` elements (delta/span-batches.md, isthmus/derivation.md):
 *   legacy  rlp([value, gas_price, data])
 *   0x01 ++ rlp([value, gas_price, data, access_list])
 *   0x02 ++ rlp([value, max_priority_fee_per_gas, max_fee_per_gas, data, access_list])
 *   0x04 ++ rlp([value, max_priority_fee_per_gas, max_fee_per_gas, data, access_list, authorization_list])
 * Every field is decoded strictly (canonical RLP, exact field counts, quantities of at most 32 bytes as
 * kona's U256 fields require (op-node's big.Int has no cap), 20-byte addresses, 32-byte storage keys), so a
 * transaction rebuilt from a decoded batch re-encodes to the same bytes. Fee fields keep their exact bytes
 * (kona narrows legacy gas_price and EIP-1559 fees to 128 bits when rebuilding; op-node does not).
 */
import { ByteWriter, RlpReader, U64_MAX, refuse, rlpHeaderSize } from "./bytes.js";
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
  const r = new RlpReader(buf, base);
  const end = r.list(listPos, limit, field).end;
  r.uint(r.start, end, "span.tx.value", 32);
  if (type === 0 || type === 1) {
    r.uint(r.next, end, "span.tx.gas_price", 32);
  } else {
    r.uint(r.next, end, "span.tx.max_priority_fee_per_gas", 32);
    r.uint(r.next, end, "span.tx.max_fee_per_gas", 32);
  }
  let p = r.string(r.next, end, "span.tx.data").next;
  if (type !== 0) p = checkAccessList(r, p, end);
  if (type === 4) p = checkAuthorizationList(r, p, end);
  if (p !== end)
    refuse(field, base + p, `more than ${FIELD_COUNT[type]} fields in a type ${type} transaction`);
  return [type, end];
}

/** Checks an access list `[[address, [key, ...]], ...]` at `pos`; returns the offset after it. */
function checkAccessList(r: RlpReader, pos: number, limit: number): number {
  const field = "span.tx.access_list";
  const next = r.list(pos, limit, field).next;
  const end = r.end;
  for (let p = r.start; p < end;) {
    const tupleEnd = r.list(p, end, field).end;
    p = r.next;
    r.fixed(r.start, tupleEnd, field, 20);
    const keysEnd = r.list(r.next, tupleEnd, field).end;
    const q = r.next;
    for (let k = r.start; k < keysEnd; k = r.next) r.fixed(k, keysEnd, field, 32);
    if (q !== tupleEnd) refuse(field, r.base + q, "access list entry has more than two fields");
  }
  return next;
}

/** Checks an authorization list `[[chain_id, address, nonce, y_parity, r, s], ...]`; returns the offset after it. */
function checkAuthorizationList(r: RlpReader, pos: number, limit: number): number {
  const field = "span.tx.authorization_list";
  const next = r.list(pos, limit, field).next;
  const end = r.end;
  for (let p = r.start; p < end;) {
    const tupleEnd = r.list(p, end, field).end;
    p = r.next;
    r.uint(r.start, tupleEnd, field, 32); // chain_id
    r.fixed(r.next, tupleEnd, field, 20); // address
    r.uint(r.next, tupleEnd, field, 8); // nonce
    r.uint(r.next, tupleEnd, field, 1); // y_parity
    r.uint(r.next, tupleEnd, field, 32); // r
    r.uint(r.next, tupleEnd, field, 32); // s
    if (r.next !== tupleEnd) refuse(field, r.base + r.next, "authorization has more than six fields");
  }
  return next;
}

// Field layout of each signed transaction type: k >= 0 copies field k of the tx_datas list as encoded;
// negative codes are the fields the span batch stores elsewhere.
const CHAIN = -1;
const NONCE = -2;
const GAS = -3;
const TO = -4;
const V = -5;
const R = -6;
const S = -7;
const LAYOUT: Record<SpanBatchTxType, readonly number[]> = {
  0: [NONCE, 1, GAS, TO, 0, 2, V, R, S], // [nonce, gas_price, gas, to, value, data, v, r, s]
  1: [CHAIN, NONCE, 1, GAS, TO, 0, 2, 3, V, R, S], // [chain_id, nonce, gas_price, gas, to, value, data, access_list, y, r, s]
  2: [CHAIN, NONCE, 1, 2, GAS, TO, 0, 3, 4, V, R, S], // [chain_id, nonce, tip, fee_cap, gas, to, value, data, access_list, y, r, s]
  4: [CHAIN, NONCE, 1, 2, GAS, TO, 0, 3, 4, 5, V, R, S], // type 2 + authorization_list after access_list
};
const MAX_FIELDS = 6;

/** Records the [start, end) of each encoded field of a checked `tx_datas` element into `out` at `at`. */
function txDataFields(data: Uint8Array, out: Int32Array, at: number): void {
  const r = new RlpReader(data);
  const end = r.item(data[0]! <= 0x7f ? 1 : 0, data.length, "span.tx_datas").end;
  for (let p = r.start, k = 0; p < end; p = r.next, k++) {
    r.item(p, end, "span.tx_datas");
    out[at + 2 * k] = p;
    out[at + 2 * k + 1] = r.next;
  }
}

/** Byte length of a non-negative integer's minimal big-endian form. */
function uintLength(v: bigint): number {
  if (v < 0x1000000000000n) {
    let n = Number(v);
    let len = 0;
    while (n > 0) {
      len++;
      n = Math.floor(n / 256);
    }
    return len;
  }
  return (v.toString(16).length + 1) >> 1;
}

/** RLP size of an unsigned integer. */
function uintRlpSize(v: bigint): number {
  return v < 0x80n ? 1 : 1 + uintLength(v);
}

/** Writes the RLP of an unsigned integer at `pos`; returns the next position. */
function writeUint(buf: Uint8Array, pos: number, v: bigint): number {
  if (v === 0n) {
    buf[pos] = 0x80;
    return pos + 1;
  }
  if (v < 0x80n) {
    buf[pos] = Number(v);
    return pos + 1;
  }
  const len = uintLength(v);
  buf[pos] = 0x80 + len;
  if (v < 0x1000000000000n) {
    let n = Number(v);
    for (let i = len; i >= 1; i--) {
      buf[pos + i] = n % 256;
      n = Math.floor(n / 256);
    }
  } else {
    let x = v;
    for (let i = len; i >= 1; i--) {
      buf[pos + i] = Number(x & 0xffn);
      x >>= 8n;
    }
  }
  return pos + 1 + len;
}

/** Index of the first non-zero byte of a 32-byte word (32 when zero). */
function firstNonZero(word: Uint8Array): number {
  let i = 0;
  while (i < 32 && word[i] === 0) i++;
  return i;
}

/** RLP size of a 32-byte word as an unsigned integer. */
function wordRlpSize(word: Uint8Array): number {
  const n = 32 - firstNonZero(word);
  return n === 0 || (n === 1 && word[31]! < 0x80) ? 1 : 1 + n;
}

/** Writes a 32-byte word as an RLP unsigned integer. */
function writeWord(buf: Uint8Array, pos: number, word: Uint8Array): number {
  const i = firstNonZero(word);
  const n = 32 - i;
  if (n === 0) {
    buf[pos] = 0x80;
    return pos + 1;
  }
  if (n === 1 && word[31]! < 0x80) {
    buf[pos] = word[31]!;
    return pos + 1;
  }
  buf[pos] = 0x80 + n;
  buf.set(word.subarray(i), pos + 1);
  return pos + 1 + n;
}

/** Writes an RLP list header for `len` payload bytes. */
function writeListHeader(buf: Uint8Array, pos: number, len: number): number {
  if (len < 56) {
    buf[pos] = 0xc0 + len;
    return pos + 1;
  }
  const n = rlpHeaderSize(len) - 1;
  buf[pos] = 0xf7 + n;
  for (let i = n; i >= 1; i--) {
    buf[pos + i] = len % 256;
    len = Math.floor(len / 256);
  }
  return pos + 1 + n;
}

/**
 * The signed EIP-2718 bytes of span-batch transactions on chain `chainId`: v = yParity for typed
 * transactions, 27 + yParity for unprotected legacy ones, chainId * 2 + 35 + yParity for EIP-155 ones.
 * Each `tx.data` must be a checked `tx_datas` element (as decodeBatch yields). The results are views of
 * one buffer (one allocation for the whole span).
 */
export function spanTxsToSigned(txs: readonly SpanBatchTransaction[], chainId: bigint): Uint8Array[] {
  const n = txs.length;
  const fields = new Int32Array(n * 2 * MAX_FIELDS);
  const payloads = new Int32Array(n);
  const vs = new Array<bigint>(n);
  const chainSize = uintRlpSize(chainId);
  let total = 0;
  for (let t = 0; t < n; t++) {
    const tx = txs[t]!;
    txDataFields(tx.data, fields, t * 2 * MAX_FIELDS);
    const v =
      tx.type !== 0
        ? BigInt(tx.yParity)
        : tx.protected
          ? chainId * 2n + 35n + BigInt(tx.yParity)
          : 27n + BigInt(tx.yParity);
    vs[t] = v;
    let payload = 0;
    for (const code of LAYOUT[tx.type]) {
      if (code >= 0) {
        const at = t * 2 * MAX_FIELDS + 2 * code;
        payload += fields[at + 1]! - fields[at]!;
      } else if (code === CHAIN) payload += chainSize;
      else if (code === NONCE) payload += uintRlpSize(tx.nonce);
      else if (code === GAS) payload += uintRlpSize(tx.gasLimit);
      else if (code === TO) payload += tx.to === null ? 1 : 21;
      else if (code === V) payload += uintRlpSize(v);
      else payload += wordRlpSize(code === R ? tx.r : tx.s);
    }
    payloads[t] = payload;
    total += (tx.type === 0 ? 0 : 1) + rlpHeaderSize(payload) + payload;
  }
  const buf = new Uint8Array(total);
  const out = new Array<Uint8Array>(n);
  let pos = 0;
  for (let t = 0; t < n; t++) {
    const tx = txs[t]!;
    const start = pos;
    if (tx.type !== 0) buf[pos++] = tx.type;
    pos = writeListHeader(buf, pos, payloads[t]!);
    for (const code of LAYOUT[tx.type]) {
      if (code >= 0) {
        const at = t * 2 * MAX_FIELDS + 2 * code;
        buf.set(tx.data.subarray(fields[at]!, fields[at + 1]!), pos);
        pos += fields[at + 1]! - fields[at]!;
      } else if (code === CHAIN) pos = writeUint(buf, pos, chainId);
      else if (code === NONCE) pos = writeUint(buf, pos, tx.nonce);
      else if (code === GAS) pos = writeUint(buf, pos, tx.gasLimit);
      else if (code === TO) {
        if (tx.to === null) buf[pos++] = 0x80;
        else {
          buf[pos] = 0x94;
          buf.set(tx.to, pos + 1);
          pos += 21;
        }
      } else if (code === V) pos = writeUint(buf, pos, vs[t]!);
      else pos = writeWord(buf, pos, code === R ? tx.r : tx.s);
    }
    out[t] = buf.subarray(start, pos);
  }
  return out;
}

/** The signed EIP-2718 bytes of one span-batch transaction (see spanTxsToSigned). */
export function spanTxToSigned(tx: SpanBatchTransaction, chainId: bigint): Uint8Array {
  return spanTxsToSigned([tx], chainId)[0]!;
}

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
  const rd = new RlpReader(raw);
  // Collect the top-level fields: [itemStart, itemNext, payloadStart, payloadEnd].
  const fields: [number, number, number, number][] = [];
  try {
    rd.list(type === 0 ? 0 : 1, raw.length, "transaction");
    if (rd.next !== raw.length) fail("bytes after the transaction");
    const end = rd.end;
    for (let p = rd.start; p < end; p = rd.next) {
      rd.item(p, end, "transaction");
      fields.push([p, rd.next, rd.start, rd.end]);
    }
  } catch (e) {
    if (e instanceof BatchEncodeError) throw e;
    return fail(`invalid RLP: ${(e as Error).message}`);
  }
  const expected = type === 0 ? 9 : type === 1 ? 11 : type === 2 ? 12 : 13;
  if (fields.length !== expected)
    fail(`type ${type} transaction has ${fields.length} fields, expected ${expected}`);
  const rawField = (i: number) => raw.subarray(fields[i]![0], fields[i]![1]);
  const uint = (i: number, maxBytes: number, name: string): bigint => {
    try {
      return rd.uint(fields[i]![0], fields[i]![1], name, maxBytes).value();
    } catch (e) {
      return fail(`${name}: ${(e as Error).message}`);
    }
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
