/**
 * Converts blocks, transactions, receipts and logs of the store or of a pending snapshot into the
 * generated RPC types (bigints and bytes; the generated codecs write the hex).
 */
import type { Common } from "@ethereumjs/common";
import type { EOACode7702Tx } from "@ethereumjs/tx";
import {
  type BlockHeader,
  bytesToBigInt,
  type DecodedTransaction,
  l1InfoOfFirstTransaction,
  decodeTransaction,
  EMPTY_TRIE_ROOT,
  type Receipt,
  type ReceiptDetails,
} from "../../chain/index.js";
import type * as T from "../../../generated/rpc/index.js";
import type { BlockContent } from "../block-content.js";

/** Where a transaction sits (null fields for pooled transactions). */
export interface TxPlacement {
  blockHash: Uint8Array;
  blockNumber: bigint;
  blockTimestamp: bigint;
  index: number;
}

export function formatHeader(h: BlockHeader, hash: Uint8Array, size: bigint): Omit<T.Block, "transactions"> {
  const block: Omit<T.Block, "transactions"> = {
    number: h.number,
    hash,
    parentHash: h.parentHash,
    nonce: h.nonce,
    sha3Uncles: h.ommersHash,
    logsBloom: h.logsBloom,
    transactionsRoot: h.transactionsRoot,
    stateRoot: h.stateRoot,
    receiptsRoot: h.receiptsRoot,
    miner: h.beneficiary,
    difficulty: h.difficulty,
    mixHash: h.mixHash,
    extraData: h.extraData,
    size,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    uncles: [],
    withdrawals: [],
    withdrawalsRoot: h.withdrawalsRoot ?? EMPTY_TRIE_ROOT,
    baseFeePerGas: h.baseFeePerGas ?? 0n,
    blobGasUsed: h.blobGasUsed ?? 0n,
    excessBlobGas: h.excessBlobGas ?? 0n,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot ?? new Uint8Array(32),
  };
  if (h.requestsHash !== undefined) block.requestsHash = h.requestsHash;
  return block;
}

export function formatBlock(content: BlockContent, full: boolean, common: Common): T.Block {
  const header = formatHeader(content.header, content.hash, content.size);
  const transactions: T.BlockTransactions = full
    ? content.transactions.map((raw, i) =>
        formatTransaction(decodeTransaction(raw, common), {
          placement: {
            blockHash: content.hash,
            blockNumber: content.header.number,
            blockTimestamp: content.header.timestamp,
            index: i,
          },
          details: content.details[i],
          receipt: content.receipts[i],
        }),
      )
    : [...content.transactionHashes];
  return { ...header, transactions };
}

function accessList(list: [Uint8Array, Uint8Array[]][] | undefined): T.AccessListEntry[] {
  return (list ?? []).map(([address, storageKeys]) => ({ address, storageKeys }));
}

