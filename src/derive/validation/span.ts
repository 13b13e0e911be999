/**
 * Span batch checks under Holocene: the prefix checks (specs/protocol/holocene/derivation.md "Span Batches"),
 * then the overlap checks of specs/protocol/delta/span-batches.md, which Holocene keeps (ethereum-optimism/specs
 * #928, 2026): blocks of the span at or before the safe head must equal the safe chain's (same L1 origin number,
 * same non-deposit transactions). Every block after the safe head is then checked as a singular batch.
 */
import { DEPOSIT_TX_TYPE, OpFork, isForkActive, bytesEqual } from "../../chain/index.js";
import {
  type BlockId,
  type DerivationConfig,
  type L1BlockRef,
  type L2BlockRef,
  type SingularBatchData,
  hasPrefix,
} from "../types.js";
import { ACCEPT, type BatchValidity, PAST, drop, undecided } from "./validity.js";

/** One block of a span batch with its absolute timestamp and L1 origin number. */
export interface SpanBlock {
  readonly timestamp: bigint;
  readonly epochNumber: bigint;
  readonly transactions: readonly Uint8Array[];
}

/**
 * The blocks of a span batch by index (an array, or the derivation's SpanBatchBlockList, which computes each
 * block when asked for, so that a span declaring millions of blocks is not expanded before it is validated).
 */
export interface SpanBlockList {
  readonly length: number;
  at(index: number): SpanBlock | undefined;
}

/** What validation needs of a span batch. */
export interface SpanBatchView {
  /** First 20 bytes of the parent hash of the span's first block. */
  readonly parentCheck: Uint8Array;
  /** First 20 bytes of the L1 origin hash of the span's last block. */
  readonly l1OriginCheck: Uint8Array;
  /** At least one block, timestamps increasing. */
  readonly blocks: SpanBlockList;
}

/** An L2 block of the safe chain with its transactions (EIP-2718, deposits included). */
export interface SafeBlock {
  readonly ref: L2BlockRef;
  readonly transactions: readonly Uint8Array[];
}

/** Reads the safe chain at or below the safe head. Missing data must throw (DataMissingError), never guess. */
export interface SafeChainReader {
  blockRef(number: bigint): Promise<L2BlockRef>;
  block(number: bigint): Promise<SafeBlock>;
}

export interface SpanPrefixResult {
  readonly validity: BatchValidity;
  /** The L2 block the span builds on, when the checks got that far. */
  readonly parent?: L2BlockRef;
}

/** The Holocene span batch prefix checks. */
export async function checkSpanBatchPrefix(
  config: DerivationConfig,
  l1Blocks: readonly L1BlockRef[],
  safeHead: L2BlockRef,
  span: SpanBatchView,
  inclusion: L1BlockRef,
  chain: SafeChainReader,
): Promise<SpanPrefixResult> {
  if (l1Blocks.length === 0) return { validity: undecided("no L1 blocks to check the span batch against") };
  const first = span.blocks.at(0);
  const last = span.blocks.at(span.blocks.length - 1);
  if (first === undefined || last === undefined) return { validity: undecided("empty span batch") };
  const epoch = l1Blocks[0]!;
  const startEpochNum = first.epochNumber;

  let batchOrigin = epoch;
  if (startEpochNum === epoch.number + 1n) {
    if (l1Blocks.length < 2) return { validity: undecided("the next epoch's L1 block is not known yet") };
    batchOrigin = l1Blocks[1]!;
  }
  if (!isForkActive(config.rollup, OpFork.Delta, batchOrigin.timestamp)) {
    return { validity: drop("span-batch-pre-delta") };
  }

  const nextTimestamp = safeHead.timestamp + config.blockTime;
  if (first.timestamp > nextTimestamp) {
    return { validity: drop("future-timestamp", { timestamp: first.timestamp, nextTimestamp }) };
  }
  if (last.timestamp < nextTimestamp) return { validity: PAST };

  let parent = safeHead;
  if (first.timestamp < nextTimestamp) {
    if (first.timestamp > safeHead.timestamp) return { validity: drop("span-misaligned-timestamp") };
    const behind = safeHead.timestamp - first.timestamp;
    if (behind % config.blockTime !== 0n) return { validity: drop("span-not-overlapped-exactly") };
    parent = await chain.blockRef(safeHead.number - behind / config.blockTime - 1n);
  }
  if (!hasPrefix(parent.hash, span.parentCheck)) {
    return { validity: drop("parent-hash-mismatch", { parent: parent.number }), parent };
  }
  if (startEpochNum + config.seqWindowSize < inclusion.number) {
    return {
      validity: drop("included-too-late", { epochNumber: startEpochNum, inclusion: inclusion.number }),
      parent,
    };
  }
  if (startEpochNum > parent.l1Origin.number + 1n) {
    return {
      validity: drop("epoch-too-far-ahead", {
        epochNumber: startEpochNum,
        parentEpoch: parent.l1Origin.number,
      }),
      parent,
    };
  }
  const endEpoch = l1Blocks.find((b) => b.number === last.epochNumber);
  if (endEpoch === undefined)
    return { validity: undecided("the span's last L1 origin is not known yet"), parent };
  if (!hasPrefix(endEpoch.hash, span.l1OriginCheck)) {
    return { validity: drop("epoch-hash-mismatch", { epochNumber: last.epochNumber }), parent };
  }
  if (startEpochNum < parent.l1Origin.number) {
    return {
      validity: drop("epoch-too-old", { epochNumber: startEpochNum, parentEpoch: parent.l1Origin.number }),
      parent,
    };
  }
  return { validity: ACCEPT, parent };
}

