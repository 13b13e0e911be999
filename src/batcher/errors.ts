/**
 * The batcher's errors (the project's error model, src/errors): `BatcherError` is the root, each concrete class
 * has one `kind`; callers branch on the class or the kind, never on the message.
 */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type BatcherErrorKind =
  | "config"
  | "l2-read"
  | "l2-reorg"
  | "l1-read"
  | "l1-reorg"
  | "channel-timed-out"
  | "posted-chain-mismatch"
  | "channel-too-large"
  | "tx-failed";

/** Root of the batcher's errors. */
export abstract class BatcherError extends SuiteError<BatcherErrorKind> {
  readonly package = "batcher";

  constructor(
    message: string,
    kind: BatcherErrorKind,
    details?: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, { kind, details, cause: options?.cause });
  }
}

/** A flag or environment variable is missing or malformed (`details.flag` names it). */
export class BatcherConfigError extends BatcherError {
  constructor(message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "config", details, options);
  }
}

/** The L2 node answered something the batcher cannot use (a missing block, a malformed block or transaction). */
export class L2ReadError extends BatcherError {
  constructor(message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "l2-read", details, options);
  }
}

/** A fetched L2 block does not extend the previous one (`details.number`, `expectedParent`, `parentHash`). */
export class L2ReorgError extends BatcherError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "l2-reorg", details);
  }
}

/** The L1 node or its beacon routes answered something the batcher cannot use while re-reading what it posted. */
export class L1ReadError extends BatcherError {
  constructor(message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "l1-read", details, options);
  }
}

/**
 * What the batcher finds posted on L1 does not match the L2 chain (`details.timestamp`, `details.reason`): the L2
 * node was reset under an L1 that still carries the old chain's batches. The batcher refuses to guess.
 */
export class PostedChainMismatchError extends BatcherError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "posted-chain-mismatch", details);
  }
}

/** One L2 block's batch does not fit in a channel of the configured size (`details.block`, `details.bytes`). */
export class ChannelTooLargeError extends BatcherError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "channel-too-large", details);
  }
}

/** An L1 transaction was refused by the node or reverted (`details.hash`, `details.nonce`). */
export class TransactionFailedError extends BatcherError {
  constructor(message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "tx-failed", details, options);
  }
}

/** A confirmed batcher transaction is no longer in the canonical L1 chain (`details.hash`, `details.l1Block`). */
export class L1ReorgError extends BatcherError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "l1-reorg", details);
  }
}

/**
 * The frames of a channel were included over more L1 blocks than the channel timeout allows (less the safety
 * margin): derivation may drop the channel, so the batcher resumes from what L1 holds (`details.channelId`).
 */
export class ChannelTimedOutError extends BatcherError {
  constructor(message: string, details?: ErrorDetails) {
    super(message, "channel-timed-out", details);
  }
}
