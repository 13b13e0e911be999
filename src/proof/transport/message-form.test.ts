import { describe, expect, it } from "vitest";
import {
  BincodeDecodeError,
  encodeRequest,
  encodeResponse,
  type Request,
  type Response,
} from "../../../generated/protocol/index.js";
import {
  answerMessageForm,
  decodeAnswer,
  pairedMessageForm,
  parseMessageForm,
  requestMessageForm,
} from "./message-form.js";

const attestation: Request = { kind: "SignerAttestation", user_data: null, nonce: null };
const proof: Response = {
  kind: "Prove",
  result: {
    Tee: {
      aggregate_proposal: {
        output_root: new Uint8Array(32).fill(1),
        signature: new Uint8Array(65).fill(2),
        l1_origin_hash: new Uint8Array(32).fill(3),
        l1_origin_number: 7n,
        l2_block_number: 9n,
        prev_output_root: new Uint8Array(32).fill(4),
        config_hash: new Uint8Array(32).fill(5),
      },
      proposals: [],
      tee_signer: new Uint8Array(20).fill(6),
    },
  },
};

describe("message forms", () => {
  it("parses --message-form values", () => {
    expect([parseMessageForm("spec"), parseMessageForm(" base "), parseMessageForm("8")]).toEqual([
      "spec",
      "base",
      undefined,
    ]);
  });

  it("tells a request's form from its bytes where the forms differ, and only there", () => {
    for (const form of ["spec", "base"] as const) {
      expect(requestMessageForm(encodeRequest({ kind: "TeeImageHash" }, form))).toBe(form);
      expect(requestMessageForm(encodeRequest(attestation, form))).toBe(form);
      expect(requestMessageForm(encodeRequest({ kind: "SignerPublicKey" }, form))).toBeUndefined();
      expect(requestMessageForm(encodeRequest({ kind: "Prove", preimages: [] }, form))).toBeUndefined();
      const aggregate = {
        kind: "Aggregate",
        chain_id: 901n,
        proposer: new Uint8Array(20),
        intermediate_block_interval: 1n,
        schedule_l2_block_number: 3n,
        proposals: [],
      } as const;
      expect(requestMessageForm(encodeRequest(aggregate, form))).toBeUndefined();
    }
  });

  it("answers a request in its own form where its bytes tell, else in the form paired with the frame", () => {
    expect([pairedMessageForm(4), pairedMessageForm(8)]).toEqual(["spec", "base"]);
    const spec = encodeRequest({ kind: "TeeImageHash" }, "spec");
    const base = encodeRequest(attestation, "base");
    const shared = encodeRequest({ kind: "SignerPublicKey" });
    expect([answerMessageForm(spec, 8), answerMessageForm(base, 4)]).toEqual(["spec", "base"]);
    expect([answerMessageForm(shared, 4), answerMessageForm(shared, 8)]).toEqual(["spec", "base"]);
    expect([answerMessageForm(undefined, 4), answerMessageForm(undefined, 8)]).toEqual(["spec", "base"]);
  });

  it("reads the answer to a request both forms share in either form", () => {
    const error: Response = { kind: "Error", message: "no" };
    for (const asked of ["spec", "base"] as const) {
      for (const answered of ["spec", "base"] as const) {
        const decoded = decodeAnswer(encodeResponse(proof, answered), "Prove", asked);
        expect(decoded.kind).toBe("Prove");
        // Only Base's form carries tee_signer: the answer is read in the form it was written in.
        const stamp = decoded.kind === "Prove" ? decoded.result.Tee.tee_signer : undefined;
        expect(stamp).toEqual(answered === "base" ? new Uint8Array(20).fill(6) : undefined);
        expect(decodeAnswer(encodeResponse(error, answered), "SignerPublicKey", asked)).toEqual(error);
        // Our Aggregate (request 4, response 5 in both forms): its answer and an Error read in either.
        const aggregated: Response = { kind: "Aggregate", proposal: proof.result.Tee.aggregate_proposal };
        expect(decodeAnswer(encodeResponse(aggregated, answered), "Aggregate", asked)).toEqual(aggregated);
        expect(decodeAnswer(encodeResponse(error, answered), "Aggregate", asked)).toEqual(error);
        expect(decodeAnswer(encodeResponse(error, answered), undefined, asked)).toEqual(error);
      }
    }
  });

  it("an Error 32 bytes long in Base's form is read as an Error, not as the spec's TeeImageHash", () => {
    // Base's Error (4) with a 32-byte message is also a well-formed spec TeeImageHash (4, 0x20, 32 bytes).
    const error: Response = { kind: "Error", message: "x".repeat(32) };
    const bytes = encodeResponse(error, "base");
    expect(decodeAnswer(bytes, "Prove", "spec")).toEqual(error);
    expect(decodeAnswer(bytes, "TeeImageHash", "spec").kind).toBe("TeeImageHash");
  });

  it("reads the answer to a request whose forms differ only in the form asked", () => {
    // The spec's Error (3) is Base's SignerAttestation: a Base host asking for an attestation reads a document.
    const bytes = encodeResponse({ kind: "Error", message: "busy" }, "spec");
    expect(decodeAnswer(bytes, "SignerAttestation", "base").kind).toBe("SignerAttestation");
    expect(decodeAnswer(bytes, "SignerAttestation", "spec").kind).toBe("Error");
    // Base's TeeImageHash (2) is the spec's SignerAttestation: a spec host asking for the hash is told it is not one.
    const hash = encodeResponse({ kind: "TeeImageHash", image_hash: new Uint8Array(32) }, "base");
    expect(decodeAnswer(hash, "TeeImageHash", "spec").kind).toBe("SignerAttestation");
  });

  it("throws the decoding error of the form asked when neither form reads an answer", () => {
    expect(() => decodeAnswer(new Uint8Array([9]), "Prove", "spec")).toThrow(BincodeDecodeError);
  });
});
