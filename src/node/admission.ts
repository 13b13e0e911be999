/**
 * eth_sendRawTransaction admission: decode, check against the pending state and the pool, and add
 * to the pool. Every refusal is a TransactionNotAdmittedError naming its reason (the RPC layer answers
 * it with -32000), with a message a person can act on, in geth's wording where geth has one.
 */
import type { Common } from "@ethereumjs/common";
import { Capability } from "@ethereumjs/tx";
import {
  bytesToBigInt,
  type DecodedTransaction,
  decodeTransaction,
  floorDataGas,
  toHexRaw,
} from "../chain/index.js";
import { RLP } from "@ethereumjs/rlp";
import { type AdmissionRefusal, TransactionNotAdmittedError } from "./errors.js";
import { MAX_PER_SENDER, MAX_POOL_SIZE, type PooledTransaction, type TxPool } from "./pool.js";
import { intrinsicGas } from "./state/call.js";

/** What admission reads from the node (ChainNode provides it): chain, pool, store, pending and head state. */
export interface AdmissionContext {
  readonly config: { readonly l2ChainId: bigint };
  readonly common: Common;
  readonly producer: { readonly pool: TxPool };
  readonly store: { transactionLocation(hash: Uint8Array): unknown };
  readonly pending: { readonly snapshot: { readonly transactionHashes: readonly Uint8Array[] } } | undefined;
  readonly head: { readonly header: { readonly gasLimit: bigint } };
  /** Base fee of the block being built. */
  nextBaseFee(): bigint;
  /** The state new transactions are checked against. */
  admissionState(): { account(address: Uint8Array): { nonce: bigint; balance: bigint } | undefined };
}

function refuse(refusal: AdmissionRefusal, message: string, details?: Record<string, unknown>): never {
  throw new TransactionNotAdmittedError(refusal, message, details);
}

/** geth's limit on a transaction's encoded size. */
export const MAX_TX_BYTES = 128 * 1024;
/** How far ahead of the account's next nonce a transaction may be queued. */
export const MAX_NONCE_GAP = 64n;
/** Minimum fee bump (percent) for replacing a pooled transaction. */
const REPLACEMENT_BUMP = 10n;

/** The chain id a transaction was signed for (typed: first field; legacy: from EIP-155 v), if readable. */
function declaredChainIdOf(raw: Uint8Array): bigint | undefined {
  try {
    if (raw[0]! >= 0xc0) {
      const fields = RLP.decode(raw) as Uint8Array[];
      const v = fields.length === 9 && fields[6] instanceof Uint8Array ? bytesToBigInt(fields[6]) : undefined;
      return v !== undefined && v >= 35n ? (v - 35n) / 2n : undefined;
    }
    const fields = RLP.decode(raw.subarray(1)) as Uint8Array[];
    return Array.isArray(fields) && fields[0] instanceof Uint8Array ? bytesToBigInt(fields[0]) : undefined;
  } catch {
    return undefined;
  }
}

/** The pending snapshot's transaction hashes (hex), built once per snapshot rather than once per admission. */
const pendingHashSets = new WeakMap<object, Set<string>>();

function pendingHashSet(snapshot: { readonly transactionHashes: readonly Uint8Array[] }): Set<string> {
  let set = pendingHashSets.get(snapshot);
  if (set === undefined) {
    set = new Set(snapshot.transactionHashes.map(toHexRaw));
    pendingHashSets.set(snapshot, set);
  }
  return set;
}

