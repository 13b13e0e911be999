/** Decoding EIP-2718 transactions as OP accepts them: deposits (0x7e) and signed user transactions. */
import type { Common } from "@ethereumjs/common";
import { type TypedTransaction, createTxFromRLP } from "@ethereumjs/tx";
import { keccak256 as keccak_256 } from "./keccak.js";
import {
  DEPOSIT_TX_TYPE,
  type DepositTransaction,
  InvalidTransactionEncodingError,
  decodeDepositTransaction,
} from "./deposit-tx.js";

export interface SignedTransaction {
  readonly kind: "signed";
  tx: TypedTransaction;
}

export interface DecodedTransaction {
  /** EIP-2718 encoding (what the block and the L1 fee use). */
  raw: Uint8Array;
  hash: Uint8Array;
  type: number;
  body: DepositTransaction | SignedTransaction;
}

const BLOB_TX_TYPE = 3;

/** Decodes one EIP-2718 transaction; user transactions are parsed with the fork's rules (`common`). */
export function decodeTransaction(raw: Uint8Array, common: Common): DecodedTransaction {
  if (raw.length === 0) throw new InvalidTransactionEncodingError("empty transaction");
  const first = raw[0]!;
  if (first === DEPOSIT_TX_TYPE) {
    return { raw, hash: keccak_256(raw), type: DEPOSIT_TX_TYPE, body: decodeDepositTransaction(raw) };
  }
  if (first === BLOB_TX_TYPE)
    throw new InvalidTransactionEncodingError("blob transactions are not supported on OP chains");
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common }) as TypedTransaction;
  } catch (e) {
    throw new InvalidTransactionEncodingError(`transaction: ${(e as Error).message}`);
  }
  if (!tx.isSigned()) throw new InvalidTransactionEncodingError("transaction is not signed");
  return { raw, hash: keccak_256(raw), type: first >= 0xc0 ? 0 : first, body: { kind: "signed", tx } };
}
