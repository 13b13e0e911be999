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

/** A proof request whose values make no sense (the codecs checked the types). */
export class InvalidProofRequestError extends HostError<"invalid-proof-request"> {
  override readonly name = "InvalidProofRequestError";
  constructor(
    message: string,
    details: {
      readonly field: string;
      /** For a number out of range: the value given and the largest accepted. */
      readonly value?: bigint;
      readonly max?: bigint;
    },
  ) {
    super(message, { kind: "invalid-proof-request", details });
  }
}

/** The proof request timeout expired before the enclave answered. */
export class ProofTimeoutError extends HostError<"proof-timeout"> {
  override readonly name = "ProofTimeoutError";
  constructor(
    readonly block: bigint,
    readonly seconds: number,
    options: { readonly cause?: unknown } = {},
  ) {
    super(`proof request for L2 block ${block} timed out after ${seconds} s`, {
      kind: "proof-timeout",
      details: { block, seconds },
      cause: options.cause,
    });
  }
}

/** The caller went away (or the server shut down) before the proof was done. */
export class ProofCancelledError extends HostError<"proof-cancelled"> {
  override readonly name = "ProofCancelledError";
  constructor(
    readonly block: bigint,
    options: { readonly cause?: unknown } = {},
  ) {
    super(`proof request for L2 block ${block} was cancelled`, {
      kind: "proof-cancelled",
      details: { block },
      cause: options.cause,
    });
  }
}
