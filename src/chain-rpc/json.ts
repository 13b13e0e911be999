/**
 * From the JSON a node answers to consensus bytes: EIP-2718 transactions rebuilt field by field (legacy, 2930,
 * 1559, 4844, 7702 and OP deposits) and receipts in src/chain's form. Nothing here is trusted: the bytes are
 * checked by the callers against the hash that names them (the transaction hash here, the header's roots in
 * blocks.ts). Every malformed field is a MalformedResponseError naming the field.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  DEPOSIT_TX_TYPE,
  type Log,
  type Receipt,
  bigIntToBytes,
  bytesEqual,
  encodeDepositTransaction,
  keccak256,
  toHex,
} from "../chain/index.js";
import { DataMismatchError, MalformedResponseError } from "./errors.js";
import { isRecord } from "./http.js";

type Json = Record<string, unknown>;

const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;

/**
 * `0x`-prefixed bytes of even length (and exactly `length` bytes when given). One pass, in node's native hex decoder:
 * it stops at the first character that is not hex, so a decoded length short of half the digits is malformed (what
 * /^0x(?:[0-9a-fA-F]{2})*$/ refuses; a regular expression and a decode of every witness value were 2.5 % of the host's
 * CPU at Base's load). The bytes are a Uint8Array of their own, never a view of node's shared Buffer pool.
 */
export function hexData(value: unknown, field: string, length?: number): Uint8Array {
  const digits = typeof value === "string" && value.startsWith("0x") ? value.length - 2 : -1;
  const bytes = new Uint8Array(digits > 0 ? digits >> 1 : 0);
  if (
    digits < 0 ||
    (digits & 1) !== 0 ||
    (digits > 0 &&
      Buffer.from(bytes.buffer, 0, bytes.length).write((value as string).substring(2), "hex") !==
        bytes.length)
  ) {
    throw new MalformedResponseError(`${field} is not 0x-prefixed hex data`, { details: { field } });
  }
  if (length !== undefined && bytes.length !== length) {
    throw new MalformedResponseError(`${field} must be ${length} bytes`, {
      details: { field, length: bytes.length },
    });
  }
  return bytes;
}

/**
 * A list of `0x`-prefixed hex data decoded into one buffer: each item is a view of it, so a list of thousands of small
 * values (an execution witness's trie nodes) costs one allocation instead of one buffer each, whose per-buffer
 * bookkeeping outweighs a small value's own bytes. A malformed item is a MalformedResponseError naming it (`field[i]`;
 * every item's shape is checked before any is decoded).
 * A view kept keeps the whole list's buffer alive: callers that keep a few of many values copy those out.
 */
export function hexDataList(items: readonly unknown[], field: string): Uint8Array[] {
  let total = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== "string" || !item.startsWith("0x") || (item.length & 1) !== 0)
      throw new MalformedResponseError(`${field}[${i}] is not 0x-prefixed hex data`, {
        details: { field: `${field}[${i}]` },
      });
    total += (item.length - 2) >> 1;
  }
  const bytes = new Uint8Array(total);
  const writer = Buffer.from(bytes.buffer, 0, total);
  const views = new Array<Uint8Array>(items.length);
  let offset = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as string;
    const length = (item.length - 2) >> 1;
    if (length > 0 && writer.write(item.substring(2), offset, length, "hex") !== length)
      throw new MalformedResponseError(`${field}[${i}] is not 0x-prefixed hex data`, {
        details: { field: `${field}[${i}]` },
      });
    views[i] = bytes.subarray(offset, offset + length);
    offset += length;
  }
  return views;
}

/** A `0x` hex quantity of at most 256 bits. */
export function hexQuantity(value: unknown, field: string): bigint {
  if (typeof value !== "string" || !HEX_QUANTITY.test(value)) {
    throw new MalformedResponseError(`${field} is not a hex quantity`, { details: { field } });
  }
  return BigInt(value);
}

function smallQuantity(value: unknown, field: string, max: number): number {
  const n = hexQuantity(value, field);
  if (n > BigInt(max)) throw new MalformedResponseError(`${field} is out of range`, { details: { field } });
  return Number(n);
}

function list(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value))
    throw new MalformedResponseError(`${field} is not an array`, { details: { field } });
  return value;
}