export function formatTransaction(
  decoded: DecodedTransaction,
  ctx: { placement?: TxPlacement; details?: ReceiptDetails; receipt?: Receipt; sender?: Uint8Array },
): T.Transaction {
  const p = ctx.placement;
  const place = {
    blockHash: p?.blockHash ?? null,
    blockNumber: p?.blockNumber ?? null,
    transactionIndex: p === undefined ? null : BigInt(p.index),
    ...(p === undefined ? {} : { blockTimestamp: p.blockTimestamp }),
  };
  const body = decoded.body;
  if (body.kind === "deposit") {
    const tx: T.DepositTransaction = {
      type: "0x7e",
      ...place,
      hash: decoded.hash,
      from: body.from,
      sourceHash: body.sourceHash,
      to: body.to ?? null,
      mint: body.mint,
      value: body.value,
      gas: body.gasLimit,
      input: body.data,
      nonce: ctx.receipt?.depositNonce ?? 0n,
      gasPrice: 0n,
      v: 0n,
      r: 0n,
      s: 0n,
      yParity: 0,
    };
    if (body.isSystemTx) tx.isSystemTx = true;
    if (ctx.receipt?.depositReceiptVersion !== undefined)
      tx.depositReceiptVersion = ctx.receipt.depositReceiptVersion;
    return tx;
  }
  const t = body.tx;
  const from = ctx.details?.from ?? ctx.sender ?? t.getSenderAddress().bytes;
  const common = {
    ...place,
    hash: decoded.hash,
    from,
    nonce: t.nonce,
    gas: t.gasLimit,
    value: t.value,
    input: t.data,
    r: t.r ?? 0n,
    s: t.s ?? 0n,
  };
  const to = t.to?.bytes ?? null;
  const chainId = t.common.chainId();
  const yParity = Number(t.v ?? 0n) & 1;
  switch (decoded.type) {
    case 0: {
      const legacy = t as unknown as { gasPrice: bigint; v?: bigint };
      const v = legacy.v ?? 0n;
      const tx: T.LegacyTransaction = { type: "0x0", ...common, to, gasPrice: legacy.gasPrice, v };
      if (v !== 27n && v !== 28n) tx.chainId = chainId;
      return tx;
    }
    case 1: {
      const a = t as unknown as { gasPrice: bigint; accessList: [Uint8Array, Uint8Array[]][] };
      return {
        type: "0x1",
        ...common,
        to,
        gasPrice: a.gasPrice,
        chainId,
        accessList: accessList(a.accessList),
        yParity,
        v: BigInt(yParity),
      };
    }
    case 2:
    case 4: {
      const d = t as unknown as {
        maxFeePerGas: bigint;
        maxPriorityFeePerGas: bigint;
        accessList: [Uint8Array, Uint8Array[]][];
      };
      const fees = {
        maxFeePerGas: d.maxFeePerGas,
        maxPriorityFeePerGas: d.maxPriorityFeePerGas,
        gasPrice: ctx.details?.effectiveGasPrice ?? d.maxFeePerGas,
        chainId,
        accessList: accessList(d.accessList),
        yParity,
        v: BigInt(yParity),
      };
      if (decoded.type === 2) return { type: "0x2", ...common, to, ...fees };
      const auth = (t as EOACode7702Tx).authorizationList.map(([c, address, nonce, y, r, s]) => ({
        chainId: bytesToBigInt(c),
        address,
        nonce: bytesToBigInt(nonce),
        yParity: Number(bytesToBigInt(y)),
        r: bytesToBigInt(r),
        s: bytesToBigInt(s),
      }));
      return { type: "0x4", ...common, to: to ?? new Uint8Array(20), ...fees, authorizationList: auth };
    }
    default:
      throw new RangeError(`unsupported transaction type ${decoded.type}`);
  }
}

/** Index of the first log of transaction `index` within its block. */
export function firstLogIndex(receipts: readonly Receipt[], index: number): number {
  let n = 0;
  for (let i = 0; i < index; i++) n += receipts[i]!.logs.length;
  return n;
}

export function formatLogs(content: BlockContent, index: number): T.Log[] {
  const receipt = content.receipts[index]!;
  let logIndex = firstLogIndex(content.receipts, index);
  return receipt.logs.map((l) => ({
    removed: false,
    logIndex: BigInt(logIndex++),
    transactionIndex: BigInt(index),
    transactionHash: content.transactionHashes[index]!,
    blockHash: content.hash,
    blockNumber: content.header.number,
    blockTimestamp: content.header.timestamp,
    address: l.address,
    data: l.data,
    topics: l.topics,
  }));
}

export function formatReceipt(content: BlockContent, index: number): T.Receipt {
  const receipt = content.receipts[index]!;
  const details = content.details[index]!;
  const prevCumulative = index === 0 ? 0n : content.receipts[index - 1]!.cumulativeGasUsed;
  const r: T.Receipt = {
    type: receipt.type,
    transactionHash: content.transactionHashes[index]!,
    transactionIndex: BigInt(index),
    blockHash: content.hash,
    blockNumber: content.header.number,
    from: details.from,
    to: details.to ?? null,
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    gasUsed: receipt.cumulativeGasUsed - prevCumulative,
    effectiveGasPrice: details.effectiveGasPrice,
    contractAddress: details.contractAddress ?? null,
    logs: formatLogs(content, index),
    logsBloom: receipt.logsBloom,
    status: BigInt(receipt.status),
  };
  if (receipt.type === 0x7e) {
    if (receipt.depositNonce !== undefined) r.depositNonce = receipt.depositNonce;
    if (receipt.depositReceiptVersion !== undefined) r.depositReceiptVersion = receipt.depositReceiptVersion;
  } else {
    r.l1Fee = details.l1Fee;
    const first = content.transactions[0];
    // The block's own L1 info deposit (synthetic standalone, the real L1's in L1 mode; any format).
    const info = l1InfoOfFirstTransaction(first);
    if (info !== undefined) {
      r.l1GasPrice = info.baseFee;
      r.l1BlobBaseFee = info.blobBaseFee;
      r.l1BaseFeeScalar = BigInt(info.baseFeeScalar);
      r.l1BlobBaseFeeScalar = BigInt(info.blobBaseFeeScalar);
      r.operatorFeeScalar = BigInt(info.operatorFeeScalar);
      r.operatorFeeConstant = info.operatorFeeConstant;
    }
  }
  return r;
}
