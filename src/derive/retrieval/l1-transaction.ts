/**
 * Decoding the L1 transactions retrieval reads (EIP-2718: legacy, EIP-2930, EIP-1559, EIP-4844 in block form, i.e.
 * without sidecars), with lazy sender recovery. Only the fields retrieval needs are located (zero-copy views into
 * the encoding); the sender is recovered on demand, because only transactions sent to the batch inbox need it.
 *
 * Other types (EIP-7702 set-code transactions, future types) are kept as "ignored" transactions: op-node skips
 * them as batcher transactions since optimism PR #13958 (only legacy, access-list, dynamic-fee and blob
 * transactions are candidates), and kona does the same. They carry no blob hashes, so blob indices are unaffected.
 *
 * A transaction that does not decode cannot be part of a valid L1 block: InvalidL1TransactionError (critical),
 * because a block's blob indices depend on every transaction in it.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { CriticalDeriveError } from "../errors.js";
import {
  type RlpItem,
  RlpFormatError,
  encodeUint,
  listHeader,
  listItems,
  readSingle,
  readUint,
} from "./rlp.js";
import type { L1Transaction } from "./types.js";

/** An L1 transaction that is not a valid EIP-2718 encoding of its type. */
export class InvalidL1TransactionError extends CriticalDeriveError {
  constructor(message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super("retrieval", message, details, options);
  }
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_HALF_N = SECP256K1_N >> 1n;

/** Field positions of the types retrieval reads. */
interface Layout {
  readonly fields: number; // item count, signature included
  readonly chainId: number | undefined;
  readonly to: number;
  readonly input: number;
  readonly blobHashes: number | undefined;
}
const LAYOUTS: Readonly<Record<number, Layout>> = {
  // [nonce, gasPrice, gas, to, value, data, v, r, s]
  0: { fields: 9, chainId: undefined, to: 3, input: 5, blobHashes: undefined },
  // [chainId, nonce, gasPrice, gas, to, value, data, accessList, yParity, r, s]
  1: { fields: 11, chainId: 0, to: 4, input: 6, blobHashes: undefined },
  // [chainId, nonce, maxPriorityFee, maxFee, gas, to, value, data, accessList, yParity, r, s]
  2: { fields: 12, chainId: 0, to: 5, input: 7, blobHashes: undefined },
  // [chainId, nonce, maxPriorityFee, maxFee, gas, to, value, data, accessList, maxFeePerBlobGas, hashes, yParity, r, s]
  3: { fields: 14, chainId: 0, to: 5, input: 7, blobHashes: 10 },
};

const EMPTY = new Uint8Array(0);

/** Decodes one EIP-2718 L1 transaction (as it appears in a block body or a transactions trie). */
export function decodeL1Transaction(raw: Uint8Array): L1Transaction {
  if (raw.length === 0) throw new InvalidL1TransactionError("empty transaction");
  const first = raw[0]!;
  const type = first >= 0xc0 ? 0 : first;
  if (first >= 0x80 && first < 0xc0) {
    throw new InvalidL1TransactionError(
      `0x${first.toString(16)} is neither a transaction type nor an RLP list`,
    );
  }
  const layout = LAYOUTS[type];
  if (layout === undefined) {
    // A type retrieval never reads (EIP-7702, or one a later L1 fork adds): no blob hashes, never a batcher tx.
    return ignoredTransaction(type);
  }
  try {
    return new DecodedL1Transaction(type, layout, type === 0 ? raw : raw.subarray(1));
  } catch (e) {
    if (e instanceof RlpFormatError) {
      throw new InvalidL1TransactionError(`type ${type} transaction: ${e.message}`, { type }, { cause: e });
    }
    throw e;
  }
}

function ignoredTransaction(type: number): L1Transaction {
  return {
    type,
    to: undefined,
    input: EMPTY,
    blobVersionedHashes: [],
    chainId: undefined,
    sender: () => undefined,
  };
}

class DecodedL1Transaction implements L1Transaction {
  readonly type: number;
  readonly to: Uint8Array | undefined;
  readonly input: Uint8Array;
  readonly blobVersionedHashes: readonly Uint8Array[];
  readonly chainId: bigint | undefined;
  readonly #items: RlpItem[];
  readonly #layout: Layout;
  #sender: Uint8Array | undefined | null = null; // null: not recovered yet