function object(value: unknown, field: string): Json {
  if (!isRecord(value)) throw new MalformedResponseError(`${field} is not an object`, { details: { field } });
  return value;
}

const qty = (o: Json, name: string, at: string): Uint8Array =>
  bigIntToBytes(hexQuantity(o[name], `${at}.${name}`));

/** `to`: 20 bytes, or empty for a contract creation (null or absent). */
function recipient(o: Json, at: string): Uint8Array {
  return o.to === null || o.to === undefined ? new Uint8Array(0) : hexData(o.to, `${at}.to`, 20);
}

function input(o: Json, at: string): Uint8Array {
  return hexData(o.input ?? o.data, `${at}.input`);
}

function accessList(o: Json, at: string): Uint8Array[][] | (Uint8Array | Uint8Array[])[][] {
  return list(o.accessList ?? [], `${at}.accessList`).map((entry, i) => {
    const e = object(entry, `${at}.accessList[${i}]`);
    const keys = list(e.storageKeys, `${at}.accessList[${i}].storageKeys`).map((k, j) =>
      hexData(k, `${at}.accessList[${i}].storageKeys[${j}]`, 32),
    );
    return [hexData(e.address, `${at}.accessList[${i}].address`, 20), keys];
  });
}

/** The signature's y parity: `yParity`, or `v` when a server leaves `yParity` out of a typed transaction. */
function yParity(o: Json, at: string): Uint8Array {
  const parity = hexQuantity(o.yParity ?? o.v, `${at}.yParity`);
  if (parity > 1n)
    throw new MalformedResponseError(`${at}.yParity must be 0 or 1`, { details: { field: at } });
  return bigIntToBytes(parity);
}

function signature(o: Json, at: string): Uint8Array[] {
  return [yParity(o, at), qty(o, "r", at), qty(o, "s", at)];
}

function authorizationList(o: Json, at: string): Uint8Array[][] {
  return list(o.authorizationList, `${at}.authorizationList`).map((entry, i) => {
    const where = `${at}.authorizationList[${i}]`;
    const a = object(entry, where);
    return [
      qty(a, "chainId", where),
      hexData(a.address, `${where}.address`, 20),
      qty(a, "nonce", where),
      ...signature(a, where),
    ];
  });
}

function typed(type: number, fields: unknown[]): Uint8Array {
  const body = RLP.encode(fields as Parameters<typeof RLP.encode>[0]);
  const out = new Uint8Array(body.length + 1);
  out[0] = type;
  out.set(body, 1);
  return out;
}

/** The EIP-2718 encoding of a transaction object as eth_getBlockByHash(…, true) returns it. */
export function encodeTransactionJson(json: unknown, at = "transaction"): Uint8Array {
  const o = object(json, at);
  const type = o.type === undefined ? 0 : smallQuantity(o.type, `${at}.type`, 0x7f);
  // The typed transactions' common fields: chain id and nonce; the fees; gas, recipient, value, input, access list.
  // Blob and SetCode transactions cannot create contracts: their `to` is required.
  const typedFields = (fees: Uint8Array[], to: Uint8Array): unknown[] => [
    qty(o, "chainId", at),
    qty(o, "nonce", at),
    ...fees,
    qty(o, "gas", at),
    to,
    qty(o, "value", at),
    input(o, at),
    accessList(o, at),
  ];
  const dynamicFees = (): Uint8Array[] => [qty(o, "maxPriorityFeePerGas", at), qty(o, "maxFeePerGas", at)];
  const requiredTo = (): Uint8Array => hexData(o.to, `${at}.to`, 20);
  switch (type) {
    case 0:
      return RLP.encode([
        qty(o, "nonce", at),
        qty(o, "gasPrice", at),
        qty(o, "gas", at),
        recipient(o, at),
        qty(o, "value", at),
        input(o, at),
        qty(o, "v", at),
        qty(o, "r", at),
        qty(o, "s", at),
      ]);
    case 1:
      return typed(1, [...typedFields([qty(o, "gasPrice", at)], recipient(o, at)), ...signature(o, at)]);
    case 2:
      return typed(2, [...typedFields(dynamicFees(), recipient(o, at)), ...signature(o, at)]);
    case 3: {
      const hashes = list(o.blobVersionedHashes, `${at}.blobVersionedHashes`).map((h, i) =>
        hexData(h, `${at}.blobVersionedHashes[${i}]`, 32),
      );
      return typed(3, [
        ...typedFields(dynamicFees(), requiredTo()),
        qty(o, "maxFeePerBlobGas", at),
        hashes,
        ...signature(o, at),
      ]);
    }
    case 4:
      return typed(4, [
        ...typedFields(dynamicFees(), requiredTo()),
        authorizationList(o, at),
        ...signature(o, at),
      ]);
    case DEPOSIT_TX_TYPE: {
      if (o.isSystemTx !== undefined && typeof o.isSystemTx !== "boolean") {
        throw new MalformedResponseError(`${at}.isSystemTx is not a boolean`, {
          details: { field: `${at}.isSystemTx` },
        });
      }
      const to = recipient(o, at);
      return encodeDepositTransaction({
        sourceHash: hexData(o.sourceHash, `${at}.sourceHash`, 32),
        from: hexData(o.from, `${at}.from`, 20),
        to: to.length === 0 ? undefined : to,
        mint: o.mint === undefined || o.mint === null ? 0n : hexQuantity(o.mint, `${at}.mint`),
        value: hexQuantity(o.value, `${at}.value`),
        gasLimit: hexQuantity(o.gas, `${at}.gas`),
        isSystemTx: o.isSystemTx === true,
        data: input(o, at),
      });
    }
    default:
      throw new MalformedResponseError(`${at} has unsupported type ${type}`, {
        details: { field: `${at}.type`, type },
      });
  }
}

