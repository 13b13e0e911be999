/**
 * The errors of the JSON-RPC runtime. Their root, RpcRuntimeError, extends the project's one error root,
 * SuiteError (src/errors, the one module outside generated/ that generated code imports): the package, a
 * machine-readable `kind` callers branch on, structured `details`, the standard `cause` and `walk()`.
 *
 * RpcError is the error a JSON-RPC server answers with: it carries the JSON-RPC code and optional `data` for
 * the caller. The standard codes have their classes here; generated/rpc/errors.ts adds one class per error the
 * spec declares; servers add their own (src/rpc/server-errors.ts).
 */
import { type ErrorDetails, SuiteError, type SuiteErrorOptions } from "../../../src/errors/index.js";

/** Structured fields of an error: JSON-friendly values (bigints and byte arrays are allowed). */
export type RpcErrorDetails = ErrorDetails;

export type RpcRuntimeErrorOptions<Kind extends string> = SuiteErrorOptions<Kind>;

/** Root of every error the JSON-RPC runtime and the generated code define. */
export abstract class RpcRuntimeError<Kind extends string = string> extends SuiteError<Kind> {
  readonly package = "rpc";
}

export interface RpcErrorOptions {
  /** Structured detail sent to the caller in the error object's `data`. */
  readonly data?: unknown;
  readonly cause?: unknown;
  /** Defaults to "rpc-error"; every subclass names its own. */
  readonly kind?: string;
  /** Structured fields for logs and callers; defaults to `{ code }`. */
  readonly details?: RpcErrorDetails;
}

/**
 * A JSON-RPC error as a named class. Every error carries the JSON-RPC code it maps to and a message a person
 * can act on; `data` is optional structured detail sent to the caller.
 */
export class RpcError extends RpcRuntimeError {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, options: RpcErrorOptions = {}) {
    super(message, {
      kind: options.kind ?? "rpc-error",
      details: options.details ?? { code },
      cause: options.cause,
    });
    this.code = code;
    this.data = options.data;
  }

  /** The JSON-RPC error object for a response. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** -32700: the body is not valid JSON. */
export class ParseError extends RpcError {
  constructor(message = "parse error: request body is not valid JSON", options?: { cause?: unknown }) {
    super(-32700, message, { ...options, kind: "parse-error" });
  }
}

/** -32600: valid JSON, but not a valid JSON-RPC 2.0 request (or a request over a limit). */
export class InvalidRequestError extends RpcError {
  constructor(message: string, options?: { data?: unknown; cause?: unknown }) {
    super(-32600, message, { ...options, kind: "invalid-request" });
  }
}

/** -32601: no such method. */
export class MethodNotFoundError extends RpcError {
  constructor(method: string) {
    super(-32601, `the method ${method} does not exist/is not available`, {
      kind: "method-not-found",
      details: { code: -32601, method },
    });
  }
}

/** -32602: the params do not match the method's signature. The message names the parameter. */
export class InvalidParamsError extends RpcError {
  constructor(message: string, options?: { data?: unknown; cause?: unknown }) {
    super(-32602, message, { ...options, kind: "invalid-params" });
  }
}

/** -32603: a bug or unexpected failure inside the server. */
export class InternalError extends RpcError {
  constructor(message = "internal error", options?: { data?: unknown; cause?: unknown }) {
    super(-32603, message, { ...options, kind: "internal-error" });
  }
}
