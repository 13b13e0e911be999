/**
 * Errors of the derived safe head (docs/node/l1.md "Safe and finalized heads"). Both extend the node's root,
 * NodeError; callers branch on the class or `kind`.
 */
import { NodeError } from "../errors.js";

/** What differs between the block derivation produced and the block the node sealed. */
export interface BlockDifference {
  /** The first field that differs: a header field name, `transactionCount` or `transactions[i]`. */
  readonly field: string;
  /** Its value in the sealed block and in the derived one (hex or decimal text). */
  readonly sealed: string;
  readonly derived: string;
}

/**
 * The L2 block derived from L1 is not the block the node sealed at that height. The safe head stops before it
 * for good (until the node restarts): the sealed chain is not the chain L1 says it is.
 */
export class DerivedBlockMismatchError extends NodeError {
  readonly number: bigint;
  readonly difference: BlockDifference;

  constructor(input: {
    number: bigint;
    sealedHash: string;
    derivedHash: string;
    difference: BlockDifference;
    depositOnly: boolean;
  }) {
    super(
      `L2 block ${input.number} derived from L1 (${input.derivedHash}) is not the sealed block (${input.sealedHash}): ${input.difference.field} differs`,
      "derived-block-mismatch",
      {
        details: {
          number: input.number,
          sealedHash: input.sealedHash,
          derivedHash: input.derivedHash,
          field: input.difference.field,
          sealedValue: input.difference.sealed,
          derivedValue: input.difference.derived,
          depositOnly: input.depositOnly,
        },
      },
    );
    this.number = input.number;
    this.difference = input.difference;
  }
}

/** The node's store cannot serve what the tracker needs (a sealed block missing, a broken parent link). */
export class SafeHeadInconsistencyError extends NodeError {
  constructor(message: string, details: Record<string, unknown>) {
    super(message, "safe-head-inconsistent", { details });
  }
}

/** The KZG worker thread that checks blobs failed (it could not load KZG, or exited): the blob is not verified. */
export class BlobVerifierError extends NodeError {
  constructor(message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, "blob-verifier-failed", options);
  }
}
