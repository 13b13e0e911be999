/**
 * Errors of the RPC-backed providers (docs/errors.md): one root, ChainRpcError, whose `kind` says what went wrong.
 * - `mismatch`: the server answered, but the data does not hash to what names it (a header to its block hash,
 *   transactions or receipts to the header's roots, a blob to its versioned hash). Never retried as "missing":
 *   the server is wrong or lying, and the caller must stop.
 * - `malformed`: the answer is not what the method returns (not JSON, a wrong shape, bad hex, too large).
 * - `unavailable`: no answer (network failure, timeout, an HTTP status that is neither success nor "not found").
 * - `remote`: the server answered with a JSON-RPC error object (its code is in `details.code`).
 * A block the server does not have is not an error: the providers return `undefined`, as the interfaces say.
 */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type ChainRpcErrorKind = "mismatch" | "malformed" | "unavailable" | "remote";

export interface ChainRpcErrorOptions {
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}

/** Root of the RPC providers' errors. */
export abstract class ChainRpcError extends SuiteError<ChainRpcErrorKind> {
  readonly package = "chain-rpc";

  constructor(message: string, kind: ChainRpcErrorKind, options: ChainRpcErrorOptions = {}) {
    super(message, { kind, details: options.details, cause: options.cause });
  }
}

/** What a mismatch is about. */
export type MismatchSubject =
  | "header-hash"
  | "block-number"
  | "transaction-hash"
  | "transactions-root"
  | "receipts-root"
  | "blob-hash"
  | "ancestry"
  | "witness-value";

/** Data that does not hash to what names it. `details.subject` says which check failed. */
export class DataMismatchError extends ChainRpcError {
  readonly subject: MismatchSubject;

  constructor(subject: MismatchSubject, message: string, details: ErrorDetails = {}) {
    super(message, "mismatch", { details: { subject, ...details } });
    this.subject = subject;
  }
}

/** An answer that is not what the method returns. */
export class MalformedResponseError extends ChainRpcError {
  constructor(message: string, options: ChainRpcErrorOptions = {}) {
    super(message, "malformed", options);
  }
}

/** No answer: network failure, timeout, or an HTTP status that says the server cannot serve. */
export class EndpointUnavailableError extends ChainRpcError {
  constructor(message: string, options: ChainRpcErrorOptions = {}) {
    super(message, "unavailable", options);
  }
}

/** A JSON-RPC error object from the server. */
export class RemoteCallError extends ChainRpcError {
  readonly method: string;
  readonly code: number;

  constructor(method: string, code: number, message: string) {
    super(`${method} failed with code ${code}: ${message}`, "remote", { details: { method, code } });
    this.method = method;
    this.code = code;
  }
}
