/**
 * The upgrade schedule id and the schedule-id journal, checked against vectors computed independently: viem's ABI
 * encoder and keccak256 for each link and for the packed journal, and the cross-implementation golden value
 * Base's ProtocolVersions and its client share.
 */
import { describe, expect, it } from "vitest";
import { bytesToHex, encodeAbiParameters, encodePacked, type Hex, keccak256, zeroHash } from "viem";
import { type Journal } from "../../../generated/journal/index.js";
import { devRollupConfig, forksActiveFrom, OpFork } from "../../chain/index.js";
import { EnclaveSigner } from "../../../enclave/index.js";
import type { BootInfo } from "../preimages/index.js";
import { buildProofResult, journalDigest, packSignedJournal, recoverJournalSigner } from "./journals.js";
import { signerAddressOf } from "./signer-address.js";
import {
  activatedScheduleId,
  claimScheduleId,
  ladderTimestamps,
  scheduleIdOf,
  scheduleLink,
  UPGRADE_LADDER,
} from "./upgrade-schedule.js";

/** The link as Solidity computes it: keccak256(abi.encode(bytes32 prev, uint256 index, uint64 timestamp)). */
function viemLink(previous: Hex, index: bigint, timestamp: bigint): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "uint256" }, { type: "uint64" }],
      [previous, index, timestamp],
    ),
  );
}

function viemChain(timestamps: readonly bigint[]): Hex {
  return timestamps.reduce<Hex>((prev, ts, i) => viemLink(prev, BigInt(i), ts), zeroHash);
}

describe("the upgrade schedule id", () => {
  it("links as keccak256(abi.encode(prev, index, timestamp))", () => {
    const prev = keccak256("0x01");
    for (const [index, timestamp] of [
      [0n, 0n],
      [3n, 1_700_000_000n],
      [255n, (1n << 64n) - 1n],
    ] as const) {
      expect(bytesToHex(scheduleLink(Buffer.from(prev.slice(2), "hex"), index, timestamp))).toBe(
        viemLink(prev, index, timestamp),
      );
    }
  });

  it("matches the golden value ProtocolVersions and Base's client share", () => {
    // ids 0 and 1 at 10 and 20, ids 2..9 unscheduled, id 10 at 30.
    const timestamps = [10n, 20n, ...Array<bigint>(8).fill(0n), 30n];
    expect(bytesToHex(scheduleIdOf(timestamps))).toBe(
      "0xc04583a182a2a57476d1ca57f9e5e7aa24f1eee188221f75fe17634b8a63f00c",
    );
    expect(bytesToHex(scheduleIdOf(timestamps))).toBe(viemChain(timestamps));
  });

  it("activatedScheduleId: the prefix through the newest active upgrade, gaps included, seed when none", () => {
    const timestamps = [10n, 50n, 30n, 0n, 1_000n];
    expect(bytesToHex(activatedScheduleId(timestamps, 9n))).toBe(zeroHash);
    expect(bytesToHex(activatedScheduleId(timestamps, 10n))).toBe(viemChain([10n]));
    // At 30 upgrade 2 is active; upgrade 1 (at 50) is not yet, but stays in the committed prefix.
    expect(bytesToHex(activatedScheduleId(timestamps, 30n))).toBe(viemChain([10n, 50n, 30n]));
    expect(bytesToHex(activatedScheduleId(timestamps, 999n))).toBe(viemChain([10n, 50n, 30n]));
    expect(bytesToHex(activatedScheduleId(timestamps, 1_000n))).toBe(viemChain(timestamps));
    // A schedule with one more upgrade active at the claim gives another id.
    expect(bytesToHex(activatedScheduleId([...timestamps, 2_000n], 2_000n))).not.toBe(
      bytesToHex(activatedScheduleId(timestamps, 2_000n)),
    );
  });

  it("reads the ladder from a rollup config in registration order, the Pectra blob schedule at id 7", () => {
    const config = devRollupConfig(901n, 1_000n);
    config.forkTimes = { ...forksActiveFrom(OpFork.Holocene, 0n), [OpFork.Isthmus]: 1_100n };
    config.pectraBlobScheduleTime = 1_050n;
    expect(UPGRADE_LADDER.map((u) => u.name)).toEqual([
      "regolith",
      "canyon",
      "delta",
      "ecotone",
      "fjord",
      "granite",
      "holocene",
      "pectra_blob_schedule",
      "isthmus",
      "jovian",
    ]);
    const timestamps = ladderTimestamps(config);
    expect(timestamps).toEqual([0n, 0n, 0n, 0n, 0n, 0n, 0n, 1_050n, 1_100n, 0n]);
    const blockAt = (time: bigint) => (time - config.genesisL2Time) / config.blockTime;
    expect(bytesToHex(claimScheduleId(config, blockAt(1_048n)))).toBe(zeroHash);
    expect(bytesToHex(claimScheduleId(config, blockAt(1_050n)))).toBe(viemChain(timestamps.slice(0, 8)));
    expect(bytesToHex(claimScheduleId(config, blockAt(1_200n)))).toBe(viemChain(timestamps.slice(0, 9)));
  });
});

