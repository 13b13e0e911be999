/** Receipts in the store: [type, status, cumulativeGasUsed, logs, depositNonce?, depositReceiptVersion?] (bloom recomputed). */
import { bigIntToBytes, bytesToBigInt, logsBloom, type Receipt } from "../../chain/index.js";

type Rlp = Uint8Array | Rlp[];

export function encodeStoredReceiptRlp(r: Receipt): Rlp {
  const fields: Rlp[] = [
    bigIntToBytes(BigInt(r.type)),
    r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0),
    bigIntToBytes(r.cumulativeGasUsed),
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ];
  if (r.depositNonce !== undefined) {
    fields.push(bigIntToBytes(r.depositNonce));
    if (r.depositReceiptVersion !== undefined) fields.push(bigIntToBytes(r.depositReceiptVersion));
  }
  return fields;
}

export function decodeStoredReceipt(f: Rlp[]): Receipt {
  const logs = (f[3] as Rlp[][]).map((l) => ({
    address: l[0] as Uint8Array,
    topics: l[1] as Uint8Array[],
    data: l[2] as Uint8Array,
  }));
  const r: Receipt = {
    type: Number(bytesToBigInt(f[0] as Uint8Array)),
    status: (f[1] as Uint8Array).length === 1 ? 1 : 0,
    cumulativeGasUsed: bytesToBigInt(f[2] as Uint8Array),
    logs,
    logsBloom: logsBloom(logs),
  };
  if (f[4] !== undefined) r.depositNonce = bytesToBigInt(f[4] as Uint8Array);
  if (f[5] !== undefined) r.depositReceiptVersion = bytesToBigInt(f[5] as Uint8Array);
  return r;
}
