/**
 * Holocene singular batch rules: each rule has a batch that passes every other rule and breaks only this one,
 * next to the same batch without the defect (so the test fails if the rule is dropped or misapplied).
 */
import { describe, expect, it } from "vitest";
import { OpFork } from "../../chain/index.js";
import type { L1BlockRef, SingularBatchData } from "../types.js";
import { fakeHash, l1Ref, l2Ref, testDerivationConfig, testRollupConfig } from "./chain.test-support.js";
import { checkSingularBatch } from "./singular.js";

const config = testDerivationConfig();
// L1 blocks 10, 11, 12 (12 s apart, time 1120, 1132, 1144); the safe head is L2 block 100 at time 1130, origin 10.
const l1 = [l1Ref(10n), l1Ref(11n), l1Ref(12n)];
const safe = l2Ref(100n, 1_130n, l1[0]!, 5n);
const inclusion = l1[2]!;
const legacyTx = Uint8Array.of(0xf8, 0x01, 0x02);

function batch(overrides: Partial<SingularBatchData> = {}): SingularBatchData {
  return {
    parentHash: safe.hash,
    epochNumber: 10n,
    epochHash: l1[0]!.hash,
    timestamp: 1_132n,
    transactions: [legacyTx, Uint8Array.of(0x02, 0xc0)],
    ...overrides,
  };
}

function check(b: SingularBatchData, blocks: readonly L1BlockRef[] = l1, at: L1BlockRef = inclusion) {
  return checkSingularBatch(config, blocks, safe, b, at);
}