const fill = (byte: number) => new Uint8Array(32).fill(byte);

describe("the schedule-id journal", () => {
  const journal: Journal = {
    proposer: new Uint8Array(20).fill(0x11),
    l1OriginHash: fill(0xe1),
    prevOutputRoot: fill(0xa0),
    startingL2Block: 100n,
    outputRoot: fill(0xa3),
    endingL2Block: 103n,
    intermediateRoots: [fill(0xa2)],
    configHash: fill(0xc0),
    teeImageHash: fill(0x1e),
  };
  const scheduleId = fill(0x5c);

  it("is the spec's journal followed by the schedule id: 228 + 32·N bytes, packed as the verifier packs it", () => {
    const packed = packSignedJournal(journal, scheduleId);
    expect(packed.length).toBe(228 + 32 * 1);
    expect(packSignedJournal(journal).length).toBe(196 + 32 * 1);
    const h = bytesToHex;
    const expected = encodePacked(
      [
        "address",
        "bytes32",
        "bytes32",
        "uint64",
        "bytes32",
        "uint64",
        "bytes",
        "bytes32",
        "bytes32",
        "bytes32",
      ],
      [
        h(journal.proposer),
        h(journal.l1OriginHash),
        h(journal.prevOutputRoot),
        journal.startingL2Block,
        h(journal.outputRoot),
        journal.endingL2Block,
        h(journal.intermediateRoots[0]!),
        h(journal.configHash),
        h(journal.teeImageHash),
        h(scheduleId),
      ],
    );
    expect(h(packed)).toBe(expected);
    expect(h(journalDigest(journal, scheduleId))).toBe(keccak256(expected));
  });

  it("signs every proposal over the schedule-id journal when the context carries one", () => {
    const signer = EnclaveSigner.generate((n) => new Uint8Array(n).fill(7));
    const boot: BootInfo = {
      l1Head: fill(0xe1),
      l1HeadNumber: 70_000n,
      agreedOutputRoot: fill(0xa0),
      claimedOutputRoot: fill(0xa2),
      claimedL2BlockNumber: 102n,
      chainId: 901n,
      proposer: new Uint8Array(20).fill(0x11),
      intermediateBlockInterval: 1n,
    };
    const range = { startBlock: 100n, outputRoots: [fill(0xa1), fill(0xa2)] };
    const context = { boot, configHash: fill(0xc0), teeImageHash: new Uint8Array(32), scheduleId };
    const result = buildProofResult(context, range, signer);
    const address = bytesToHex(signerAddressOf(signer.publicKey));
    const [first] = result.Tee.proposals;
    const firstJournal: Journal = {
      proposer: boot.proposer,
      l1OriginHash: boot.l1Head,
      prevOutputRoot: boot.agreedOutputRoot,
      startingL2Block: 100n,
      outputRoot: fill(0xa1),
      endingL2Block: 101n,
      intermediateRoots: [],
      configHash: fill(0xc0),
      teeImageHash: new Uint8Array(32),
    };
    expect(bytesToHex(recoverJournalSigner(firstJournal, first!.signature, scheduleId))).toBe(address);
    expect(bytesToHex(recoverJournalSigner(firstJournal, first!.signature))).not.toBe(address);
  });
});
