/**
 * Names the first difference between a sealed block and the block re-executed from derived attributes, for the
 * loud error a mismatch raises (docs/node/l1.md "Safe and finalized heads").
 */
import { type BlockHeader, bytesEqual, toHex } from "../../chain/index.js";
import type { BlockDifference } from "./errors.js";

export interface ComparableBlock {
  readonly header: BlockHeader;
  readonly transactions: readonly Uint8Array[];
}

type Value = Uint8Array | bigint | undefined;

function text(v: Value): string {
  if (v === undefined) return "absent";
  return typeof v === "bigint" ? v.toString() : toHex(v);
}

function same(a: Value, b: Value): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (typeof a === "bigint" || typeof b === "bigint") return a === b;
  return bytesEqual(a, b);
}

/**
 * Header fields in the order that explains a mismatch best: what the attributes set (parent, time, origin
 * randomness, gas limit, fee parameters), then the transactions, then what execution computed from them.
 */
const ATTRIBUTE_FIELDS: readonly (keyof BlockHeader)[] = [
  "number",
  "parentHash",
  "timestamp",
  "beneficiary",
  "mixHash",
  "parentBeaconBlockRoot",
  "gasLimit",
  "extraData",
  "baseFeePerGas",
];
const RESULT_FIELDS: readonly (keyof BlockHeader)[] = [
  "transactionsRoot",
  "gasUsed",
  "receiptsRoot",
  "logsBloom",
  "stateRoot",
  "blobGasUsed",
  "excessBlobGas",
  "withdrawalsRoot",
  "requestsHash",
  "ommersHash",
  "difficulty",
  "nonce",
];

/** The first field in which `derived` differs from `sealed`; undefined when none does. */
export function firstDifference(
  sealed: ComparableBlock,
  derived: ComparableBlock,
): BlockDifference | undefined {
  for (const field of ATTRIBUTE_FIELDS) {
    const s = sealed.header[field] as Value;
    const d = derived.header[field] as Value;
    if (!same(s, d)) return { field, sealed: text(s), derived: text(d) };
  }
  const n = Math.min(sealed.transactions.length, derived.transactions.length);
  for (let i = 0; i < n; i++) {
    if (!bytesEqual(sealed.transactions[i]!, derived.transactions[i]!)) {
      return {
        field: `transactions[${i}]`,
        sealed: toHex(sealed.transactions[i]!),
        derived: toHex(derived.transactions[i]!),
      };
    }
  }
  if (sealed.transactions.length !== derived.transactions.length) {
    return {
      field: "transactionCount",
      sealed: String(sealed.transactions.length),
      derived: String(derived.transactions.length),
    };
  }
  for (const field of RESULT_FIELDS) {
    const s = sealed.header[field] as Value;
    const d = derived.header[field] as Value;
    if (!same(s, d)) return { field, sealed: text(s), derived: text(d) };
  }
  return undefined;
}
