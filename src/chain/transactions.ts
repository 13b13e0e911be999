/** Decoding EIP-2718 transactions as OP accepts them: deposits (0x7e) and signed user transactions. */
import type { Common } from "@ethereumjs/common";
import { type TypedTransaction, createTxFromRLP, paramsTx } from "@ethereumjs/tx";
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

/**
 * The Common a transaction is decoded with: a copy of the caller's with the library's transaction parameters
 * merged once. Every transaction constructor copies its Common and merges `paramsTx` into it again (a JSON round
 * trip per EIP and a rebuilt parameter cache: 2 % of a block's CPU); merging the same parameters into a Common that
 * has them changes nothing, so on this copy (and the copies made of it, which keep the own method) that call
 * returns at once. Any other parameters merge as before. Our Commons never change hardfork.
 */
const decodingCommons = new WeakMap<Common, Common>();

function decodingCommon(common: Common): Common {
  let c = decodingCommons.get(common);
  if (c === undefined) {
    c = common.copy();
    c.updateParams(paramsTx);
    const merge = c.updateParams;
    c.updateParams = function (params) {
      if (params !== paramsTx) merge.call(this, params);
    };
    decodingCommons.set(common, c);
  }
  return c;
}

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
    tx = createTxFromRLP(raw, { common: decodingCommon(common) }) as TypedTransaction;
  } catch (e) {
    throw new InvalidTransactionEncodingError(`transaction: ${(e as Error).message}`);
  }
  if (!tx.isSigned()) throw new InvalidTransactionEncodingError("transaction is not signed");
  return { raw, hash: keccak_256(raw), type: first >= 0xc0 ? 0 : first, body: { kind: "signed", tx } };
}
