/**
 * The root of the host-enclave protocol runtime's errors. Copied into generated/protocol/ by codegen/binary. It
 * extends the project's one error root, SuiteError (src/errors, the one module outside generated/ that generated
 * code imports): the package, a machine-readable `kind` callers branch on, structured `details`, the standard
 * `cause` and `walk()` over the causes.
 */
import { type ErrorDetails, SuiteError, type SuiteErrorOptions } from "../../../src/errors/index.js";

/** Structured fields of an error: JSON-friendly values (bigints and byte arrays are allowed). */
export type ProtocolErrorDetails = ErrorDetails;

export type ProtocolErrorOptions<Kind extends string> = SuiteErrorOptions<Kind>;

/** Root of every error of the protocol runtime and the generated protocol code. */
export abstract class ProtocolError<Kind extends string = string> extends SuiteError<Kind> {
  readonly package = "protocol";
}
