/** Transaction receipts (consensus encoding, including OP deposit receipt fields) and logs blooms. */
import { RLP } from "@ethereumjs/rlp";
import { keccak256 as keccak_256 } from "./keccak.js";
import { bigIntToBytes } from "./hex.js";

export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface Receipt {
  /** EIP-2718 type (0 legacy, 0x7e deposit, ...). */
  type: number;
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  logs: Log[];
  logsBloom: Uint8Array;
  /** Deposits from Regolith: the sender's nonce before the deposit. */
  depositNonce?: bigint;
  /** Deposits from Canyon: 1. */
  depositReceiptVersion?: bigint;
}

/** Facts about one executed transaction that are not part of the consensus receipt. */
export interface ReceiptDetails {
  transactionHash: Uint8Array;
  transactionIndex: number;
  from: Uint8Array;
  to: Uint8Array | undefined;
  contractAddress: Uint8Array | undefined;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  l1Fee: bigint;
  operatorFee: bigint;
}

export const BLOOM_BYTES = 256;

/** Adds `value` to a 2048-bit bloom in place. */
export function bloomAdd(bloom: Uint8Array, value: Uint8Array): void {
  const h = keccak_256(value);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7);
  }
}

export function logsBloom(logs: readonly Log[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const log of logs) {
    bloomAdd(bloom, log.address);
    for (const topic of log.topics) bloomAdd(bloom, topic);
  }
  return bloom;
}

/** ORs `from` into `into`. */
export function bloomOr(into: Uint8Array, from: Uint8Array): void {
  for (let i = 0; i < BLOOM_BYTES; i++) into[i]! |= from[i]!;
}

/** Consensus encoding used in the receipts trie: `type ‖ rlp(...)`, or plain RLP for legacy. */
export function encodeReceipt(r: Receipt): Uint8Array {
  const fields: (Uint8Array | Uint8Array[] | (Uint8Array | Uint8Array[])[][])[] = [
    r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0),
    bigIntToBytes(r.cumulativeGasUsed),
    r.logsBloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ];
  if (r.depositNonce !== undefined) fields.push(bigIntToBytes(r.depositNonce));
  if (r.depositReceiptVersion !== undefined) {
    if (r.depositNonce === undefined) throw new Error("depositReceiptVersion requires depositNonce");
    fields.push(bigIntToBytes(r.depositReceiptVersion));
  }
  const body = RLP.encode(fields);
  if (r.type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = r.type;
  out.set(body, 1);
  return out;
}
