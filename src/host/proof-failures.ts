/**
 * How a failed prover_prove is sorted, in one table: the JSON-RPC error the handler answers with (handlers.ts),
 * the outcome label of `prover_proof_duration_seconds` and the level and line the proof service logs
 * (proof-service.ts). A row per error class, the first match winning; an error of no listed class is a witness
 * failure when it came from witness collection, a transport failure otherwise.
 */
import { EnclaveRefusedError } from "./enclave-client.js";
import { InvalidProofRequestError, ProofCancelledError, ProofTimeoutError } from "./errors.js";
import type { ProofOutcome } from "./metrics.js";
import { InvalidProofResultError } from "./result-check.js";
import { NoValidSignerError } from "./router.js";
import { L1DistanceError, MissingWitnessValueError } from "./witness/index.js";

/** The JSON-RPC error a failure leaves the server as: -32602, -32001 (NoValidSigner) or -32000 (ProofFailed). */
export type ProofFailureCode = "invalid-params" | "no-valid-signer" | "proof-failed";

/** How one failure is reported. */
export interface ProofFailure {
  readonly outcome: Exclude<ProofOutcome, "ok">;
  readonly code: ProofFailureCode;
  /** The line logged; none where the caller's answer says all (an invalid request, a cancellation). */
  readonly log?: { readonly level: "info" | "warn" | "error"; readonly msg: string };
  /** The JSON-RPC message, when not the error's own. */
  readonly message?: (error: Error) => string;
}

type ErrorClass = abstract new (...args: never[]) => Error;

const WITNESS_REFUSED = { level: "info", msg: "witness collection refused the proof" } as const;

/** The table: a failure's class → its code, outcome and log line. */
export const PROOF_FAILURES: readonly (readonly [ErrorClass, ProofFailure])[] = [
  [
    ProofTimeoutError,
    { outcome: "timeout", code: "proof-failed", log: { level: "warn", msg: "proof request timed out" } },
  ],
  [ProofCancelledError, { outcome: "aborted", code: "proof-failed" }],
  [InvalidProofRequestError, { outcome: "invalid_request", code: "invalid-params" }],
  // An L1 head too far past the range is the request's choice, as a range too long is; witness collection finds it.
  [L1DistanceError, { outcome: "witness_error", code: "invalid-params", log: WITNESS_REFUSED }],
  // The L2 endpoint's witness lacks a value it read: the endpoint's fault, which its operator must see.
  [
    MissingWitnessValueError,
    {
      outcome: "witness_error",
      code: "proof-failed",
      log: { level: "warn", msg: "the L2 endpoint's witness lacks a value the blocks read" },
    },
  ],
  [NoValidSignerError, { outcome: "no_valid_signer", code: "no-valid-signer" }],
  [
    EnclaveRefusedError,
    {
      outcome: "enclave_error",
      code: "proof-failed",
      log: { level: "info", msg: "enclave refused the proof" },
      message: (error) => (error as EnclaveRefusedError).enclaveMessage,
    },
  ],
  [
    InvalidProofResultError,
    {
      outcome: "enclave_error",
      code: "proof-failed",
      log: { level: "error", msg: "enclave fault: its result does not answer the request; not returned" },
    },
  ],
];

const WITNESS_FAILURE: ProofFailure = {
  outcome: "witness_error",
  code: "proof-failed",
  log: WITNESS_REFUSED,
};
const TRANSPORT_FAILURE: ProofFailure = {
  outcome: "transport_error",
  code: "proof-failed",
  log: { level: "warn", msg: "proof failed" },
};

/** The row of `error`; `duringWitness` when it was thrown while the witness was being collected. */
export function proofFailure(error: unknown, duringWitness = false): ProofFailure {
  for (const [errorClass, failure] of PROOF_FAILURES) if (error instanceof errorClass) return failure;
  return duringWitness ? WITNESS_FAILURE : TRANSPORT_FAILURE;
}

/** The message a failure leaves the server with. */
export function proofFailureMessage(error: unknown, failure = proofFailure(error)): string {
  if (!(error instanceof Error)) return String(error);
  return failure.message === undefined ? error.message : failure.message(error);
}
