/** The outcome of checking a batch against the safe chain (specs/protocol/holocene/derivation.md, Batch Queue). */

/** Why a batch is dropped; stable strings for logs and tests. */
export type DropReason =
  | "future-timestamp"
  | "parent-hash-mismatch"
  | "included-too-late"
  | "epoch-too-old"
  | "epoch-too-far-ahead"
  | "epoch-hash-mismatch"
  | "timestamp-before-l1-origin"
  | "sequencer-drift-exceeded"
  | "sequencer-drift-not-adopted-next-origin"
  | "non-empty-transition-block"
  | "empty-transaction"
  | "deposit-transaction"
  | "eip7702-pre-isthmus"
  | "span-batch-pre-delta"
  | "span-misaligned-timestamp"
  | "span-not-overlapped-exactly"
  | "span-l1-origin-before-safe-head"
  | "span-missing-l1-origin"
  | "overlap-tx-count-mismatch"
  | "overlap-tx-mismatch"
  | "overlap-l1-origin-mismatch";

/**
 * - accept: apply the batch;
 * - past: the batch is at or before the safe head: skip it silently (the channel goes on);
 * - undecided: not enough L1 blocks yet to decide (the batch is consumed without effect, as op-node does);
 * - drop: invalid; the rest of its span batch and channel are flushed (Holocene fast channel invalidation).
 */
export type BatchValidity =
  | { readonly kind: "accept" }
  | { readonly kind: "past" }
  | { readonly kind: "undecided"; readonly why: string }
  | {
      readonly kind: "drop";
      readonly reason: DropReason;
      readonly details?: Readonly<Record<string, unknown>>;
    };

export const ACCEPT: BatchValidity = { kind: "accept" };
export const PAST: BatchValidity = { kind: "past" };

export function drop(reason: DropReason, details?: Readonly<Record<string, unknown>>): BatchValidity {
  return details === undefined ? { kind: "drop", reason } : { kind: "drop", reason, details };
}

export function undecided(why: string): BatchValidity {
  return { kind: "undecided", why };
}
