/**
 * Holocene span batch checks (prefix, then overlap) and the expansion into singular batches; each rule has a
 * span that breaks only that rule next to the same span without the defect.
 */
import { describe, expect, it } from "vitest";
import { DataMissingError } from "../errors.js";
import type { L1BlockRef, L2BlockRef } from "../types.js";
import { fakeHash, l1Ref, l2Ref, testDerivationConfig } from "./chain.test-support.js";
import {
  type SafeBlock,
  type SafeChainReader,
  type SpanBatchView,
  type SpanBlock,
  checkSpanBatchOverlap,
  checkSpanBatchPrefix,
  spanSingularBatches,
} from "./span.js";

const config = testDerivationConfig();
const l1 = [l1Ref(10n), l1Ref(11n), l1Ref(12n)];
const deposit = Uint8Array.of(0x7e, 0xc1, 0x80);
const txA = Uint8Array.of(0x02, 0xc1, 0x0a);
const txB = Uint8Array.of(0x02, 0xc1, 0x0b);

// The safe chain: L2 blocks 98, 99, 100 at 1126, 1128, 1130 with origin 10; block 100 holds txA.
const safeChain = new Map<bigint, SafeBlock>();
for (const [n, t, txs] of [
  [97n, 1_124n, []],
  [98n, 1_126n, []],
  [99n, 1_128n, [txB]],
  [100n, 1_130n, [txA]],
] as [bigint, bigint, Uint8Array[]][]) {
  safeChain.set(n, { ref: l2Ref(n, t, l1[0]!, n - 90n), transactions: [deposit, ...txs] });
}
const safe = safeChain.get(100n)!.ref;
const reader: SafeChainReader = {
  async blockRef(n) {
    const b = safeChain.get(n);
    if (b === undefined) throw new DataMissingError("validation", "no such block", { n });
    return b.ref;
  },
  async block(n) {
    const b = safeChain.get(n);
    if (b === undefined) throw new DataMissingError("validation", "no such block", { n });
    return b;
  },
};

function block(timestamp: bigint, epochNumber = 10n, transactions: Uint8Array[] = []): SpanBlock {
  return { timestamp, epochNumber, transactions };
}

function span(blocks: SpanBlock[], parent: L2BlockRef = safe, lastOrigin?: L1BlockRef): SpanBatchView {
  const last = blocks[blocks.length - 1]!;
  const origin = lastOrigin ?? l1.find((b) => b.number === last.epochNumber) ?? l1Ref(last.epochNumber);
  return { parentCheck: parent.hash.slice(0, 20), l1OriginCheck: origin.hash.slice(0, 20), blocks };
}

async function prefix(s: SpanBatchView, inclusion: L1BlockRef = l1[2]!, blocks: readonly L1BlockRef[] = l1) {
  return checkSpanBatchPrefix(config, blocks, safe, s, inclusion, reader);
}

