/**
 * The onchain encodings' errors (the project's error model, src/errors). `OnchainError` is the root; callers
 * branch on the class or on `kind`, never on the message text.
 */
import { SuiteError, type SuiteErrorOptions } from "../../errors/index.js";

export type OnchainErrorKind =
  | "unsupported-chain"
  | "config-encoding"
  | "sampling"
  | "output-root-mismatch"
  | "proposal-encoding"
  | "fork-horizon"
  | "aggregation";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export type OnchainErrorOptions = Omit<SuiteErrorOptions<OnchainErrorKind>, "kind">;

/** Root of the onchain encodings' errors. */
export abstract class OnchainError<
  Kind extends OnchainErrorKind = OnchainErrorKind,
> extends SuiteError<Kind> {
  readonly package = "onchain";
}