  constructor(type: number, layout: Layout, body: Uint8Array) {
    const list = readSingle(body);
    if (!list.isList) throw new RlpFormatError("transaction payload is not a list", 0);
    const items = listItems(list.payload);
    if (items.length !== layout.fields) {
      throw new RlpFormatError(`expected ${layout.fields} fields, found ${items.length}`, 0);
    }
    this.type = type;
    this.#items = items;
    this.#layout = layout;
    const to = items[layout.to]!;
    if (to.isList || (to.payload.length !== 20 && to.payload.length !== 0)) {
      throw new RlpFormatError("`to` is neither an address nor empty", 0);
    }
    if (to.payload.length === 0 && type === 3)
      throw new RlpFormatError("a blob transaction cannot create", 0);
    this.to = to.payload.length === 20 ? to.payload : undefined;
    const input = items[layout.input]!;
    if (input.isList) throw new RlpFormatError("`data` is a list", 0);
    this.input = input.payload;
    if (layout.blobHashes !== undefined) {
      const hashes = items[layout.blobHashes]!;
      if (!hashes.isList) throw new RlpFormatError("blob versioned hashes are not a list", 0);
      this.blobVersionedHashes = listItems(hashes.payload).map((h) => {
        if (h.isList || h.payload.length !== 32)
          throw new RlpFormatError("a blob versioned hash is not 32 bytes", 0);
        return h.payload;
      });
    } else {
      this.blobVersionedHashes = [];
    }
    // Signature values must be canonical integers (geth refuses the encoding otherwise).
    const sig = layout.fields - 3;
    const v = readUint(items[sig]!);
    readUint(items[sig + 1]!);
    readUint(items[sig + 2]!);
    if (layout.chainId !== undefined) {
      this.chainId = readUint(items[layout.chainId]!);
    } else {
      this.chainId = v === 27n || v === 28n ? undefined : v >= 35n ? (v - 35n) >> 1n : undefined;
    }
  }

  sender(): Uint8Array | undefined {
    if (this.#sender === null) this.#sender = this.#recover();
    return this.#sender;
  }

  #recover(): Uint8Array | undefined {
    const items = this.#items;
    const sig = this.#layout.fields - 3;
    const v = readUint(items[sig]!);
    const r = readUint(items[sig + 1]!);
    const s = readUint(items[sig + 2]!);
    // Homestead rules (geth's ValidateSignatureValues): 0 < r < n, 0 < s ≤ n/2.
    if (r === 0n || r >= SECP256K1_N || s === 0n || s > SECP256K1_HALF_N) return undefined;
    let recovery: number;
    let signingPayload: Uint8Array;
    const unsigned = items.slice(0, sig);
    if (this.type === 0) {
      if (v === 27n || v === 28n) {
        recovery = Number(v - 27n);
        signingPayload = encodeList(unsigned.map((i) => i.raw));
      } else if (v >= 35n) {
        recovery = Number((v - 35n) & 1n);
        const eip155 = [encodeUint(this.chainId!), Uint8Array.of(0x80), Uint8Array.of(0x80)];
        signingPayload = encodeList([...unsigned.map((i) => i.raw), ...eip155]);
      } else {
        return undefined;
      }
    } else {
      if (v > 1n) return undefined;
      recovery = Number(v);
      const list = encodeList(unsigned.map((i) => i.raw));
      signingPayload = new Uint8Array(1 + list.length);
      signingPayload[0] = this.type;
      signingPayload.set(list, 1);
    }
    const digest = keccak_256(signingPayload);
    const compact = new Uint8Array(64);
    compact.set(toWord(r), 0);
    compact.set(toWord(s), 32);
    try {
      const signature = secp256k1.Signature.fromBytes(compact, "compact").addRecoveryBit(recovery);
      const publicKey = signature.recoverPublicKey(digest).toBytes(false);
      return keccak_256(publicKey.subarray(1)).subarray(12);
    } catch {
      return undefined; // no point on the curve for this signature
    }
  }
}

function encodeList(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const header = listHeader(length);
  const out = new Uint8Array(header.length + length);
  out.set(header, 0);
  let offset = header.length;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

function toWord(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
