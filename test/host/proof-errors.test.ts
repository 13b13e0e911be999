/**
 * prover_prove's failures are the host's own errors until they leave the server: the handler turns each
 * class into its JSON-RPC code (an invalid request or an L1 head past --max-l1-distance -32602, NoValidSigner
 * -32001, the rest -32000 with the underlying message, a witness too large for one frame included; an enclave's
 * refusal with the enclave's own text).
 */
import { describe, expect, it } from "vitest";
import { SuiteError } from "../../src/errors/index.js";
import {
  EnclaveRefusedError,
  EnclaveTransportError,
  HostError,
  InvalidProofRequestError,
  InvalidProofResultError,
  L1DistanceError,
  NoValidSignerError,
  ProofCancelledError,
  proofRpcError,
  ProofTimeoutError,
  checkProofResult,
  validateProofRequest,
  WitnessTooLargeError,
} from "../../src/host/index.js";
import type { ProofRequest } from "../../generated/rpc/index.js";

function proofRequestValue(): ProofRequest {
  return {
    l1_head: new Uint8Array(32).fill(0x11),
    l1_head_number: 100n,
    agreed_l2_head_hash: new Uint8Array(32).fill(0x22),
    agreed_l2_output_root: new Uint8Array(32).fill(0x33),
    claimed_l2_output_root: new Uint8Array(32).fill(0x44),
    claimed_l2_block_number: 1234n,
    proposer: new Uint8Array(20).fill(0x55),
    intermediate_block_interval: 2n,
  };
}

describe("prover_prove errors", () => {
  it("an invalid request is a HostError of kind invalid-proof-request, -32602 at the edge", () => {
    const request = { ...proofRequestValue(), intermediate_block_interval: 0n };
    let thrown: unknown;
    try {
      validateProofRequest(request);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidProofRequestError);
    expect(thrown).toBeInstanceOf(HostError);
    expect(thrown).toBeInstanceOf(SuiteError);
    expect(thrown).toMatchObject({
      package: "host",
      kind: "invalid-proof-request",
      details: { field: "intermediate_block_interval" },
    });
    const rpc = proofRpcError(thrown);
    expect([rpc.code, rpc.message]).toEqual([
      -32602,
      "invalid request: intermediate_block_interval must be at least 1",
    ]);
    expect(() => validateProofRequest({ ...proofRequestValue(), claimed_l2_block_number: 0n })).toThrow(
      expect.objectContaining({
        kind: "invalid-proof-request",
        details: { field: "claimed_l2_block_number" },
      }),
    );
  });

  it("a block number past 2^53 - 1 (claimed block, L1 head number, schedule block) is refused up front by name", () => {
    const max = 2n ** 53n - 1n;
    for (const field of ["claimed_l2_block_number", "l1_head_number", "schedule_l2_block_number"] as const) {
      for (const value of [2n ** 64n - 1n, max + 1n]) {
        let thrown: unknown;
        try {
          validateProofRequest({ ...proofRequestValue(), [field]: value });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(InvalidProofRequestError);
        expect((thrown as InvalidProofRequestError).details).toEqual({ field, value, max });
        const rpc = proofRpcError(thrown);
        expect([rpc.code, rpc.message]).toEqual([
          -32602,
          `invalid request: ${field} ${value} is past the largest block number a proof may name (${max})`,
        ]);
      }
      expect(() => validateProofRequest({ ...proofRequestValue(), [field]: max })).not.toThrow();
    }
  });

  it("maps each failure class to its code and message", () => {
    const cases: [unknown, number, string][] = [
      [
        new NoValidSignerError("NoValidSigner: none valid", {
          registry: "TEEProverRegistry 0x01",
          skipped: [],
        }),
        -32001,
        "NoValidSigner: none valid",
      ],
      [
        new EnclaveRefusedError("unix:/tmp/e.sock", "MissingWitnessError: missing preimage"),
        -32000,
        "MissingWitnessError: missing preimage",
      ],
      [new ProofTimeoutError(103n, 2), -32000, "proof request for L2 block 103 timed out after 2 s"],
      [new ProofCancelledError(103n), -32000, "proof request for L2 block 103 was cancelled"],
      [
        new EnclaveTransportError("unix:/tmp/e.sock", "connection closed before a response"),
        -32000,
        "enclave unix:/tmp/e.sock: connection closed before a response",
      ],
      [
        new InvalidProofResultError("enclave returned a 64-byte signature, expected 65", "signature-length", {
          signatureLength: 64,
        }),
        -32000,
        "enclave returned a 64-byte signature, expected 65",
      ],
      [
        new L1DistanceError("the L1 walk reached 3 blocks back", {
          distance: 3,
          maxL1Distance: 2,
          hash: "0x03",
        }),
        -32602,
        "the L1 walk reached 3 blocks back",
      ],
      [
        new WitnessTooLargeError("the witness needs more than 3 preimages", {
          limit: "preimages",
          preimages: 4,
          maxPreimages: 3,
        }),
        -32000,
        "the witness needs more than 3 preimages",
      ],
      [new Error("something else"), -32000, "something else"],
      ["not an error", -32000, "not an error"],
    ];
    for (const [error, code, message] of cases) {
      const rpc = proofRpcError(error);
      expect([rpc.code, rpc.message]).toEqual([code, message]);
      expect(rpc.cause).toBe(error);
    }
  });

  it("a proposal signature of the wrong length is an invalid proof result", () => {
    const proposal = {
      output_root: new Uint8Array(32),
      signature: new Uint8Array(64),
      l1_origin_hash: new Uint8Array(32),
      l1_origin_number: 1n,
      l2_block_number: 2n,
      prev_output_root: new Uint8Array(32),
      config_hash: new Uint8Array(32),
    };
    expect(() => checkProofResult({ Tee: { aggregate_proposal: proposal, proposals: [proposal] } })).toThrow(
      expect.objectContaining({ kind: "invalid-proof-result", details: { signatureLength: 64 } }),
    );
  });
});
