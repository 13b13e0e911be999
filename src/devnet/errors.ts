/** Errors of the devnet launcher: one root, DevnetError, with a kind per case. */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type DevnetErrorKind =
  | "usage"
  | "child-ready-timeout"
  | "child-exited"
  | "child-failed"
  | "rollup-config-invalid"
  | "rollup-config-mismatch"
  | "deposit-not-included"
  | "prover-setup-failed"
  | "prove-failed"
  | "slot-grid"
  | "gas-limit";

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

/** SystemConfig.setGasLimit for `--gas-limit` reverted. */
export class DevnetGasLimitError extends DevnetError {
  constructor(message: string, details: ErrorDetails) {
    super(message, "gas-limit", details);
  }
}

/** The L1's saved slot grid (`<state dir>/beacon.json`) is unreadable or has another slot length. */
export class SlotGridError extends DevnetError {
  constructor(message: string, details: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "slot-grid", details, options);
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

/**
 * The devnet's prover side could not be set up: the anchor's output root unreadable (`details.step` "anchor"), a
 * proposer-list transaction reverted ("proposer"), or the registrar left an enclave signer unregistered ("register").
 */
export class DevnetProverSetupError extends DevnetError {
  constructor(message: string, details: ErrorDetails & { step: "anchor" | "proposer" | "register" }) {
    super(message, "prover-setup-failed", details);
  }
}

/**
 * `npm run prove` could not finish: a JSON-RPC call failed (`details.step` "rpc", with the method and the error's
 * code), the safe head did not reach the range in time ("safe-head"), or the proposals' roots are not the node's
 * ("roots").
 */
export class DevnetProveError extends DevnetError {
  constructor(message: string, details: ErrorDetails & { step: "rpc" | "safe-head" | "roots" }) {
    super(message, "prove-failed", details);
  }
}
