/**
 * The success path: a ProofResult signed by the enclave's own proposal builder and signer, checked by the
 * host and encoded by the generated codec (the same object: one type for bincode and JSON-RPC), has the wire shape of docs/decisions.md "Host JSON-RPC encodings".
 */
import { randomBytes } from "node:crypto";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { EnclaveSigner } from "../../enclave/index.js";
import { packJournal } from "../../generated/journal/index.js";
import { ProofResultCodec } from "../../generated/rpc/codecs.js";
import { checkProofResult } from "../../src/host/index.js";
import {
  aggregateJournal,
  buildProofResult,
  configHashFor,
  recoverSignerAddress,
} from "../../src/proof/onchain/index.js";

const fill = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);
const hex = (bytes: Uint8Array): string => `0x${Buffer.from(bytes).toString("hex")}`;

describe("the enclave's result as the prover_prove result", () => {
  it("turns the enclave's signed proposals into the externally tagged Tee result", () => {
    const signer = EnclaveSigner.generate((n) => new Uint8Array(randomBytes(n)));
    const boot = {
      l1Head: fill(0xe1),
      l1HeadNumber: 70_000n,
      agreedOutputRoot: fill(0xa0),
      claimedOutputRoot: fill(0xa3),
      claimedL2BlockNumber: 103n,
      chainId: 84532n,
      proposer: new Uint8Array(20).fill(0x55),
      intermediateBlockInterval: 2n,
    };
    const ctx = { boot, configHash: configHashFor(84532n), teeImageHash: new Uint8Array(32) };
    const range = { startBlock: 100n, outputRoots: [fill(0xa1), fill(0xa2), fill(0xa3)] };
    const wire = ProofResultCodec.encode(checkProofResult(buildProofResult(ctx, range, signer)));
    const json = JSON.parse(JSON.stringify(wire)) as {
      Tee: { aggregate_proposal: Record<string, unknown>; proposals: Record<string, unknown>[] };
    };
    expect(Object.keys(json)).toEqual(["Tee"]);
    expect(json.Tee.proposals.map((p) => p.l2_block_number)).toEqual([101, 102, 103]);
    expect(json.Tee.proposals.map((p) => p.prev_output_root)).toEqual(
      [fill(0xa0), fill(0xa1), fill(0xa2)].map(hex),
    );
    const aggregate = json.Tee.aggregate_proposal;
    expect(aggregate).toMatchObject({
      output_root: hex(fill(0xa3)),
      l1_origin_hash: hex(fill(0xe1)),
      l1_origin_number: 70_000,
      l2_block_number: 103,
      prev_output_root: hex(fill(0xa0)),
      config_hash: hex(configHashFor(84532n)),
    });
    expect(aggregate.signature).toMatch(/^0x[0-9a-f]{130}$/);
    const signature = Buffer.from((aggregate.signature as string).slice(2), "hex");
    expect([0, 1]).toContain(signature[64]);
    const digest = keccak_256(packJournal(aggregateJournal(ctx, range)));
    expect(recoverSignerAddress(digest, new Uint8Array(signature))).toEqual(signer.address);
  });
});
