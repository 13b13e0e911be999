/** Journal golden vectors typed out by hand from spec/journal/journal.layout.json (packed, big-endian). */
import { describe, expect, it } from "vitest";
import {
  JournalLayoutError,
  packJournal,
  unpackJournal,
  type Journal,
} from "../../../generated/journal/index.js";
import { bytes, repeat } from "./hex.js";

const PROPOSER = "f39fd6e51aad88f6f4ce6ab8827279cfffb92266";

describe("journal golden vectors", () => {
  it("per-block journal: N = 0, exactly 196 bytes", () => {
    const journal: Journal = {
      proposer: bytes(PROPOSER),
      l1OriginHash: bytes(repeat("22", 32)),
      prevOutputRoot: bytes(repeat("33", 32)),
      startingL2Block: 999n,
      outputRoot: bytes(repeat("44", 32)),
      endingL2Block: 1000n,
      intermediateRoots: [],
      configHash: bytes(repeat("11", 32)),
      teeImageHash: bytes(repeat("00", 32)),
    };
    const wire = bytes(
      PROPOSER, //                          0..20   proposer
      repeat("22", 32), //                 20..52   l1OriginHash
      repeat("33", 32), //                 52..84   prevOutputRoot
      "00000000000003e7", //               84..92   startingL2Block 999, u64 BE
      repeat("44", 32), //                 92..124  outputRoot
      "00000000000003e8", //              124..132  endingL2Block 1000, u64 BE
      //                                            no intermediate roots
      repeat("11", 32), //                132..164  configHash
      repeat("00", 32), //                164..196  teeImageHash (zero: local mode)
    );
    expect(wire.length).toBe(196);
    expect(packJournal(journal)).toEqual(wire);
    expect(unpackJournal(wire)).toEqual(journal);
  });

  it("aggregate journal: N = 3, exactly 292 bytes", () => {
    const journal: Journal = {
      proposer: bytes(PROPOSER),
      l1OriginHash: bytes(repeat("e1", 32)),
      prevOutputRoot: bytes(repeat("a0", 32)),
      startingL2Block: 0x0102030405060708n,
      outputRoot: bytes(repeat("a6", 32)),
      endingL2Block: 0x010203040506070en,
      intermediateRoots: [bytes(repeat("a2", 32)), bytes(repeat("a4", 32)), bytes(repeat("a6", 32))],
      configHash: bytes("1607709d90d40904f790574404e2ad614eac858f6162faa0ec34c6bf5e5f3c57"),
      teeImageHash: bytes(repeat("5e", 32)),
    };
    const wire = bytes(
      PROPOSER, //                                                              0..20
      repeat("e1", 32), //                                                     20..52
      repeat("a0", 32), //                                                     52..84
      "0102030405060708", // startingL2Block: most significant byte first      84..92
      repeat("a6", 32), //                                                     92..124
      "010203040506070e", // endingL2Block = start + 6                        124..132
      repeat("a2", 32), // intermediate root 1                               132..164
      repeat("a4", 32), // intermediate root 2                               164..196
      repeat("a6", 32), // intermediate root 3 (the final root)              196..228
      "1607709d90d40904f790574404e2ad614eac858f6162faa0ec34c6bf5e5f3c57", // 228..260 configHash
      repeat("5e", 32), //                                                    260..292 teeImageHash
    );
    expect(wire.length).toBe(292);
    expect(packJournal(journal)).toEqual(wire);
    expect(unpackJournal(wire)).toEqual(journal);
  });

  it("rejects lengths that are not 196 + 32*N and wrong-sized elements", () => {
    for (const length of [0, 195, 197, 227, 229]) {
      expect(() => unpackJournal(new Uint8Array(length))).toThrow(JournalLayoutError);
    }
    const ok: Journal = {
      proposer: new Uint8Array(20),
      l1OriginHash: new Uint8Array(32),
      prevOutputRoot: new Uint8Array(32),
      startingL2Block: 0n,
      outputRoot: new Uint8Array(32),
      endingL2Block: 1n,
      intermediateRoots: [],
      configHash: new Uint8Array(32),
      teeImageHash: new Uint8Array(32),
    };
    expect(packJournal(ok).length).toBe(196);
    expect(() => packJournal({ ...ok, proposer: new Uint8Array(32) })).toThrow(/proposer must be 20 bytes/);
    expect(() => packJournal({ ...ok, intermediateRoots: [new Uint8Array(31)] })).toThrow(
      /intermediateRoots\[\] must be 32 bytes/,
    );
    expect(() => packJournal({ ...ok, endingL2Block: 1n << 64n })).toThrow(/endingL2Block must be a u64/);
  });
});
