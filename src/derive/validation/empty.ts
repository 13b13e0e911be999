/**
 * Empty batches when the sequencing window runs out (specs/protocol/derivation.md, end of "Batch Queue").
 * Called when the current L1 block holds no further batch for the safe head.
 */
import type { DerivationConfig, L1BlockRef, L2BlockRef, SingularBatchData } from "../types.js";

export type EmptyBatchDecision =
  /** Derive this empty batch. */
  | { readonly kind: "batch"; readonly batch: SingularBatchData }
  /** Every empty batch of the current epoch is derived: drop `l1Blocks[0]` and wait for the next L1 block. */
  | { readonly kind: "advance-epoch" }
  /** The window has not expired, or the next epoch's L1 block is not known yet: wait for the next L1 block. */
  | { readonly kind: "wait" };

/**
 * `l1Blocks[0]` is the current epoch, `origin` the L1 block being read (its data fully consumed).
 */
export function deriveEmptyBatch(
  config: DerivationConfig,
  l1Blocks: readonly L1BlockRef[],
  origin: L1BlockRef,
  parent: L2BlockRef,
): EmptyBatchDecision {
  const epoch = l1Blocks[0];
  if (epoch === undefined) return { kind: "wait" };
  const expiryEpoch = epoch.number + config.seqWindowSize;
  if (expiryEpoch > origin.number) return { kind: "wait" };
  const nextEpoch = l1Blocks[1];
  if (nextEpoch === undefined) return { kind: "wait" };
  const nextTimestamp = parent.timestamp + config.blockTime;
  const firstOfEpoch = epoch.number === parent.l1Origin.number + 1n;
  // Repeat the epoch while L2 time would fall behind the next epoch's L1 time; every epoch gets at least one block.
  if (nextTimestamp < nextEpoch.timestamp || firstOfEpoch) {
    return {
      kind: "batch",
      batch: {
        parentHash: parent.hash,
        epochNumber: epoch.number,
        epochHash: epoch.hash,
        timestamp: nextTimestamp,
        transactions: [],
      },
    };
  }
  return { kind: "advance-epoch" };
}