/**
 * The overlap checks: each span block at or before the safe head must match the safe block of the same height
 * (L1 origin number, and the transactions other than deposits, byte for byte).
 */
export async function checkSpanBatchOverlap(
  config: DerivationConfig,
  safeHead: L2BlockRef,
  parent: L2BlockRef,
  span: SpanBatchView,
  chain: SafeChainReader,
): Promise<BatchValidity> {
  const first = span.blocks.at(0);
  if (first === undefined || first.timestamp >= safeHead.timestamp + config.blockTime) return ACCEPT;
  const overlapped = safeHead.number - parent.number;
  for (let i = 0n; i < overlapped; i++) {
    const number = parent.number + i + 1n;
    const block = span.blocks.at(Number(i));
    if (block === undefined) break; // cannot happen: the span reaches past the safe head (prefix checks)
    const safe = await chain.block(number);
    let deposits = 0;
    while (deposits < safe.transactions.length && safe.transactions[deposits]![0] === DEPOSIT_TX_TYPE)
      deposits++;
    if (safe.transactions.length - deposits !== block.transactions.length) {
      return drop("overlap-tx-count-mismatch", {
        number,
        safeTxs: safe.transactions.length - deposits,
        batchTxs: block.transactions.length,
      });
    }
    for (let j = 0; j < block.transactions.length; j++) {
      if (!bytesEqual(safe.transactions[deposits + j]!, block.transactions[j]!)) {
        return drop("overlap-tx-mismatch", { number, index: j });
      }
    }
    if (safe.ref.l1Origin.number !== block.epochNumber) {
      return drop("overlap-l1-origin-mismatch", {
        number,
        safeEpoch: safe.ref.l1Origin.number,
        batchEpoch: block.epochNumber,
      });
    }
  }
  return ACCEPT;
}

/** The span's blocks after the safe head as singular batches, L1 origin hashes filled in from `l1Blocks`. */
export function spanSingularBatches(
  span: SpanBatchView,
  l1Blocks: readonly L1BlockRef[],
  safeHead: L2BlockRef,
): { batches: Omit<SingularBatchData, "parentHash">[] } | { validity: BatchValidity } {
  const out: Omit<SingularBatchData, "parentHash">[] = [];
  let originIndex = 0;
  for (let i = 0; i < span.blocks.length; i++) {
    const block = span.blocks.at(i)!;
    if (block.timestamp <= safeHead.timestamp) continue;
    if (block.epochNumber < safeHead.l1Origin.number) {
      return {
        validity: drop("span-l1-origin-before-safe-head", {
          epochNumber: block.epochNumber,
          safeEpoch: safeHead.l1Origin.number,
        }),
      };
    }
    let origin: BlockId | undefined;
    for (let k = originIndex; k < l1Blocks.length; k++) {
      if (l1Blocks[k]!.number === block.epochNumber) {
        origin = l1Blocks[k];
        originIndex = k;
        break;
      }
    }
    if (origin === undefined)
      return { validity: drop("span-missing-l1-origin", { epochNumber: block.epochNumber }) };
    out.push({
      epochNumber: block.epochNumber,
      epochHash: origin.hash,
      timestamp: block.timestamp,
      transactions: block.transactions,
    });
  }
  return { batches: out };
}