/** Encodes a transaction object and checks that it hashes to the `hash` the server gave it. */
export function checkedTransaction(json: unknown, at: string): Uint8Array {
  const raw = encodeTransactionJson(json, at);
  const claimed = hexData(object(json, at).hash, `${at}.hash`, 32);
  const actual = keccak256(raw);
  if (!bytesEqual(actual, claimed)) {
    throw new DataMismatchError("transaction-hash", `${at} does not hash to its hash`, {
      expected: toHex(claimed),
      actual: toHex(actual),
    });
  }
  return raw;
}

function logFromJson(json: unknown, at: string): Log {
  const l = object(json, at);
  return {
    address: hexData(l.address, `${at}.address`, 20),
    topics: list(l.topics, `${at}.topics`).map((t, i) => hexData(t, `${at}.topics[${i}]`, 32)),
    data: hexData(l.data, `${at}.data`),
  };
}

/** A receipt object (eth_getBlockReceipts, eth_getTransactionReceipt) in src/chain's consensus form. */
export function receiptFromJson(json: unknown, at = "receipt"): Receipt {
  const o = object(json, at);
  if (o.status === undefined || o.status === null) {
    throw new MalformedResponseError(`${at} has no status (pre-Byzantium receipts are not supported)`, {
      details: { field: `${at}.status` },
    });
  }
  const status = smallQuantity(o.status, `${at}.status`, 1) as 0 | 1;
  const receipt: Receipt = {
    type: o.type === undefined ? 0 : smallQuantity(o.type, `${at}.type`, 0x7f),
    status,
    cumulativeGasUsed: hexQuantity(o.cumulativeGasUsed, `${at}.cumulativeGasUsed`),
    logs: list(o.logs, `${at}.logs`).map((l, i) => logFromJson(l, `${at}.logs[${i}]`)),
    logsBloom: hexData(o.logsBloom, `${at}.logsBloom`, 256),
  };
  if (o.depositNonce !== undefined && o.depositNonce !== null) {
    receipt.depositNonce = hexQuantity(o.depositNonce, `${at}.depositNonce`);
  }
  if (o.depositReceiptVersion !== undefined && o.depositReceiptVersion !== null) {
    if (receipt.depositNonce === undefined) {
      throw new MalformedResponseError(`${at} has depositReceiptVersion without depositNonce`, {
        details: { field: `${at}.depositReceiptVersion` },
      });
    }
    receipt.depositReceiptVersion = hexQuantity(o.depositReceiptVersion, `${at}.depositReceiptVersion`);
  }
  return receipt;
}
