/**
 * The TEE transport's errors (the project's error model, src/errors). `TransportError` is the root; callers
 * branch on the class or on `kind`, never on the message text.
 */
import { SuiteError } from "../../errors/index.js";

export type TransportErrorKind = "listen-address" | "enclave-address";

/** Root of the TEE transport's errors. */
export abstract class TransportError<
  Kind extends TransportErrorKind = TransportErrorKind,
> extends SuiteError<Kind> {
  readonly package = "transport";
}
