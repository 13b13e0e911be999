/**
 * The chain node's errors (docs/errors.md): one root, NodeError, whose `kind` names the concrete error.
 * The node's domain (admission, the store, the call workers, the configuration) throws these; the JSON-RPC
 * layer (src/node/rpc/errors.ts) maps them to JSON-RPC errors by class and kind.
 */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type NodeErrorKind =
  | "config"
  | "store-mismatch"
  | "call-worker-exited"
  | "call-failed"
  | "intrinsic-gas"
  | "transaction-not-admitted"
  | "limit-exceeded"
  | "genesis-mismatch"
  | "l1-origin"
  | "block-production"
  | "derived-block-mismatch"
  | "safe-head-inconsistent"
  | "blob-verifier-failed"
  | "leader-unavailable"
  | "leader-request-failed"
  | "leader-diverged"
  | "leader-data-invalid"
  | "replica-verification"
  | "witness-execution";

/** Structured fields and the cause of a node error. */
export interface NodeErrorOptions {
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}

/** Root of the node's errors. */
export abstract class NodeError extends SuiteError<NodeErrorKind> {
  readonly package = "node";

  constructor(message: string, kind: NodeErrorKind, options: NodeErrorOptions = {}) {
    super(message, { kind, details: options.details, cause: options.cause });
  }
}

/** Why admission refused a transaction (eth_sendRawTransaction, the pool journal on restart). */
export type AdmissionRefusal =
  | "oversized"
  | "empty"
  | "deposit"
  | "wrong-chain-id"
  | "invalid-encoding"
  | "already-known"
  | "invalid-sender"
  | "exceeds-block-gas-limit"
  | "intrinsic-gas-too-low"
  | "tip-above-fee-cap"
  | "underpriced"
  | "nonce-too-low"
  | "nonce-too-high"
  | "insufficient-funds"
  | "replacement-underpriced"
  | "pool-full"
  | "sender-limit";

/**
 * A transaction the pool does not accept. The message is for a person (geth's wording where geth has one);
 * callers branch on `refusal`. The RPC layer answers it with JSON-RPC error -32000.
 */
export class TransactionNotAdmittedError extends NodeError {
  readonly refusal: AdmissionRefusal;

  constructor(refusal: AdmissionRefusal, message: string, details: ErrorDetails = {}, cause?: unknown) {
    super(message, "transaction-not-admitted", { details: { refusal, ...details }, cause });
    this.refusal = refusal;
  }
}
