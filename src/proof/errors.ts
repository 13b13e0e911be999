/**
 * The proof library's errors (the project's error model, src/errors). `ProofError` is the root; callers
 * branch on the class or on `kind`, never on the message text.
 */
import { SuiteError, type SuiteErrorOptions } from "../errors/index.js";

export type ProofErrorKind =
  | "missing-boot-key"
  | "invalid-boot-info"
  | "unsupported-chain"
  | "config-encoding"
  | "sampling"
  | "output-root-mismatch"
  | "listen-address"
  | "missing-preimage"
  | "refused-preimage-key"
  | "invalid-witness"
  | "agreed-output"
  | "range-not-derived"
  | "proposal-encoding";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export type ProofErrorOptions = Omit<SuiteErrorOptions<ProofErrorKind>, "kind">;

/** Root of the proof library's errors. */
export abstract class ProofError<Kind extends ProofErrorKind = ProofErrorKind> extends SuiteError<Kind> {
  readonly package = "proof";
}
