/**
 * The conformance suite's errors (the project's error model, src/errors). `ConformanceError` is the root;
 * the runner branches on the class (a check fails, is skipped or times out), never on the message text.
 */
import { SuiteError, type SuiteErrorOptions } from "../src/errors/index.js";

export type ConformanceErrorKind =
  | "check-skipped"
  | "check-failed"
  | "check-timeout"
  | "usage"
  | "enclave-connection"
  | "json-rpc-envelope"
  | "witness-file"
  | "recording";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export type ConformanceErrorOptions = Omit<SuiteErrorOptions<ConformanceErrorKind>, "kind">;

/** Root of the conformance suite's errors. */
export abstract class ConformanceError<
  Kind extends ConformanceErrorKind = ConformanceErrorKind,
> extends SuiteError<Kind> {
  readonly package = "conformance";
}
