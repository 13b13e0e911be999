/**
 * Golden vectors of the protocol's two message forms (spec/protocol/enclave.protocol.json "forms"), typed out by
 * hand from base/base's enclave types (EnclaveRequest: Prove, SignerPublicKey, TeeImageHash, SignerAttestation;
 * EnclaveResponse: the same then Error; ProofResult::Tee { aggregate_proposal, proposals, tee_signer }) and from
 * the spec form, where TeeImageHash is appended last and Tee has no tee_signer. Each vector is checked both ways.
 */
import { describe, expect, it } from "vitest";
import {
  BincodeDecodeError,
  BincodeEncodeError,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  type ProtocolForm,
  type Proposal,
  type Request,
  type Response,
} from "../../../generated/protocol/index.js";
import { bytes, repeat } from "./hex.js";

function check<T>(
  encode: (value: T, form: ProtocolForm) => Uint8Array,
  decode: (wire: Uint8Array, form: ProtocolForm) => T,
  form: ProtocolForm,
  value: T,
  wire: Uint8Array,
): void {
  expect(encode(value, form)).toEqual(wire);
  expect(decode(wire, form)).toEqual(value);
}
const checkRequest = (form: ProtocolForm, value: Request, wire: Uint8Array) =>
  check(encodeRequest, decodeRequest, form, value, wire);
const checkResponse = (form: ProtocolForm, value: Response, wire: Uint8Array) =>
  check(encodeResponse, decodeResponse, form, value, wire);

const IMAGE_HASH = new Uint8Array(32).fill(0x1a);
const SIGNER = new Uint8Array(20).fill(0x5e);

const proposal: Proposal = {
  output_root: new Uint8Array(32).fill(0xb1),
  signature: new Uint8Array(65).fill(0x51),
  l1_origin_hash: new Uint8Array(32).fill(0xe1),
  l1_origin_number: 7n,
  l2_block_number: 9n,
  prev_output_root: new Uint8Array(32).fill(0xaa),
  config_hash: new Uint8Array(32).fill(0xc0),
};
const PROPOSAL_WIRE = [
  "20",
  repeat("b1", 32),
  "41",
  repeat("51", 65),
  "20",
  repeat("e1", 32),
  "07",
  "09",
  "20",
  repeat("aa", 32),
  "20",
  repeat("c0", 32),
].join("");

describe("Request in both forms", () => {
  it("Prove and SignerPublicKey keep indices 0 and 1 in both", () => {
    for (const form of ["spec", "base"] as const) {
      checkRequest(form, { kind: "Prove", preimages: [] }, bytes("00", "00"));
      checkRequest(form, { kind: "SignerPublicKey" }, bytes("01"));
    }
  });

  it("spec: SignerAttestation 2, TeeImageHash 3 (appended)", () => {
    checkRequest(
      "spec",
      { kind: "SignerAttestation", user_data: null, nonce: null },
      bytes("02", "00", "00"),
    );
    checkRequest("spec", { kind: "TeeImageHash" }, bytes("03"));
  });

  it("base: TeeImageHash 2, SignerAttestation 3", () => {
    checkRequest("base", { kind: "TeeImageHash" }, bytes("02"));
    checkRequest(
      "base",
      { kind: "SignerAttestation", user_data: new Uint8Array([1]), nonce: null },
      bytes("03", "01", "01", "01", "00"),
    );
  });

  it("Aggregate (our extension) is request 4 and response 5 in both", () => {
    for (const form of ["spec", "base"] as const) {
      checkRequest(
        form,
        {
          kind: "Aggregate",
          chain_id: 8453n,
          proposer: new Uint8Array(20).fill(0x70),
          intermediate_block_interval: 30n,
          schedule_l2_block_number: 600n,
          proposals: [proposal],
        },
        // chain id 8453 and block 600 are varints 0xfb then 2 bytes little-endian; the proposer is 0x14 then 20 bytes
        bytes("04", "fb 0521", "14", repeat("70", 20), "1e", "fb 5802", "01", PROPOSAL_WIRE),
      );
      checkResponse(form, { kind: "Aggregate", proposal }, bytes("05", PROPOSAL_WIRE));
    }
  });
});

describe("Response in both forms", () => {
  it("TeeImageHash carries the B256 (length 0x20 then 32 bytes): 4 in spec, 2 in base", () => {
    const value: Response = { kind: "TeeImageHash", image_hash: IMAGE_HASH };
    checkResponse("spec", value, bytes("04", "20", repeat("1a", 32)));
    checkResponse("base", value, bytes("02", "20", repeat("1a", 32)));
  });

  it("SignerAttestation and Error: 2 and 3 in spec, 3 and 4 in base", () => {
    checkResponse(
      "spec",
      { kind: "SignerAttestation", document: new Uint8Array([0x84]) },
      bytes("02", "01", "84"),
    );
    checkResponse(
      "base",
      { kind: "SignerAttestation", document: new Uint8Array([0x84]) },
      bytes("03", "01", "84"),
    );
    checkResponse("spec", { kind: "Error", message: "A" }, bytes("03", "01", "41"));
    checkResponse("base", { kind: "Error", message: "A" }, bytes("04", "01", "41"));
  });

  it("base: ProofResult::Tee ends with tee_signer (length 0x14 then 20 bytes)", () => {
    checkResponse(
      "base",
      {
        kind: "Prove",
        result: { Tee: { aggregate_proposal: proposal, proposals: [proposal], tee_signer: SIGNER } },
      },
      bytes("00", "00", PROPOSAL_WIRE, "01", PROPOSAL_WIRE, "14", repeat("5e", 20)),
    );
  });

  it("spec: ProofResult::Tee has no tee_signer; a given one is not written", () => {
    const wire = bytes("00", "00", PROPOSAL_WIRE, "01", PROPOSAL_WIRE);
    const result = { Tee: { aggregate_proposal: proposal, proposals: [proposal] } };
    checkResponse("spec", { kind: "Prove", result }, wire);
    expect(
      encodeResponse({ kind: "Prove", result: { Tee: { ...result.Tee, tee_signer: SIGNER } } }, "spec"),
    ).toEqual(wire);
  });

  it("base refuses a Tee result without tee_signer, both ways", () => {
    const result = { Tee: { aggregate_proposal: proposal, proposals: [proposal] } };
    expect(() => encodeResponse({ kind: "Prove", result }, "base")).toThrow(BincodeEncodeError);
    expect(() => decodeResponse(bytes("00", "00", PROPOSAL_WIRE, "01", PROPOSAL_WIRE), "base")).toThrow(
      BincodeDecodeError,
    );
  });
});
