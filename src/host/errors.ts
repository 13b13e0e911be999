/**
 * The prover host's errors (the project's error model, src/errors). `HostError` is the root; callers
 * branch on the class or on `kind`, never on the message text. JSON-RPC codes are assigned only in the
 * handlers (handlers.ts), where an error leaves the server.
 */
import { SuiteError, type SuiteErrorOptions } from "../errors/index.js";

export type HostErrorKind =
  | "config"
  | "enclave-refused"
  | "unexpected-enclave-response"
  | "enclave-transport"
  | "enclave-call-aborted"
  | "vsock-unavailable"
  | "invalid-proof-request"
  | "invalid-proof-result"
  | "no-valid-signer"
  | "proof-timeout"
  | "proof-cancelled"
  | "witness-fetch"
  | "witness-too-large"
  | "l1-distance";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export type HostErrorOptions = Omit<SuiteErrorOptions<HostErrorKind>, "kind">;

/** Root of the prover host's errors. */
export abstract class HostError<Kind extends HostErrorKind = HostErrorKind> extends SuiteError<Kind> {
  readonly package = "host";
}
