import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Proposal } from "../../../generated/rpc/index.js";
import { EnclaveSigner } from "../../../enclave/index.js";
import type { BootInfo } from "../preimages/index.js";
import { configHashFor } from "./chain-configs.js";
import { buildProofResult, type ClaimContext } from "./journals.js";
import {
  AggregationRefusedError,
  aggregateProposals,
  type AggregationRequest,
} from "./proposal-aggregation.js";
import { SamplingError } from "./sampling.js";

const signer = EnclaveSigner.generate((n) => new Uint8Array(randomBytes(n)));
const stranger = EnclaveSigner.generate((n) => new Uint8Array(randomBytes(n)));
const root = (block: bigint) => new Uint8Array(32).fill(Number(block % 250n) + 1);
const CHAIN = 8453n;
const CONFIG = configHashFor(CHAIN);
const IMAGE = new Uint8Array(32).fill(0x1e);
const PROPOSER = new Uint8Array(20).fill(0x70);
const SCHEDULE = new Uint8Array(32).fill(0x5c);

/** The result one Prove over blocks agreed + 1 … claimed would sign (the claim is the table's root). */
function proveRange(
  agreed: bigint,
  claimed: bigint,
  interval: bigint,
  by: EnclaveSigner = signer,
  scheduleId?: Uint8Array,
) {
  const boot: BootInfo = {
    l1Head: new Uint8Array(32).fill(0xe1),
    l1HeadNumber: 70_000n,
    agreedOutputRoot: root(agreed),
    claimedOutputRoot: root(claimed),
    claimedL2BlockNumber: claimed,
    chainId: CHAIN,
    proposer: PROPOSER,
    intermediateBlockInterval: interval,
  };
  const ctx: ClaimContext = {
    boot,
    configHash: CONFIG,
    teeImageHash: IMAGE,
    ...(scheduleId === undefined ? {} : { scheduleId }),
  };
  const outputRoots = Array.from({ length: Number(claimed - agreed) }, (_, i) =>
    root(agreed + 1n + BigInt(i)),
  );
  return buildProofResult(ctx, { startBlock: agreed, outputRoots }, by).Tee;
}

/** Per-block proposals of agreed + 1 … claimed, proved in frames that end at `cuts`. */
function provedInFrames(
  agreed: bigint,
  claimed: bigint,
  cuts: readonly bigint[],
  interval: bigint,
): Proposal[] {
  const ends = [...cuts, claimed];
  let start = agreed;
  return ends.flatMap((end) => {
    const proposals = proveRange(start, end, interval).proposals;
    start = end;
    return proposals;
  });
}

function request(
  proposals: readonly Proposal[],
  overrides: Partial<AggregationRequest> = {},
): AggregationRequest {
  return {
    proposer: PROPOSER,
    intermediateBlockInterval: 2n,
    configHash: CONFIG,
    teeImageHash: IMAGE,
    proposals,
    ...overrides,
  };
}

function refusal(run: () => unknown): AggregationRefusedError {
  try {
    run();
  } catch (error) {
    if (error instanceof AggregationRefusedError) return error;
    throw error;
  }
  throw new Error("the aggregation was not refused");
}

