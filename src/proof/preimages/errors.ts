/**
 * The preimage package's errors (the project's error model, src/errors). `PreimageError` is the root; callers
 * branch on the class or on `kind`, never on the message text.
 */
import { SuiteError } from "../../errors/index.js";

export type PreimageErrorKind = "missing-boot-key" | "invalid-boot-info" | "boot-value-out-of-range";

/** Root of the preimage package's errors. */
export abstract class PreimageError<
  Kind extends PreimageErrorKind = PreimageErrorKind,
> extends SuiteError<Kind> {
  readonly package = "preimages";
}
