/** Errors of the load generator: one root, LoadError, with a kind per case (docs/errors.md). */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type LoadErrorKind = "usage" | "setup-failed" | "rpc-failed";

/** Root of the load generator's errors. */
export abstract class LoadError extends SuiteError<LoadErrorKind> {
  readonly package = "load";

  constructor(message: string, kind: LoadErrorKind, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, { kind, details, cause: options?.cause });
  }
}

/** A flag of `npm run load` is malformed. */
export class LoadUsageError extends LoadError {
  constructor(message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, "usage", details, options);
  }
}

/** Deploying the load contracts or funding the senders failed (`details.step` names the step). */
export class LoadSetupError extends LoadError {
  constructor(message: string, details: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "setup-failed", details, options);
  }
}

/** A JSON-RPC call the generator needs (not a send it counts) failed or answered an error. */
export class LoadRpcError extends LoadError {
  constructor(message: string, details: ErrorDetails, options?: { cause?: unknown }) {
    super(message, "rpc-failed", details, options);
  }
}
