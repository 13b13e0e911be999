/**
 * The suite's journal reconstruction against the enclave's own journal builder and signer
 * (src/proof/onchain/journals.ts buildProofResult, enclave/signer.ts): every proof it builds passes, for ranges
 * of 1, 2, 5 and 10 blocks and intervals 1, 2 and 5; a wrong image hash, another signer, another
 * proposer or a tampered root is reported.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EnclaveSigner } from "../enclave/index.js";
import type { Preimage, ProofResult } from "../generated/protocol/index.js";
import { buildProofResult } from "../src/proof/onchain/index.js";
import { type BootInfo, BootKey, bootPreimageKey, u64be } from "../src/proof/preimages/index.js";
import { imageHashFromPcrs, journalProblems } from "./journal-check.js";

const random = (length: number): Uint8Array => new Uint8Array(randomBytes(length));
const root = (n: number): Uint8Array => new Uint8Array(32).fill(n);

function scenario(blocks: number, interval: bigint) {
  const startBlock = 1000n;
  const outputRoots = Array.from({ length: blocks }, (_, i) => root(i + 1));
  const boot: BootInfo = {
    l1Head: root(0xe1),
    l1HeadNumber: 70_000n,
    agreedOutputRoot: root(0xa0),
    claimedOutputRoot: outputRoots[blocks - 1] as Uint8Array,
    claimedL2BlockNumber: startBlock + BigInt(blocks),
    chainId: 8453n,
    proposer: new Uint8Array(20).fill(0x70),
    intermediateBlockInterval: interval,
  };
  const witness: Preimage[] = [
    [bootPreimageKey(BootKey.Proposer), boot.proposer],
    [bootPreimageKey(BootKey.IntermediateBlockInterval), u64be(interval)],
  ];
  return { boot, witness, range: { startBlock, outputRoots } };
}

const signer = EnclaveSigner.generate(random);
const imageHash = root(0x5a);

function prove(blocks: number, interval: bigint): { result: ProofResult; witness: Preimage[] } {
  const { boot, witness, range } = scenario(blocks, interval);
  return {
    result: buildProofResult({ boot, configHash: root(0xc0), teeImageHash: imageHash }, range, signer),
    witness,
  };
}

describe("journalProblems", () => {
  for (const blocks of [1, 2, 5, 10]) {
    for (const interval of [1n, 2n, 5n]) {
      it(`accepts the enclave's proof of ${blocks} block(s), interval ${interval}`, () => {
        const { result, witness } = prove(blocks, interval);
        expect(
          journalProblems(result, { witness, signerAddress: signer.address, teeImageHash: imageHash }),
        ).toEqual([]);
      });
    }
  }

  it("reports a journal signed with another image hash, by another signer, for another proposer", () => {
    const { result, witness } = prove(5, 2n);
    const wrongImage = journalProblems(result, {
      witness,
      signerAddress: signer.address,
      teeImageHash: root(0),
    });
    expect(wrongImage).toHaveLength(6);
    expect(wrongImage[5]).toMatch(/^aggregate proposal: the signature does not recover/);
    const other = EnclaveSigner.generate(random);
    expect(
      journalProblems(result, { witness, signerAddress: other.address, teeImageHash: imageHash }),
    ).toHaveLength(6);
    const otherProposer: Preimage[] = [
      [bootPreimageKey(BootKey.Proposer), new Uint8Array(20).fill(0x71)],
      witness[1] as Preimage,
    ];
    expect(
      journalProblems(result, {
        witness: otherProposer,
        signerAddress: signer.address,
        teeImageHash: imageHash,
      }),
    ).toHaveLength(6);
  });

  it("reports a tampered output root and an aggregate that differs from a single block's proposal", () => {
    const { result, witness } = prove(3, 1n);
    const tampered: ProofResult = {
      Tee: {
        ...result.Tee,
        proposals: result.Tee.proposals.map((p, i) => (i === 1 ? { ...p, output_root: root(0x99) } : p)),
      },
    };
    const problems = journalProblems(tampered, {
      witness,
      signerAddress: signer.address,
      teeImageHash: imageHash,
    });
    expect(problems.map((p) => p.slice(0, 20))).toEqual(["proposal 1 (block 10", "aggregate proposal: "]);
    const single = prove(1, 1n);
    const forged: ProofResult = {
      Tee: {
        ...single.result.Tee,
        aggregate_proposal: { ...single.result.Tee.aggregate_proposal, signature: new Uint8Array(65) },
      },
    };
    expect(
      journalProblems(forged, {
        witness: single.witness,
        signerAddress: signer.address,
        teeImageHash: imageHash,
      }),
    ).toEqual(["a one-block range's aggregate proposal differs from its per-block proposal"]);
  });

  it("derives the expected image hash from the attestation's PCRs", () => {
    expect(imageHashFromPcrs(new Map())).toEqual(new Uint8Array(32));
    expect(imageHashFromPcrs(new Map([[0, new Uint8Array(48)]]))).toHaveLength(32);
    expect(imageHashFromPcrs(new Map([[0, new Uint8Array(32)]]))).toBeUndefined();
    expect(imageHashFromPcrs(new Map([[1, new Uint8Array(48)]]))).toBeUndefined();
  });
});
