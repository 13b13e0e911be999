/**
 * Pins the prover host's JSON-RPC wire form: the OpenRPC document (with its examples) byte for byte, and the JSON
 * of a proof result and a proof request typed out by hand. The TypeScript model behind them may change (one data
 * model for JSON-RPC and bincode); what goes over the wire may not. The bincode frames are pinned the same way by
 * codegen/binary/test/protocol.golden.test.ts.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  ProofRequestCodec,
  ProofResultCodec,
  type ProofRequest,
  type ProofResult,
} from "../../generated/rpc/index.js";

const hex = (byte: string, count: number): string => `0x${byte.repeat(count)}`;
const bytes = (byte: number, count: number): Uint8Array => new Uint8Array(count).fill(byte);

/** The JSON of a Proposal whose roots are filled with `root`, `prev` and whose signature with `sig`. */
function proposalJson(root: string, sig: string, prev: string, l2: number) {
  return {
    output_root: hex(root, 32),
    signature: hex(sig, 65),
    l1_origin_hash: hex("e1", 32),
    l1_origin_number: 70000,
    l2_block_number: l2,
    prev_output_root: hex(prev, 32),
    config_hash: hex("c0", 32),
  };
}

describe("prover JSON-RPC wire form", () => {
  it("the OpenRPC document and its examples are unchanged", async () => {
    const text = await readFile(new URL("../../generated/openrpc/prover.openrpc.json", import.meta.url));
    expect(createHash("sha256").update(text).digest("hex")).toBe(
      "ecff716c768399a477afe72cf52dceaf63123b747cb70cb944658d8f7f294a49",
    );
  });

  it("a proof result: externally tagged Tee, snake_case fields, hex bytes, JSON numbers", () => {
    const json = {
      Tee: {
        aggregate_proposal: proposalJson("b2", "5a", "aa", 251),
        proposals: [proposalJson("b1", "51", "aa", 250), proposalJson("b2", "52", "b1", 251)],
      },
    };
    const decoded: ProofResult = ProofResultCodec.decode(json, "result");
    expect(decoded.Tee.proposals[1]!.prev_output_root).toEqual(bytes(0xb1, 32));
    expect(decoded.Tee.aggregate_proposal.l2_block_number).toBe(251n);
    expect(JSON.stringify(ProofResultCodec.encode(decoded))).toBe(JSON.stringify(json));
  });

  it("a proof request", () => {
    const json = {
      l1_head: hex("11", 32),
      l1_head_number: 70000,
      agreed_l2_head_hash: hex("22", 32),
      agreed_l2_output_root: hex("aa", 32),
      claimed_l2_output_root: hex("b2", 32),
      claimed_l2_block_number: 251,
      proposer: hex("33", 20),
      intermediate_block_interval: 2,
    };
    const decoded: ProofRequest = ProofRequestCodec.decode(json, "request");
    expect(decoded.claimed_l2_block_number).toBe(251n);
    expect(decoded.proposer).toEqual(bytes(0x33, 20));
    expect(JSON.stringify(ProofRequestCodec.encode(decoded))).toBe(JSON.stringify(json));
  });
});
