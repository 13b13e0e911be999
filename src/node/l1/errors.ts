/** Errors of the node's L1 mode (docs/node/l1.md "L1 mode"), under the node's root NodeError. */
import type { ErrorDetails } from "../../errors/index.js";
import { NodeError } from "../errors.js";

/**
 * The rollup config's L2 genesis is not the one this node builds from it (another state, time or system
 * config), or a data directory holds another chain than the rollup config describes.
 */
export class GenesisMismatchError extends NodeError {
  constructor(message: string, details: ErrorDetails) {
    super(message, "genesis-mismatch", { details });
  }
}

/** The sequencer cannot get an L1 origin it needs (the genesis L1 block is missing, a parent lacks its L1 info). */
export class L1OriginUnavailableError extends NodeError {
  constructor(message: string, details: ErrorDetails, cause?: unknown) {
    super(message, "l1-origin", { details, cause });
  }
}

/** A deposit the block's attributes require was refused by the execution engine: the block cannot be built. */
export class DepositRejectedError extends NodeError {
  constructor(message: string, details: ErrorDetails, cause?: unknown) {
    super(message, "block-production", { details, cause });
  }
}
