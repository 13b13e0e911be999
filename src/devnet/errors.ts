/** Errors of the devnet launcher: one root, DevnetError, with a kind per case. */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type DevnetErrorKind =
  | "usage"
  | "child-ready-timeout"
  | "child-exited"
  | "child-failed"
  | "rollup-config-invalid"
  | "rollup-config-mismatch"
  | "deposit-not-included";

/** Root of the devnet launcher's errors. */
export abstract class DevnetError extends SuiteError<DevnetErrorKind> {
  readonly package = "devnet";

  constructor(message: string, kind: DevnetErrorKind, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, { kind, details, cause: options?.cause });
  }
}

/** A flag or environment variable of `npm start` is malformed. */
export class DevnetUsageError extends DevnetError {
  constructor(message: string) {
    super(message, "usage");
  }
}

/**
 * A child service did not get ready: it did not print its ready line in time (child-ready-timeout), exited first
 * (child-exited), or a run-to-completion child failed (child-failed).
 */
export class ChildExitedError extends DevnetError {
  constructor(
    message: string,
    kind: "child-ready-timeout" | "child-exited" | "child-failed",
    details?: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, kind, details, options);
  }
}

/**
 * The devnet's `<data-dir>/rollup.json` cannot be used: unreadable or not a rollup config the devnet wrote
 * (rollup-config-invalid), or it names an L1 genesis block, contracts, chain ids or an L2 genesis that this L1 or
 * this code does not have (rollup-config-mismatch; `details.field` names what differs).
 */
export class DevnetRollupConfigError extends DevnetError {
  constructor(
    message: string,
    kind: "rollup-config-invalid" | "rollup-config-mismatch",
    details: ErrorDetails & { path: string },
    options?: { cause?: unknown },
  ) {
    super(message, kind, details, options);
  }
}

/** A deposit's L2 transaction did not appear on L2 within the time allowed (`details.l2TxHash`, `details.timeoutMs`). */
export class DepositNotIncludedError extends DevnetError {
  constructor(
    message: string,
    details: ErrorDetails & { l1TxHash: string; l2TxHash: string; timeoutMs: number },
  ) {
    super(message, "deposit-not-included", details);
  }
}