export function admitTransaction(node: AdmissionContext, raw: Uint8Array): PooledTransaction {
  if (raw.length > MAX_TX_BYTES)
    refuse("oversized", `oversized data: ${raw.length} bytes, limit ${MAX_TX_BYTES}`, {
      size: raw.length,
      limit: MAX_TX_BYTES,
    });
  if (raw.length === 0) refuse("empty", "invalid transaction: empty");
  if (raw[0] === 0x7e) refuse("deposit", "deposit transactions cannot be submitted through the RPC");
  const declaredChainId = declaredChainIdOf(raw);
  if (declaredChainId !== undefined && declaredChainId !== node.config.l2ChainId) {
    refuse("wrong-chain-id", `invalid chain id ${declaredChainId}, this chain is ${node.config.l2ChainId}`, {
      chainId: declaredChainId,
      expected: node.config.l2ChainId,
    });
  }
  let decoded: DecodedTransaction;
  try {
    decoded = decodeTransaction(raw, node.common);
  } catch (e) {
    // The engine's InvalidTransactionEncodingError, or the tx library's own refusal of the payload.
    throw new TransactionNotAdmittedError(
      "invalid-encoding",
      `invalid transaction: ${(e as Error).message}`,
      {},
      e,
    );
  }
  if (decoded.body.kind !== "signed")
    refuse("deposit", "deposit transactions cannot be submitted through the RPC");
  const tx = decoded.body.tx;
  const hashHex = toHexRaw(decoded.hash);
  const pool = node.producer.pool;
  if (pool.get(hashHex) !== undefined || node.store.transactionLocation(decoded.hash) !== undefined) {
    refuse("already-known", "already known", { hash: hashHex });
  }
  const pendingSnapshot = node.pending?.snapshot;
  if (pendingSnapshot !== undefined && pendingHashSet(pendingSnapshot).has(hashHex))
    refuse("already-known", "already known", { hash: hashHex });

  const txChainId =
    tx.supports(Capability.EIP155ReplayProtection) || decoded.type !== 0 ? tx.common.chainId() : undefined;
  if (txChainId !== undefined && txChainId !== node.config.l2ChainId) {
    refuse("wrong-chain-id", `invalid chain id ${txChainId}, this chain is ${node.config.l2ChainId}`, {
      chainId: txChainId,
      expected: node.config.l2ChainId,
    });
  }
  let sender: Uint8Array;
  try {
    sender = tx.getSenderAddress().bytes;
  } catch (e) {
    throw new TransactionNotAdmittedError(
      "invalid-sender",
      "invalid sender: the signature does not recover",
      { hash: hashHex },
      e,
    );
  }
  const senderHex = toHexRaw(sender);

  const gasLimit = tx.gasLimit;
  if (gasLimit > node.head.header.gasLimit) {
    refuse(
      "exceeds-block-gas-limit",
      `exceeds block gas limit: gas ${gasLimit}, limit ${node.head.header.gasLimit}`,
      {
        gas: gasLimit,
        limit: node.head.header.gasLimit,
      },
    );
  }
  const accessList = "accessList" in tx ? (tx.accessList as [Uint8Array, Uint8Array[]][]) : [];
  const intrinsic = intrinsicGas({
    to: tx.to?.bytes,
    data: tx.data,
    accessList: accessList.map(([address, storageKeys]) => ({ address, storageKeys })),
  });
  const floor = floorDataGas(tx.data);
  const needed = intrinsic > floor ? intrinsic : floor;
  if (gasLimit < needed)
    refuse("intrinsic-gas-too-low", `intrinsic gas too low: gas ${gasLimit}, minimum needed ${needed}`, {
      gas: gasLimit,
      needed,
    });

  const dynamic = tx.supports(Capability.EIP1559FeeMarket);
  const feeCap = dynamic
    ? (tx as unknown as { maxFeePerGas: bigint }).maxFeePerGas
    : (tx as unknown as { gasPrice: bigint }).gasPrice;
  const tipCap = dynamic ? (tx as unknown as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas : feeCap;
  if (tipCap > feeCap) {
    refuse(
      "tip-above-fee-cap",
      `max priority fee per gas higher than max fee per gas: tip ${tipCap}, max fee ${feeCap}`,
      {
        tipCap,
        feeCap,
      },
    );
  }
  const baseFee = node.nextBaseFee();
  if (feeCap < baseFee) {
    refuse(
      "underpriced",
      `transaction underpriced: max fee per gas ${feeCap} is below the pending block's base fee ${baseFee}`,
      { feeCap, baseFee },
    );
  }

  const state = node.admissionState();
  const account = state.account(sender);
  const stateNonce = account?.nonce ?? 0n;
  if (tx.nonce < stateNonce)
    refuse("nonce-too-low", `nonce too low: next nonce ${stateNonce}, tx nonce ${tx.nonce}`, {
      next: stateNonce,
      nonce: tx.nonce,
    });
  const poolNonce = pool.pendingNonce(senderHex, stateNonce);
  if (tx.nonce > poolNonce + MAX_NONCE_GAP) {
    refuse(
      "nonce-too-high",
      `nonce too high: next nonce ${poolNonce}, tx nonce ${tx.nonce}, at most ${MAX_NONCE_GAP} ahead`,
      { next: poolNonce, nonce: tx.nonce, maxGap: MAX_NONCE_GAP },
    );
  }
  const cost = gasLimit * feeCap + tx.value;
  const balance = account?.balance ?? 0n;
  if (balance < cost) {
    refuse(
      "insufficient-funds",
      `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}`,
      {
        balance,
        cost,
      },
    );
  }

  const existing = pool.bySenderNonce(senderHex, tx.nonce);
  if (existing !== undefined && pool.isReserved(existing.hashHex)) {
    // Already executed into the block being built (its snapshot is about to be published).
    refuse("nonce-too-low", `nonce too low: next nonce ${tx.nonce + 1n}, tx nonce ${tx.nonce}`, {
      next: tx.nonce + 1n,
      nonce: tx.nonce,
    });
  }
  if (existing !== undefined) {
    const bumped = (v: bigint) => (v * (100n + REPLACEMENT_BUMP) + 99n) / 100n;
    if (feeCap < bumped(existing.feeCap) || tipCap < bumped(existing.tipCap)) {
      refuse(
        "replacement-underpriced",
        `replacement transaction underpriced: raise both fees by at least ${REPLACEMENT_BUMP}%`,
        { bumpPercent: REPLACEMENT_BUMP },
      );
    }
  } else {
    if (pool.size >= MAX_POOL_SIZE) refuse("pool-full", "txpool is full", { limit: MAX_POOL_SIZE });
    if (pool.countFor(senderHex) >= MAX_PER_SENDER)
      refuse("sender-limit", `too many pooled transactions from this sender (limit ${MAX_PER_SENDER})`, {
        sender: senderHex,
        limit: MAX_PER_SENDER,
      });
  }
  return pool.add({ decoded, hashHex, sender, senderHex, nonce: tx.nonce, gasLimit, feeCap, tipCap });
}
