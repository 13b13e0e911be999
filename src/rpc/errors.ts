/**
 * JSON-RPC errors as named classes. Every error carries the JSON-RPC code it maps to and a
 * message a person can act on; `data` is optional structured detail sent to the caller.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, options: { data?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
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
    super(-32700, message, options);
  }
}

/** -32600: valid JSON, but not a valid JSON-RPC 2.0 request (or a request over a limit). */
export class InvalidRequestError extends RpcError {
  constructor(message: string, options?: { data?: unknown; cause?: unknown }) {
    super(-32600, message, options);
  }
}

/** -32601: no such method. */
export class MethodNotFoundError extends RpcError {
  constructor(method: string) {
    super(-32601, `the method ${method} does not exist/is not available`);
  }
}

/** -32602: the params do not match the method's signature. The message names the parameter. */
export class InvalidParamsError extends RpcError {
  constructor(message: string, options?: { data?: unknown; cause?: unknown }) {
    super(-32602, message, options);
  }
}

/** -32603: a bug or unexpected failure inside the server. */
export class InternalError extends RpcError {
  constructor(message = "internal error", options?: { data?: unknown; cause?: unknown }) {
    super(-32603, message, options);
  }
}

/** Converts anything thrown by a handler into an RpcError (unknown errors become InternalError). */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(`internal error: ${message}`, { cause: error });
}