describe("singular batch validity (Holocene)", () => {
  it("accepts the next batch on the safe head", () => {
    expect(check(batch()).kind).toBe("accept");
    expect(check(batch({ epochNumber: 11n, epochHash: l1[1]!.hash, timestamp: 1_132n })).kind).toBe("accept");
  });

  it("drops a future batch (no gaps, no buffering)", () => {
    expect(check(batch({ timestamp: 1_134n }))).toMatchObject({ kind: "drop", reason: "future-timestamp" });
  });

  it("skips a past batch without dropping the channel", () => {
    expect(check(batch({ timestamp: 1_130n })).kind).toBe("past");
    expect(check(batch({ timestamp: 1_100n })).kind).toBe("past");
  });

  it("drops a batch whose parent is not the safe head", () => {
    expect(check(batch({ parentHash: fakeHash(9, 9) }))).toMatchObject({ reason: "parent-hash-mismatch" });
  });

  it("drops a batch included after its sequencing window", () => {
    const late = l1Ref(10n + config.seqWindowSize + 1n);
    expect(check(batch(), [...l1, late], late)).toMatchObject({ reason: "included-too-late" });
    const lastChance = l1Ref(10n + config.seqWindowSize);
    expect(check(batch(), [...l1, lastChance], lastChance).kind).toBe("accept");
  });

  it("drops an epoch older than the safe head's", () => {
    expect(check(batch({ epochNumber: 9n, epochHash: l1Ref(9n).hash }))).toMatchObject({
      reason: "epoch-too-old",
    });
  });

  it("drops an epoch more than one ahead", () => {
    expect(check(batch({ epochNumber: 12n, epochHash: l1[2]!.hash }))).toMatchObject({
      reason: "epoch-too-far-ahead",
    });
  });

  it("drops an epoch hash that is not the canonical L1 block's", () => {
    expect(check(batch({ epochHash: fakeHash(7, 10) }))).toMatchObject({ reason: "epoch-hash-mismatch" });
    expect(check(batch({ epochNumber: 11n, epochHash: l1[0]!.hash }))).toMatchObject({
      reason: "epoch-hash-mismatch",
    });
  });

  it("is undecided on the next epoch before its L1 block is known", () => {
    expect(check(batch({ epochNumber: 11n, epochHash: l1[1]!.hash }), [l1[0]!]).kind).toBe("undecided");
  });

  it("drops a batch older than its L1 origin", () => {
    // L1 block 11 is at 1132: an L2 block at 1132 may adopt it, one at 1130 may not (built on an older safe head).
    const early = l2Ref(100n, 1_128n, l1[0]!);
    const b = batch({ epochNumber: 11n, epochHash: l1[1]!.hash, timestamp: 1_130n, parentHash: early.hash });
    expect(checkSingularBatch(config, l1, early, b, inclusion)).toMatchObject({
      reason: "timestamp-before-l1-origin",
    });
  });

  describe("sequencer drift (1800 s from Fjord)", () => {
    // The safe head sits 1800 s past its origin's time: the next block is over the drift.
    const origin = l1Ref(10n, 1_000n);
    const next = l1Ref(11n, 5_000n);
    const head = l2Ref(200n, 2_800n, origin, 50n);
    const over = (txs: Uint8Array[], nextOrigin: L1BlockRef = next) =>
      checkSingularBatch(
        config,
        [origin, nextOrigin],
        head,
        {
          parentHash: head.hash,
          epochNumber: 10n,
          epochHash: origin.hash,
          timestamp: 2_802n,
          transactions: txs,
        },
        nextOrigin,
      );

    it("drops a batch with transactions past the drift", () => {
      expect(over([legacyTx])).toMatchObject({ reason: "sequencer-drift-exceeded" });
    });

    it("accepts an empty batch past the drift while the next origin is still in the future", () => {
      expect(over([]).kind).toBe("accept");
    });

    it("drops an empty batch past the drift when it could have adopted the next origin", () => {
      expect(over([], l1Ref(11n, 2_802n))).toMatchObject({
        reason: "sequencer-drift-not-adopted-next-origin",
      });
    });

    it("accepts a batch at exactly the drift", () => {
      const atMax = l2Ref(200n, 2_798n, origin, 50n);
      const b = {
        parentHash: atMax.hash,
        epochNumber: 10n,
        epochHash: origin.hash,
        timestamp: 2_800n,
        transactions: [legacyTx],
      };
      expect(checkSingularBatch(config, [origin, next], atMax, b, next).kind).toBe("accept");
    });
  });

  it("drops an empty transaction and a deposit transaction", () => {
    expect(check(batch({ transactions: [legacyTx, new Uint8Array(0)] }))).toMatchObject({
      reason: "empty-transaction",
      details: { index: 1 },
    });
    expect(check(batch({ transactions: [Uint8Array.of(0x7e, 0xc0)] }))).toMatchObject({
      reason: "deposit-transaction",
    });
  });

  it("drops a SetCode transaction before Isthmus and accepts it after", () => {
    const setCode = Uint8Array.of(0x04, 0xc0);
    expect(check(batch({ transactions: [setCode] })).kind).toBe("accept");
    const preIsthmus = testDerivationConfig(
      {},
      testRollupConfig({ forkTimes: { ...testRollupConfig().forkTimes, [OpFork.Isthmus]: 5_000n } }),
    );
    expect(
      checkSingularBatch(preIsthmus, l1, safe, batch({ transactions: [setCode] }), inclusion),
    ).toMatchObject({
      reason: "eip7702-pre-isthmus",
    });
  });

  it("drops user transactions in the Jovian activation block only", () => {
    const jovian = testDerivationConfig(
      {},
      testRollupConfig({ forkTimes: { ...testRollupConfig().forkTimes, [OpFork.Jovian]: 1_132n } }),
    );
    expect(checkSingularBatch(jovian, l1, safe, batch(), inclusion)).toMatchObject({
      reason: "non-empty-transition-block",
    });
    expect(checkSingularBatch(jovian, l1, safe, batch({ transactions: [] }), inclusion).kind).toBe("accept");
    const next = l2Ref(101n, 1_132n, l1[0]!, 6n);
    const after = batch({ parentHash: next.hash, timestamp: 1_134n });
    expect(checkSingularBatch(jovian, l1, next, after, inclusion).kind).toBe("accept");
  });
});
