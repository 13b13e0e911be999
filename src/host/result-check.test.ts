/** verifyProofResult against results signed by the enclave's own proposal builder and signer. */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ProofRequest, ProofResult } from "../../generated/rpc/index.js";
import { EnclaveSigner } from "../../enclave/index.js";
import { buildProofResult, configHashFor } from "../proof/onchain/index.js";
import { bootInfoOf, scheduleBlockOf } from "./boot-preimages.js";
import { InvalidProofResultError, type ResultCheck, verifyProofResult } from "./result-check.js";

const fill = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);
const signer = EnclaveSigner.generate((n) => new Uint8Array(randomBytes(n)));
const other = EnclaveSigner.generate((n) => new Uint8Array(randomBytes(n)));
const imageHash = fill(0x1e);

const request: ProofRequest = {
  l1_head: fill(0xe1),
  l1_head_number: 70_000n,
  agreed_l2_head_hash: fill(0xaa),
  agreed_l2_output_root: fill(0xa0),
  claimed_l2_output_root: fill(0xa3),
  claimed_l2_block_number: 103n,
  proposer: new Uint8Array(20).fill(0x55),
  intermediate_block_interval: 2n,
};

function signed(
  by = signer,
  teeImageHash = imageHash,
  roots = [fill(0xa1), fill(0xa2), fill(0xa3)],
  scheduleId?: Uint8Array,
): ProofResult {
  const boot = bootInfoOf({ ...request, claimed_l2_block_number: 100n + BigInt(roots.length) }, 84532n);
  const ctx = {
    boot: { ...boot, claimedOutputRoot: roots.at(-1)! },
    configHash: configHashFor(84532n),
    teeImageHash,
    ...(scheduleId === undefined ? {} : { scheduleId }),
  };
  return buildProofResult(ctx, { startBlock: 100n, outputRoots: roots }, by);
}

const expectations = { l2ChainId: 84532n, signer: signer.address, teeImageHash: imageHash };

function checkOf(run: () => unknown): ResultCheck | "passed" {
  try {
    run();
    return "passed";
  } catch (error) {
    if (error instanceof InvalidProofResultError) return error.check;
    throw error;
  }
}

describe("verifyProofResult", () => {
  it("passes the enclave's own result for the request", () => {
    expect(checkOf(() => verifyProofResult(request, signed(), expectations))).toBe("passed");
    expect(checkOf(() => verifyProofResult(request, signed(), { l2ChainId: 84532n }))).toBe("passed");
  });

  it("a signature by another key, or over another image hash, does not recover to the routed signer", () => {
    expect(checkOf(() => verifyProofResult(request, signed(other), expectations))).toBe("signer");
    expect(checkOf(() => verifyProofResult(request, signed(signer, fill(0x2e)), expectations))).toBe(
      "signer",
    );
    const mixed = signed();
    mixed.Tee.aggregate_proposal = signed(other).Tee.aggregate_proposal;
    expect(checkOf(() => verifyProofResult(request, mixed, expectations))).toBe("signer");
  });

  it("schedule-id journals recover to the signer only over the claim's schedule id", () => {
    const scheduleId = fill(0x5c);
    const withId = signed(signer, imageHash, undefined, scheduleId);
    expect(checkOf(() => verifyProofResult(request, withId, { ...expectations, scheduleId }))).toBe("passed");
    expect(checkOf(() => verifyProofResult(request, withId, expectations))).toBe("signer");
    expect(
      checkOf(() => verifyProofResult(request, withId, { ...expectations, scheduleId: fill(0x5d) })),
    ).toBe("signer");
    expect(checkOf(() => verifyProofResult(request, signed(), { ...expectations, scheduleId }))).toBe(
      "signer",
    );
  });

  it("a stamped tee_signer must be the routed signer; without one routed, it is not compared", () => {
    const stamped = (address: Uint8Array): ProofResult => ({ Tee: { ...signed().Tee, tee_signer: address } });
    expect(checkOf(() => verifyProofResult(request, stamped(signer.address), expectations))).toBe("passed");
    expect(checkOf(() => verifyProofResult(request, stamped(other.address), expectations))).toBe(
      "tee-signer",
    );
    expect(checkOf(() => verifyProofResult(request, stamped(other.address), { l2ChainId: 84532n }))).toBe(
      "passed",
    );
  });

  it("schedule-id journals of a request naming a schedule block: the host pins the id at that block", () => {
    const scheduleId = fill(0x5c);
    const withId = signed(signer, imageHash, undefined, scheduleId);
    const atScheduleBlock = { ...request, schedule_l2_block_number: 400n };
    expect(scheduleBlockOf(atScheduleBlock)).toBe(400n);
    expect(scheduleBlockOf({ ...request, schedule_l2_block_number: 0n })).toBe(103n);
    expect(scheduleBlockOf(request)).toBe(103n);
    expect(checkOf(() => verifyProofResult(atScheduleBlock, withId, { ...expectations, scheduleId }))).toBe(
      "passed",
    );
  });

  it("fields that do not match the request", () => {
    const edited = (change: (result: ProofResult) => void): ProofResult => {
      const result = signed();
      change(result);
      return result;
    };
    const cases: [ResultCheck, ProofResult][] = [
      ["range", edited((r) => r.Tee.proposals.pop())],
      ["chain", edited((r) => r.Tee.proposals.shift())],
      ["chain", edited((r) => (r.Tee.proposals[2]!.output_root = fill(0x99)))],
      ["l1-origin", edited((r) => (r.Tee.proposals[0]!.l1_origin_hash = fill(0x01)))],
      ["config-hash", edited((r) => (r.Tee.proposals[1]!.config_hash = fill(0x02)))],
      ["aggregate", edited((r) => (r.Tee.aggregate_proposal.prev_output_root = fill(0xa1)))],
      ["signature-length", edited((r) => (r.Tee.proposals[0]!.signature = new Uint8Array(64)))],
    ];
    for (const [check, result] of cases)
      expect(checkOf(() => verifyProofResult(request, result, expectations))).toBe(check);
    const oneBlock = signed(signer, imageHash, [fill(0xa3)]);
    const single = { ...request, claimed_l2_block_number: 101n };
    expect(checkOf(() => verifyProofResult(single, oneBlock, expectations))).toBe("passed");
    oneBlock.Tee.aggregate_proposal = { ...oneBlock.Tee.aggregate_proposal, signature: new Uint8Array(65) };
    expect(checkOf(() => verifyProofResult(single, oneBlock, expectations))).toBe("aggregate");
    expect(checkOf(() => verifyProofResult(request, signed(), { ...expectations, maxBlocks: 2n }))).toBe(
      "range",
    );
  });
});