describe("aggregateProposals", () => {
  it("signs the aggregate one Prove over the whole range signs, from a range proved in three frames", () => {
    const whole = proveRange(100n, 110n, 3n);
    const parts = provedInFrames(100n, 110n, [103n, 104n], 3n);
    expect(parts).toEqual(whole.proposals);
    const aggregate = aggregateProposals(
      request(parts, { intermediateBlockInterval: 3n }),
      signer,
      signer.address,
    );
    expect(aggregate).toEqual(whole.aggregate_proposal);
  });

  it("covers schedule-id journals with the schedule id the request names", () => {
    const whole = proveRange(100n, 104n, 2n, signer, SCHEDULE);
    const parts = [
      ...proveRange(100n, 102n, 2n, signer, SCHEDULE).proposals,
      ...proveRange(102n, 104n, 2n, signer, SCHEDULE).proposals,
    ];
    expect(aggregateProposals(request(parts, { scheduleId: SCHEDULE }), signer, signer.address)).toEqual(
      whole.aggregate_proposal,
    );
    // Signed without one, or over another, the per-block signatures do not verify.
    expect(refusal(() => aggregateProposals(request(parts), signer, signer.address)).check).toBe("signature");
    expect(
      refusal(() =>
        aggregateProposals(request(parts, { scheduleId: new Uint8Array(32) }), signer, signer.address),
      ).check,
    ).toBe("signature");
  });

  it("answers a single proposal as it is, once its signature is checked", () => {
    const [only] = proveRange(100n, 101n, 1n).proposals;
    expect(aggregateProposals(request([only!]), signer, signer.address)).toEqual(only);
    const foreign = proveRange(100n, 101n, 1n, stranger).proposals;
    expect(refusal(() => aggregateProposals(request(foreign), signer, signer.address)).check).toBe(
      "signature",
    );
  });

  it("agrees with one Prove for any split and interval (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 11 }), { maxLength: 4 }),
        (blocks, interval, rawCuts) => {
          const agreed = 500n;
          const claimed = agreed + BigInt(blocks);
          const cuts = rawCuts
            .filter((cut) => cut < blocks)
            .sort((a, b) => a - b)
            .map((cut) => agreed + BigInt(cut));
          const whole = proveRange(agreed, claimed, BigInt(interval));
          const parts = provedInFrames(agreed, claimed, cuts, BigInt(interval));
          const aggregate = aggregateProposals(
            request(parts, { intermediateBlockInterval: BigInt(interval) }),
            signer,
            signer.address,
          );
          expect(aggregate).toEqual(whole.aggregate_proposal);
        },
      ),
      { numRuns: 25 },
    );
  });

  describe("refuses, signing nothing", () => {
    const parts = provedInFrames(100n, 106n, [103n], 2n);
    const counting = {
      signed: 0,
      signJournal(journal: Uint8Array) {
        this.signed += 1;
        return signer.signJournal(journal);
      },
    };
    const refused = (proposals: readonly Proposal[], overrides: Partial<AggregationRequest> = {}) =>
      refusal(() => aggregateProposals(request(proposals, overrides), counting, signer.address));
    const replace = (index: number, change: Partial<Proposal>) =>
      parts.map((proposal, i) => (i === index ? { ...proposal, ...change } : proposal));

    it("no proposals", () => {
      expect(refused([]).check).toBe("empty");
    });

    it("a proposal another key signed, in the middle of the range", () => {
      const foreign = proveRange(102n, 103n, 2n, stranger).proposals[0]!;
      const error = refused(replace(2, foreign));
      expect([error.check, error.index]).toEqual(["signature", 2]);
    });

    it("a gap, a repeated block and blocks out of order", () => {
      expect(refused([...parts.slice(0, 2), ...parts.slice(3)]).check).toBe("block-number");
      expect(refused([parts[0]!, parts[0]!]).check).toBe("block-number");
      expect(refused([parts[1]!, parts[0]!]).check).toBe("block-number");
    });

    it("a proposal whose previous root is not the root before it (a forged intermediate root)", () => {
      const error = refused(replace(3, { prev_output_root: new Uint8Array(32).fill(0xee) }));
      expect([error.check, error.index]).toEqual(["chain", 3]);
      // The root itself changed and the next one chained to it: its signature no longer covers it.
      const forged = new Uint8Array(32).fill(0xee);
      const chainedToForgery = replace(2, { output_root: forged }).map((p, i) =>
        i === 3 ? { ...p, prev_output_root: forged } : p,
      );
      expect(refused(chainedToForgery).check).toBe("signature");
    });

    it("another L1 origin, config hash, proposer or signature encoding", () => {
      expect(refused(replace(4, { l1_origin_number: 70_001n })).check).toBe("l1-origin");
      expect(refused(replace(4, { l1_origin_hash: new Uint8Array(32) })).check).toBe("l1-origin");
      expect(refused(parts, { configHash: configHashFor(10n) }).check).toBe("config-hash");
      expect(refused(parts, { proposer: new Uint8Array(20) }).check).toBe("signature");
      expect(refused(parts, { teeImageHash: new Uint8Array(32) }).check).toBe("signature");
      const sig = parts[1]!.signature;
      const v27 = Uint8Array.from(sig, (b, i) => (i === 64 ? b + 27 : b));
      expect(refused(replace(1, { signature: v27 })).check).toBe("signature");
      expect(refused(replace(1, { signature: sig.subarray(0, 64) })).check).toBe("signature");
    });

    it("an interval of zero, before any signature is checked", () => {
      expect(() =>
        aggregateProposals(request(parts, { intermediateBlockInterval: 0n }), counting, signer.address),
      ).toThrow(SamplingError);
    });

    it("and signed nothing for any of them", () => {
      expect(counting.signed).toBe(0);
    });
  });
});
