/**
 * The root of the host-enclave protocol runtime's errors. Copied verbatim into generated/protocol/ by
 * codegen/binary. generated/ may not import src/, so it does not extend the project's SuiteError
 * (src/errors); it has the same shape: the package, a machine-readable `kind` callers branch on, structured
 * `details` and the standard `cause`.
 */

/** Structured fields of an error: JSON-friendly values (bigints and byte arrays are allowed). */
export type ProtocolErrorDetails = Readonly<Record<string, unknown>>;

export interface ProtocolErrorOptions<Kind extends string> {
  readonly kind: Kind;
  readonly details?: ProtocolErrorDetails;
  readonly cause?: unknown;
}

/** Root of every error of the protocol runtime and the generated protocol code. */
export abstract class ProtocolError<Kind extends string = string> extends Error {
  readonly package = "protocol";
  readonly kind: Kind;
  readonly details: ProtocolErrorDetails;

  constructor(message: string, options: ProtocolErrorOptions<Kind>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = options.kind;
    this.details = options.details ?? {};
  }
}
