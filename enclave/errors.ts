/**
 * The enclave process's errors (the project's error model, src/errors). `EnclaveError` is the root;
 * callers branch on the class or on `kind`, never on the message text.
 */
import { SuiteError, type SuiteErrorOptions } from "../src/errors/index.js";

export type EnclaveErrorKind =
  "config" | "nitro-unavailable" | "nitro-random-source" | "attestation-input-too-large" | "busy" | "hung-up";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export type EnclaveErrorOptions = Omit<SuiteErrorOptions<EnclaveErrorKind>, "kind">;

/** Root of the enclave process's errors. */
export abstract class EnclaveError<
  Kind extends EnclaveErrorKind = EnclaveErrorKind,
> extends SuiteError<Kind> {
  readonly package = "enclave";
}
