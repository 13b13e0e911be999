/**
 * The registrar's errors (the project's error model, src/errors). `RegistrarError` is the root; callers
 * branch on the class or on `kind`, never on the message text.
 */
import { SuiteError, type SuiteErrorOptions } from "../errors/index.js";

export type RegistrarErrorKind =
  | "usage"
  | "attestation-mismatch"
  | "attestation-refused"
  | "registry-write"
  | "registry-transaction-reverted";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export type RegistrarErrorOptions = Omit<SuiteErrorOptions<RegistrarErrorKind>, "kind">;

/** Root of the registrar's errors. */
export abstract class RegistrarError<
  Kind extends RegistrarErrorKind = RegistrarErrorKind,
> extends SuiteError<Kind> {
  readonly package = "registrar";
}
