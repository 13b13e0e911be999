/**
 * eth_sendRawTransaction admission: decode, check against the pending state and the pool, and add
 * to the pool. Every refusal is a TransactionRejectedError (-32000) with a message a person can act
 * on, in geth's wording where geth has one.
 */
import { Capability } from "@ethereumjs/tx";
import {
  bytesToBigInt,
  type DecodedTransaction,
  decodeTransaction,
  floorDataGas,
  InvalidTransactionEncodingError,
  toHexRaw,
} from "../chain/index.js";
import { RLP } from "@ethereumjs/rlp";
import { TransactionRejectedError } from "../../generated/rpc/errors.js";
import type { ChainNode } from "./chain-node.js";
import { MAX_PER_SENDER, MAX_POOL_SIZE, type PooledTransaction } from "./pool.js";
import { intrinsicGas } from "./state/call.js";

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

export function admitTransaction(node: ChainNode, raw: Uint8Array): PooledTransaction {
  if (raw.length > MAX_TX_BYTES)
    throw new TransactionRejectedError(`oversized data: ${raw.length} bytes, limit ${MAX_TX_BYTES}`);
  if (raw.length === 0) throw new TransactionRejectedError("invalid transaction: empty");
  if (raw[0] === 0x7e)
    throw new TransactionRejectedError("deposit transactions cannot be submitted through the RPC");
  const declaredChainId = declaredChainIdOf(raw);
  if (declaredChainId !== undefined && declaredChainId !== node.config.l2ChainId) {
    throw new TransactionRejectedError(
      `invalid chain id ${declaredChainId}, this chain is ${node.config.l2ChainId}`,
    );
  }
  let decoded: DecodedTransaction;
  try {
    decoded = decodeTransaction(raw, node.common);
  } catch (e) {
    if (e instanceof InvalidTransactionEncodingError)
      throw new TransactionRejectedError(`invalid transaction: ${e.message}`);
    throw new TransactionRejectedError(`invalid transaction: ${(e as Error).message}`);
  }
  if (decoded.body.kind !== "signed")
    throw new TransactionRejectedError("deposit transactions cannot be submitted through the RPC");
  const tx = decoded.body.tx;
  const hashHex = toHexRaw(decoded.hash);
  const pool = node.sequencer.pool;
  if (pool.get(hashHex) !== undefined || node.store.transactionLocation(decoded.hash) !== undefined) {
    throw new TransactionRejectedError("already known");
  }
  const pendingHashes = node.pending?.snapshot.transactionHashes ?? [];
  if (pendingHashes.some((h) => toHexRaw(h) === hashHex)) throw new TransactionRejectedError("already known");

  const txChainId =
    tx.supports(Capability.EIP155ReplayProtection) || decoded.type !== 0 ? tx.common.chainId() : undefined;
  if (txChainId !== undefined && txChainId !== node.config.l2ChainId) {
    throw new TransactionRejectedError(
      `invalid chain id ${txChainId}, this chain is ${node.config.l2ChainId}`,
    );
  }
  let sender: Uint8Array;
  try {
    sender = tx.getSenderAddress().bytes;
  } catch {
    throw new TransactionRejectedError("invalid sender: the signature does not recover");
  }
  const senderHex = toHexRaw(sender);

  const gasLimit = tx.gasLimit;
  if (gasLimit > node.head.header.gasLimit) {
    throw new TransactionRejectedError(
      `exceeds block gas limit: gas ${gasLimit}, limit ${node.head.header.gasLimit}`,
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
    throw new TransactionRejectedError(`intrinsic gas too low: gas ${gasLimit}, minimum needed ${needed}`);

  const dynamic = tx.supports(Capability.EIP1559FeeMarket);
  const feeCap = dynamic
    ? (tx as unknown as { maxFeePerGas: bigint }).maxFeePerGas
    : (tx as unknown as { gasPrice: bigint }).gasPrice;
  const tipCap = dynamic ? (tx as unknown as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas : feeCap;
  if (tipCap > feeCap) {
    throw new TransactionRejectedError(
      `max priority fee per gas higher than max fee per gas: tip ${tipCap}, max fee ${feeCap}`,
    );
  }
  const baseFee = node.nextBaseFee();
  if (feeCap < baseFee) {
    throw new TransactionRejectedError(
      `transaction underpriced: max fee per gas ${feeCap} is below the pending block's base fee ${baseFee}`,
    );
  }

  const state = node.admissionState();
  const account = state.account(sender);
  const stateNonce = account?.nonce ?? 0n;
  if (tx.nonce < stateNonce)
    throw new TransactionRejectedError(`nonce too low: next nonce ${stateNonce}, tx nonce ${tx.nonce}`);
  const poolNonce = pool.pendingNonce(senderHex, stateNonce);
  if (tx.nonce > poolNonce + MAX_NONCE_GAP) {
    throw new TransactionRejectedError(
      `nonce too high: next nonce ${poolNonce}, tx nonce ${tx.nonce}, at most ${MAX_NONCE_GAP} ahead`,
    );
  }
  const cost = gasLimit * feeCap + tx.value;
  const balance = account?.balance ?? 0n;
  if (balance < cost) {
    throw new TransactionRejectedError(
      `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}`,
    );
  }

  const existing = pool.bySenderNonce(senderHex, tx.nonce);
  if (existing !== undefined) {
    const bumped = (v: bigint) => (v * (100n + REPLACEMENT_BUMP) + 99n) / 100n;
    if (feeCap < bumped(existing.feeCap) || tipCap < bumped(existing.tipCap)) {
      throw new TransactionRejectedError(
        `replacement transaction underpriced: raise both fees by at least ${REPLACEMENT_BUMP}%`,
      );
    }
  } else {
    if (pool.size >= MAX_POOL_SIZE) throw new TransactionRejectedError("txpool is full");
    if (pool.countFor(senderHex) >= MAX_PER_SENDER)
      throw new TransactionRejectedError(
        `too many pooled transactions from this sender (limit ${MAX_PER_SENDER})`,
      );
  }
  return pool.add({ decoded, hashHex, sender, senderHex, nonce: tx.nonce, gasLimit, feeCap, tipCap });
}
