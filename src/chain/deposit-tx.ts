/** OP deposit transactions (EIP-2718 type 0x7e): encoding, decoding and hashing. */
import { RLP } from "@ethereumjs/rlp";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bigIntToBytes, bytesToBigInt } from "./hex.js";
import { ChainError, type ChainErrorOptions } from "./errors.js";

export const DEPOSIT_TX_TYPE = 0x7e;

export interface DepositTransaction {
  readonly kind: "deposit";
  sourceHash: Uint8Array;
  from: Uint8Array;
  /** Undefined for contract creation. */
  to: Uint8Array | undefined;
  mint: bigint;
  value: bigint;
  gasLimit: bigint;
  isSystemTx: boolean;
  data: Uint8Array;
}

export class InvalidTransactionEncodingError extends ChainError {
  constructor(message: string, options?: ChainErrorOptions) {
    super(message, "invalid-transaction-encoding", options);
  }
}

function canonicalInt(field: Uint8Array, name: string, maxBytes: number): bigint {
  if (field.length > maxBytes)
    throw new InvalidTransactionEncodingError(`deposit ${name} is longer than ${maxBytes} bytes`);
  if (field.length > 0 && field[0] === 0)
    throw new InvalidTransactionEncodingError(`deposit ${name} has leading zeros`);
  return bytesToBigInt(field);
}

/** Decodes `0x7e ‖ rlp([...])`. */
export function decodeDepositTransaction(raw: Uint8Array): DepositTransaction {
  if (raw[0] !== DEPOSIT_TX_TYPE) throw new InvalidTransactionEncodingError("not a deposit transaction");
  let decoded: unknown;
  try {
    decoded = RLP.decode(raw.subarray(1));
  } catch (e) {
    throw new InvalidTransactionEncodingError(`deposit RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(decoded) || decoded.length !== 8 || decoded.some((f) => !(f instanceof Uint8Array))) {
    throw new InvalidTransactionEncodingError("deposit must be an RLP list of 8 byte strings");
  }
  const [sourceHash, from, to, mint, value, gas, isSystem, data] = decoded as Uint8Array[];
  if (sourceHash!.length !== 32)
    throw new InvalidTransactionEncodingError("deposit sourceHash must be 32 bytes");
  if (from!.length !== 20) throw new InvalidTransactionEncodingError("deposit from must be 20 bytes");
  if (to!.length !== 0 && to!.length !== 20)
    throw new InvalidTransactionEncodingError("deposit to must be empty or 20 bytes");
  if (!(isSystem!.length === 0 || (isSystem!.length === 1 && isSystem![0] === 1))) {
    throw new InvalidTransactionEncodingError("deposit isSystemTx must be a boolean");
  }
  return {
    kind: "deposit",
    sourceHash: sourceHash!,
    from: from!,
    to: to!.length === 0 ? undefined : to!,
    mint: canonicalInt(mint!, "mint", 32),
    value: canonicalInt(value!, "value", 32),
    gasLimit: canonicalInt(gas!, "gas", 8),
    isSystemTx: isSystem!.length === 1,
    data: data!,
  };
}

/** Encodes a deposit as `0x7e ‖ rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data])`. */
export function encodeDepositTransaction(tx: Omit<DepositTransaction, "kind">): Uint8Array {
  const body = RLP.encode([
    tx.sourceHash,
    tx.from,
    tx.to ?? new Uint8Array(0),
    bigIntToBytes(tx.mint),
    bigIntToBytes(tx.value),
    bigIntToBytes(tx.gasLimit),
    tx.isSystemTx ? Uint8Array.of(1) : new Uint8Array(0),
    tx.data,
  ]);
  const out = new Uint8Array(body.length + 1);
  out[0] = DEPOSIT_TX_TYPE;
  out.set(body, 1);
  return out;
}

/** Transaction hash: keccak256 of the EIP-2718 encoding. */
export function depositTransactionHash(encoded: Uint8Array): Uint8Array {
  return keccak_256(encoded);
}
