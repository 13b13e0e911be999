/**
 * The attestation library's errors (the project's error model, src/errors). `AttestationError` is the
 * root; callers branch on the class or on `kind`, never on the message text.
 */
import { type ErrorDetails, SuiteError } from "../errors/index.js";

export type AttestationErrorKind = "format" | "policy" | "pcr0-length";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export interface AttestationErrorOptions {
  readonly details?: ErrorDetails;
  readonly cause?: unknown;
}

/** Root of the attestation library's errors. */
export abstract class AttestationError<
  Kind extends AttestationErrorKind = AttestationErrorKind,
> extends SuiteError<Kind> {
  readonly package = "attestation";

  constructor(message: string, kind: Kind, options: AttestationErrorOptions = {}) {
    super(message, { kind, details: options.details, cause: options.cause });
  }
}
