/**
 * Singular batch validity, Holocene rules (specs/protocol/derivation.md "Batch Queue" with the Holocene changes:
 * no `future` buffering, a `past` validity, rules activated by the L1 inclusion block's timestamp).
 */
import { OpFork, bytesEqual } from "../../chain/index.js";
import {
  type DerivationConfig,
  type L1BlockRef,
  type L2BlockRef,
  type SingularBatchData,
  isForkActivationBlock,
  isIsthmus,
} from "../types.js";
import { ACCEPT, type BatchValidity, PAST, drop, undecided } from "./validity.js";

const DEPOSIT_TX_TYPE = 0x7e;
const SET_CODE_TX_TYPE = 0x04;

/** The batch must come exactly after `parent`: later is dropped (no gaps), earlier or equal is past. */
export function checkBatchTimestamp(
  config: DerivationConfig,
  parent: L2BlockRef,
  timestamp: bigint,
): BatchValidity {
  const nextTimestamp = parent.timestamp + config.blockTime;
  if (timestamp > nextTimestamp) return drop("future-timestamp", { timestamp, nextTimestamp });
  if (timestamp < nextTimestamp) return PAST;
  return ACCEPT;
}

/** Rules shared by singular batches and the blocks of span batches: L1 time invariant and sequencer drift. */
export function checkSequencerDrift(
  config: DerivationConfig,
  timestamp: bigint,
  transactionCount: number,
  batchOrigin: L1BlockRef,
  nextOrigin: L1BlockRef | undefined,
  originAdvanced: boolean,
): BatchValidity {
  if (timestamp < batchOrigin.timestamp) {
    return drop("timestamp-before-l1-origin", { timestamp, l1OriginTime: batchOrigin.timestamp });
  }
  const max = batchOrigin.timestamp + config.maxSequencerDrift;
  if (timestamp > max) {
    // Past the drift the sequencer may only produce empty blocks, and only while adopting the next origin
    // would break L2 time >= L1 time.
    if (transactionCount > 0) return drop("sequencer-drift-exceeded", { timestamp, max });
    if (!originAdvanced) {
      if (nextOrigin === undefined) return undecided("the next L1 origin is needed to judge the drift");
      if (timestamp >= nextOrigin.timestamp) {
        return drop("sequencer-drift-not-adopted-next-origin", {
          timestamp,
          nextOriginTime: nextOrigin.timestamp,
        });
      }
    }
  }
  return ACCEPT;
}

/** Transactions a batch may not carry: empty ones, deposits, and SetCode before Isthmus. */
export function checkBatchTransactions(
  config: DerivationConfig,
  timestamp: bigint,
  transactions: readonly Uint8Array[],
): BatchValidity {
  for (let i = 0; i < transactions.length; i++) {
    const tx = transactions[i]!;
    if (tx.length === 0) return drop("empty-transaction", { index: i });
    if (tx[0] === DEPOSIT_TX_TYPE) return drop("deposit-transaction", { index: i });
    if (tx[0] === SET_CODE_TX_TYPE && !isIsthmus(config, timestamp)) {
      return drop("eip7702-pre-isthmus", { index: i });
    }
  }
  return ACCEPT;
}

/**
 * Checks a singular batch against the safe head `parent`.
 * `l1Blocks` starts at the safe head's epoch and ends at the current L1 origin; `inclusion` is the L1 block the
 * batch was read in.
 */
export function checkSingularBatch(
  config: DerivationConfig,
  l1Blocks: readonly L1BlockRef[],
  parent: L2BlockRef,
  batch: SingularBatchData,
  inclusion: L1BlockRef,
): BatchValidity {
  if (l1Blocks.length === 0) return undecided("no L1 blocks to check the batch against");
  const epoch = l1Blocks[0]!;

  const timestampCheck = checkBatchTimestamp(config, parent, batch.timestamp);
  if (timestampCheck.kind !== "accept") return timestampCheck;

  if (!bytesEqual(batch.parentHash, parent.hash)) return drop("parent-hash-mismatch");

  if (batch.epochNumber + config.seqWindowSize < inclusion.number) {
    return drop("included-too-late", { epochNumber: batch.epochNumber, inclusion: inclusion.number });
  }

  let batchOrigin = epoch;
  if (batch.epochNumber < epoch.number) {
    return drop("epoch-too-old", { epochNumber: batch.epochNumber, epoch: epoch.number });
  } else if (batch.epochNumber === epoch.number + 1n) {
    if (l1Blocks.length < 2) return undecided("the next epoch's L1 block is not known yet");
    batchOrigin = l1Blocks[1]!;
  } else if (batch.epochNumber !== epoch.number) {
    return drop("epoch-too-far-ahead", { epochNumber: batch.epochNumber, epoch: epoch.number });
  }

  if (!bytesEqual(batch.epochHash, batchOrigin.hash)) {
    return drop("epoch-hash-mismatch", { epochNumber: batch.epochNumber });
  }

  const originAdvanced = batchOrigin.number !== epoch.number;
  const drift = checkSequencerDrift(
    config,
    batch.timestamp,
    batch.transactions.length,
    batchOrigin,
    l1Blocks[1],
    originAdvanced,
  );
  if (drift.kind !== "accept") return drift;

  // The Jovian activation block carries only deposits and upgrade transactions.
  if (isForkActivationBlock(config, OpFork.Jovian, batch.timestamp) && batch.transactions.length > 0) {
    return drop("non-empty-transition-block", { fork: "jovian" });
  }

  return checkBatchTransactions(config, batch.timestamp, batch.transactions);
}
