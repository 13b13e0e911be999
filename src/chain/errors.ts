/**
 * The execution engine's errors (docs/errors.md): one root, ChainError, whose `kind` names the concrete
 * error; structured fields are in `details` (and kept as named properties where a class exposes them).
 */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type ChainErrorKind =
  | "invalid-hex"
  | "invalid-header"
  | "invalid-extra-data"
  | "invalid-transaction-encoding"
  | "invalid-rollup-config"
  | "invalid-l1-info"
  | "invalid-output-root-preimage"
  | "invalid-fixture"
  | "invalid-block"
  | "transaction-rejected"
  | "block-builder-failed"
  | "block-sealed"
  | "ordered-trie-shrunk"
  | "missing-preimage"
  | "malformed-trie-node"
  | "preimage-mismatch"
  | "invalid-preimage-key"
  | "predeploy-artifact"
  | "predeploy-compile"
  | "unknown-chain"
  | "superchain-registry"
  | "kzg-backend"
  | "invalid-kzg-input";

/** Structured fields and the cause of a chain error. */
export interface ChainErrorOptions {
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}

/** Root of the execution engine's errors. */
export abstract class ChainError extends SuiteError<ChainErrorKind> {
  readonly package = "chain";

  constructor(message: string, kind: ChainErrorKind, options: ChainErrorOptions = {}) {
    super(message, { kind, details: options.details, cause: options.cause });
  }
}
