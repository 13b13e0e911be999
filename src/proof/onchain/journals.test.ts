import { randomBytes } from "node:crypto";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { packJournal } from "../../../generated/journal/index.js";
import type { BootInfo } from "../preimages/index.js";
import { configHashFor } from "./chain-configs.js";
import {
  aggregateJournal,
  buildProofResult,
  type JournalSigner,
  OutputRootMismatchError,
  perBlockJournals,
  type ClaimContext,
} from "./journals.js";
import { SamplingError } from "./sampling.js";
import { EnclaveSigner } from "../../../enclave/index.js";
import { recoverSignerAddress } from "./signer-address.js";

function hex(...pieces: string[]): Uint8Array {
  const h = pieces.join("").replace(/\s/g, "");
  return Uint8Array.from(h.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
}
const fill = (byte: number) => new Uint8Array(32).fill(byte);
const PROPOSER = "f39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const BASE_CONFIG = "1607709d90d40904f790574404e2ad614eac858f6162faa0ec34c6bf5e5f3c57";

function context(overrides: Partial<BootInfo> = {}): ClaimContext {
  const boot: BootInfo = {
    l1Head: fill(0xe1),
    l1HeadNumber: 70_000n,
    agreedOutputRoot: fill(0xa0),
    claimedOutputRoot: fill(0xa3),
    claimedL2BlockNumber: 103n,
    chainId: 8453n,
    proposer: hex(PROPOSER),
    intermediateBlockInterval: 2n,
    ...overrides,
  };
  return { boot, configHash: configHashFor(boot.chainId), teeImageHash: new Uint8Array(32) };
}

const range = { startBlock: 100n, outputRoots: [fill(0xa1), fill(0xa2), fill(0xa3)] };

/** Counts the journals handed to the real signer. */
function counting(signer: EnclaveSigner): JournalSigner & { signed: Uint8Array[] } {
  const signed: Uint8Array[] = [];
  return { signed, signJournal: (journal) => (signed.push(journal), signer.signJournal(journal)) };
}

describe("journals built from a three-block range (blocks 101..103, interval 2)", () => {
  it("per-block journal of block 102, byte for byte", () => {
    const journal = perBlockJournals(context(), range)[1];
    expect(packJournal(journal!)).toEqual(
      hex(
        PROPOSER, // proposer
        "e1".repeat(32), // l1OriginHash: the request's L1 head
        "a1".repeat(32), // prevOutputRoot: block 101's root
        "0000000000000065", // startingL2Block 101
        "a2".repeat(32), // outputRoot at 102
        "0000000000000066", // endingL2Block 102
        BASE_CONFIG, // configHash of chain 8453
        "00".repeat(32), // teeImageHash: zero in local mode
      ),
    );
  });

  it("aggregate journal, byte for byte: N = floor(3 / 2) = 1 root, at block 102", () => {
    expect(packJournal(aggregateJournal(context(), range))).toEqual(
      hex(
        PROPOSER,
        "e1".repeat(32),
        "a0".repeat(32), // prevOutputRoot: the agreed root
        "0000000000000064", // startingL2Block 100 = first − 1
        "a3".repeat(32), // outputRoot: the claimed root
        "0000000000000067", // endingL2Block 103
        "a2".repeat(32), // intermediate root at 100 + 1·2
        BASE_CONFIG,
        "00".repeat(32),
      ),
    );
  });

  it("signs per-block proposals chained through prev_output_root and an aggregate, all recoverable", () => {
    const signer = EnclaveSigner.generate((n) => randomBytes(n));
    const ctx = context();
    const result = buildProofResult(ctx, range, signer);
    expect(result.Tee.proposals.map((p) => p.l2_block_number)).toEqual([101n, 102n, 103n]);
    expect(result.Tee.proposals.map((p) => p.prev_output_root)).toEqual([fill(0xa0), fill(0xa1), fill(0xa2)]);
    expect(result.Tee.proposals.map((p) => p.output_root)).toEqual([fill(0xa1), fill(0xa2), fill(0xa3)]);
    const journals = perBlockJournals(ctx, range);
    result.Tee.proposals.forEach((p, i) => {
      expect(p.l1_origin_hash).toEqual(fill(0xe1));
      expect(p.l1_origin_number).toBe(70_000n);
      expect(p.config_hash).toEqual(hex(BASE_CONFIG));
      expect(recoverSignerAddress(keccak_256(packJournal(journals[i]!)), p.signature)).toEqual(
        signer.address,
      );
    });
    const agg = result.Tee.aggregate_proposal;
    expect(agg.l2_block_number).toBe(103n);
    expect(agg.prev_output_root).toEqual(fill(0xa0));
    expect(agg.output_root).toEqual(fill(0xa3));
    expect(
      recoverSignerAddress(keccak_256(packJournal(aggregateJournal(ctx, range))), agg.signature),
    ).toEqual(signer.address);
  });

  it("a one-block range's aggregate is its per-block proposal", () => {
    const signer = counting(EnclaveSigner.generate((n) => randomBytes(n)));
    const ctx = context({
      claimedOutputRoot: fill(0xa1),
      claimedL2BlockNumber: 101n,
      intermediateBlockInterval: 1n,
    });
    const result = buildProofResult(ctx, { startBlock: 100n, outputRoots: [fill(0xa1)] }, signer);
    expect(result.Tee.proposals).toHaveLength(1);
    expect(result.Tee.aggregate_proposal).toEqual(result.Tee.proposals[0]);
    expect(signer.signed).toHaveLength(1);
    expect(signer.signed[0]!.length).toBe(196);
  });

  it("signs nothing when the final root differs from the claim, or the range ends elsewhere", () => {
    const signer = counting(EnclaveSigner.generate((n) => randomBytes(n)));
    expect(() => buildProofResult(context({ claimedOutputRoot: fill(0xff) }), range, signer)).toThrow(
      OutputRootMismatchError,
    );
    expect(() => buildProofResult(context({ claimedL2BlockNumber: 104n }), range, signer)).toThrow(
      /range ends at block 103, claimed block is 104/,
    );
    expect(() => buildProofResult(context(), { startBlock: 100n, outputRoots: [] }, signer)).toThrow(
      OutputRootMismatchError,
    );
    expect(() => buildProofResult(context({ intermediateBlockInterval: 0n }), range, signer)).toThrow(
      SamplingError,
    );
    expect(signer.signed).toHaveLength(0);
  });
});
