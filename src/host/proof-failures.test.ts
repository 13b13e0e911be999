/**
 * The one sorting of prover_prove's failures: each class's JSON-RPC code, metric outcome and log level, as the
 * handler (proofRpcError) and the proof service read them.
 */
import { describe, expect, it } from "vitest";
import { EnclaveRefusedError } from "./enclave-client.js";
import { InvalidProofRequestError, ProofCancelledError, ProofTimeoutError } from "./errors.js";
import { proofRpcError } from "./handlers.js";
import { proofFailure, proofFailureMessage } from "./proof-failures.js";
import { InvalidProofResultError } from "./result-check.js";
import { NoValidSignerError } from "./router.js";
import { EnclaveTransportError } from "./transport/errors.js";
import { L1DistanceError, WitnessTooLargeError } from "./witness/index.js";

const refused = new EnclaveRefusedError("unix:/tmp/e.sock", "MissingWitnessError: missing preimage");
const tooFar = new L1DistanceError("the L1 walk reached 3 blocks back", {
  distance: 3,
  maxL1Distance: 2,
  hash: "0x03",
});
const tooLarge = new WitnessTooLargeError("the witness needs more than 3 preimages", {
  limit: "preimages",
  preimages: 4,
  maxPreimages: 3,
});
const transport = new EnclaveTransportError("unix:/tmp/e.sock", "connection closed before a response");

describe("the prover_prove failure table", () => {
  // [error, thrown while collecting the witness, outcome, JSON-RPC code, log level]
  const rows: [unknown, boolean, string, number, string | undefined][] = [
    [new ProofTimeoutError(103n, 2), true, "timeout", -32000, "warn"],
    [new ProofCancelledError(103n), true, "aborted", -32000, undefined],
    [
      new InvalidProofRequestError("invalid request: x", { field: "x" }),
      false,
      "invalid_request",
      -32602,
      undefined,
    ],
    [tooFar, true, "witness_error", -32602, "info"],
    [
      new NoValidSignerError("NoValidSigner: none valid", { registry: "r", skipped: [] }),
      false,
      "no_valid_signer",
      -32001,
      undefined,
    ],
    [refused, false, "enclave_error", -32000, "info"],
    [
      new InvalidProofResultError("bad signature", "signature-length", {}),
      false,
      "enclave_error",
      -32000,
      "error",
    ],
    [tooLarge, true, "witness_error", -32000, "info"],
    [new Error("fetch failed"), true, "witness_error", -32000, "info"],
    [transport, false, "transport_error", -32000, "warn"],
    ["not an error", false, "transport_error", -32000, "warn"],
  ];

  it("gives each failure one outcome, one code and one log level", () => {
    for (const [error, duringWitness, outcome, code, level] of rows) {
      const failure = proofFailure(error, duringWitness);
      expect([failure.outcome, failure.log?.level], String(error)).toEqual([outcome, level]);
      expect(proofRpcError(error).code, String(error)).toBe(code);
    }
  });

  it("answers with the enclave's own text for a refusal, the error's message otherwise", () => {
    expect(proofFailureMessage(refused)).toBe("MissingWitnessError: missing preimage");
    expect(proofRpcError(refused).message).toBe("MissingWitnessError: missing preimage");
    expect(proofFailureMessage(transport)).toBe(
      "enclave unix:/tmp/e.sock: connection closed before a response",
    );
    expect(proofFailureMessage(42)).toBe("42");
  });
});
