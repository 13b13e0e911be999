/**
 * The attestation library's errors (the project's error model, src/errors). `AttestationError` is the
 * root; callers branch on the class or on `kind`, never on the message text.
 */
import { SuiteError, type SuiteErrorOptions } from "../errors/index.js";

export type AttestationErrorKind = "format" | "policy" | "pcr0-length";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export type AttestationErrorOptions = Omit<SuiteErrorOptions<AttestationErrorKind>, "kind">;

/** Root of the attestation library's errors. */
export abstract class AttestationError<
  Kind extends AttestationErrorKind = AttestationErrorKind,
> extends SuiteError<Kind> {
  readonly package = "attestation";
}