describe("span batch prefix checks (Holocene)", () => {
  it("accepts a span starting right after the safe head", async () => {
    const r = await prefix(span([block(1_132n), block(1_134n, 11n)]));
    expect(r.validity.kind).toBe("accept");
    expect(r.parent?.number).toBe(100n);
  });

  it("drops a span starting after the next block (gap)", async () => {
    expect((await prefix(span([block(1_134n)]))).validity).toMatchObject({ reason: "future-timestamp" });
  });

  it("skips a span wholly at or before the safe head as past", async () => {
    const parent = safeChain.get(97n)!.ref;
    expect((await prefix(span([block(1_126n), block(1_128n), block(1_130n)], parent))).validity.kind).toBe(
      "past",
    );
  });

  it("drops a misaligned overlapping span", async () => {
    expect((await prefix(span([block(1_131n), block(1_133n)]))).validity).toMatchObject({
      reason: "span-misaligned-timestamp",
    });
    expect(
      (await prefix(span([block(1_127n), block(1_129n), block(1_131n), block(1_133n)]))).validity,
    ).toMatchObject({
      reason: "span-not-overlapped-exactly",
    });
  });

  it("finds the parent of an overlapping span in the safe chain and checks it", async () => {
    const parent = safeChain.get(98n)!.ref;
    const s = span([block(1_128n, 10n, [txB]), block(1_130n, 10n, [txA]), block(1_132n)], parent);
    const r = await prefix(s);
    expect(r.validity.kind).toBe("accept");
    expect(r.parent?.number).toBe(98n);
    expect((await prefix({ ...s, parentCheck: safe.hash.slice(0, 20) })).validity).toMatchObject({
      reason: "parent-hash-mismatch",
    });
  });

  it("drops a span whose parent check does not match the safe head", async () => {
    expect(
      (await prefix({ ...span([block(1_132n)]), parentCheck: fakeHash(3, 3).slice(0, 20) })).validity,
    ).toMatchObject({
      reason: "parent-hash-mismatch",
    });
  });

  it("drops a span included after its start epoch's window", async () => {
    const late = l1Ref(10n + config.seqWindowSize + 1n);
    expect((await prefix(span([block(1_132n)]), late, [...l1, late])).validity).toMatchObject({
      reason: "included-too-late",
    });
    const lastChance = l1Ref(10n + config.seqWindowSize);
    expect((await prefix(span([block(1_132n)]), lastChance, [...l1, lastChance])).validity.kind).toBe(
      "accept",
    );
  });

  it("drops a span starting more than one epoch ahead", async () => {
    // Block 12 is at 1144: a span at 1132 naming it would also break the L1 time rule, but the prefix catches it first.
    expect((await prefix(span([block(1_132n, 12n)]))).validity).toMatchObject({
      reason: "epoch-too-far-ahead",
    });
  });

  it("drops a span whose last L1 origin check does not match the canonical chain", async () => {
    const s = span([block(1_132n), block(1_134n, 11n)], safe, l1[0]);
    expect((await prefix(s)).validity).toMatchObject({ reason: "epoch-hash-mismatch" });
  });

  it("is undecided while the span's last L1 origin is unknown", async () => {
    const s = span([block(1_132n), block(1_134n, 11n)]);
    expect((await prefix(s, l1[0]!, [l1[0]!, l1[1]!].slice(0, 1))).validity.kind).toBe("undecided");
  });

  it("drops a span starting before the parent's epoch", async () => {
    const s = span([block(1_132n, 9n)], safe, l1Ref(9n));
    expect((await prefix(s, l1[2]!, [l1Ref(9n), ...l1])).validity).toMatchObject({ reason: "epoch-too-old" });
  });

  it("passes a missing safe block on as data missing, never as a drop", async () => {
    const s = span([block(1_120n), block(1_122n), block(1_132n)], l2Ref(94n, 1_118n, l1[0]!));
    await expect(prefix(s)).rejects.toBeInstanceOf(DataMissingError);
  });
});

describe("span batch overlap checks", () => {
  const parent = safeChain.get(98n)!.ref;
  const overlap = (blocks: SpanBlock[]) =>
    checkSpanBatchOverlap(config, safe, parent, span(blocks, parent), reader);

  it("accepts overlapped blocks equal to the safe chain (deposits excluded)", async () => {
    expect((await overlap([block(1_128n, 10n, [txB]), block(1_130n, 10n, [txA]), block(1_132n)])).kind).toBe(
      "accept",
    );
  });

  it("drops an overlapped block with other transactions", async () => {
    expect(
      await overlap([block(1_128n, 10n, [txB]), block(1_130n, 10n, [txB]), block(1_132n)]),
    ).toMatchObject({
      reason: "overlap-tx-mismatch",
      details: { number: 100n },
    });
  });

  it("drops an overlapped block with another transaction count", async () => {
    expect(await overlap([block(1_128n, 10n, []), block(1_130n, 10n, [txA]), block(1_132n)])).toMatchObject({
      reason: "overlap-tx-count-mismatch",
      details: { number: 99n },
    });
  });

  it("drops an overlapped block with another L1 origin", async () => {
    expect(
      await overlap([block(1_128n, 10n, [txB]), block(1_130n, 11n, [txA]), block(1_132n, 11n)]),
    ).toMatchObject({ reason: "overlap-l1-origin-mismatch" });
  });

  it("checks nothing for a span that does not overlap", async () => {
    expect((await checkSpanBatchOverlap(config, safe, safe, span([block(1_132n)]), reader)).kind).toBe(
      "accept",
    );
  });
});

describe("span batch to singular batches", () => {
  it("keeps the blocks after the safe head with their L1 origin hashes", () => {
    const s = span([block(1_130n, 10n, [txA]), block(1_132n, 10n), block(1_134n, 11n, [txB])]);
    const r = spanSingularBatches(s, l1, safe);
    expect("batches" in r && r.batches.map((b) => [b.timestamp, b.epochNumber, b.epochHash])).toEqual([
      [1_132n, 10n, l1[0]!.hash],
      [1_134n, 11n, l1[1]!.hash],
    ]);
  });

  it("drops a span whose first new block has an L1 origin older than the safe head's", () => {
    const head = l2Ref(100n, 1_130n, l1[1]!);
    const r = spanSingularBatches(span([block(1_132n, 10n)]), l1, head);
    expect("validity" in r && r.validity).toMatchObject({ reason: "span-l1-origin-before-safe-head" });
  });

  it("drops a span naming an L1 origin outside the window", () => {
    const r = spanSingularBatches(span([block(1_132n, 13n)]), l1, safe);
    expect("validity" in r && r.validity).toMatchObject({ reason: "span-missing-l1-origin" });
  });
});
