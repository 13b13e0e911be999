/**
 * The batch source and the Holocene batch stage together, fed with channels made by the encoders: strict
 * ordering, fast channel invalidation, past batches, span batches (overlap included), flushing after a
 * deposit-only block, the "origin behind" drain and empty batches when the window runs out. Each rule's test has
 * a twin without the defect, so it fails if the rule is dropped.
 */
import { describe, expect, it } from "vitest";
import { DataMissingError, type DroppedInputError } from "../errors.js";
import type { L1BlockRef, L2BlockRef, SingularBatchData } from "../types.js";
import { fakeHash, l1Ref, testDerivationConfig } from "../validation/chain.test-support.js";
import type { SafeBlock, SafeChainReader } from "../validation/index.js";
import { BatchSource } from "./batch-source.js";
import { BatchStage } from "./batch-stage.js";
import { channelPayloads, l2Transactions, singularBatch, spanBatch } from "./synthetic.test-support.js";

const config = testDerivationConfig({ genesisL2Time: 1_000n });
const DEPOSIT = Uint8Array.of(0x7e, 0xc0);

/** L2 block n is at time 1000 + 2n; its hash is fakeHash(2, n). */
function l2(n: bigint, origin: L1BlockRef, seq = 0n): L2BlockRef {
  return {
    number: n,
    hash: fakeHash(2, n),
    parentHash: fakeHash(2, n - 1n),
    timestamp: 1_000n + 2n * n,
    l1Origin: { number: origin.number, hash: origin.hash },
    sequenceNumber: seq,
  };
}

function batchFor(n: bigint, origin: L1BlockRef, transactions: Uint8Array[] = []): SingularBatchData {
  return {
    parentHash: fakeHash(2, n - 1n),
    epochNumber: origin.number,
    epochHash: origin.hash,
    timestamp: 1_000n + 2n * n,
    transactions,
  };
}

interface L1Input {
  readonly ref: L1BlockRef;
  readonly items: Uint8Array[];
}

class Chain implements SafeChainReader {
  readonly blocks = new Map<bigint, SafeBlock>();
  async blockRef(n: bigint) {
    return (await this.block(n)).ref;
  }
  async block(n: bigint) {
    const b = this.blocks.get(n);
    if (b === undefined) throw new DataMissingError("validation", "no block", { n });
    return b;
  }
}

/**
 * Runs the stage over `l1` from safe head `head` the way the driver does; `replaceWithDepositOnly` lists the
 * blocks the "engine" rejects. Returns the accepted batches and the drops reported.
 */
async function drive(
  head: L2BlockRef,
  l1: L1Input[],
  options: { replaceWithDepositOnly?: bigint[]; chain?: Chain; epoch?: L1BlockRef } = {},
) {
  const drops: DroppedInputError[] = [];
  const chain = options.chain ?? new Chain();
  chain.blocks.set(head.number, { ref: head, transactions: [DEPOSIT] });
  const source = new BatchSource(config, (e) => drops.push(e));
  const stage = new BatchStage(config, source, chain, (e) => drops.push(e));
  stage.reset(options.epoch ?? l1.find((b) => b.ref.number === head.l1Origin.number)!.ref);
  let i = 0;
  source.setBlock(l1[0]!.ref, l1[0]!.items);
  const out: SingularBatchData[] = [];
  let safe = head;
  for (let guard = 0; guard < 10_000; guard++) {
    const r = await stage.next(safe, l1[i]!.ref);
    if (r.kind === "not-enough-data") continue;
    if (r.kind === "eof") {
      if (++i >= l1.length) break;
      source.setBlock(l1[i]!.ref, l1[i]!.items);
      continue;
    }
    out.push(r.batch);
    const origin = l1.find((b) => b.ref.number === r.batch.epochNumber)!.ref;
    const seq = origin.number === safe.l1Origin.number ? safe.sequenceNumber + 1n : 0n;
    safe = l2(safe.number + 1n, origin, seq);
    const depositOnly = options.replaceWithDepositOnly?.includes(safe.number) ?? false;
    chain.blocks.set(safe.number, {
      ref: safe,
      transactions: depositOnly ? [DEPOSIT] : [DEPOSIT, ...r.batch.transactions],
    });
    if (depositOnly) stage.flush();
  }
  return { batches: out, drops, safe };
}

const o10 = l1Ref(10n); // time 1120
const o11 = l1Ref(11n); // time 1132
const o12 = l1Ref(12n); // time 1144
// Safe head: L2 block 65 at 1130, origin 10.
const head = l2(65n, o10, 5n);

describe("batch stage (Holocene)", () => {
  it("hands out a channel's singular batches in order", async () => {
    const txs = await l2Transactions(1, 3);
    const channel = channelPayloads(1, [
      singularBatch(batchFor(66n, o11, [txs[0]!])),
      singularBatch(batchFor(67n, o11, [txs[1]!, txs[2]!])),
    ]);
    const r = await drive(head, [
      { ref: o10, items: [] },
      { ref: o11, items: [] },
      { ref: o12, items: channel },
    ]);
    expect(r.batches.map((b) => b.timestamp)).toEqual([1_132n, 1_134n]);
    expect(r.batches[1]!.transactions).toEqual([txs[1], txs[2]]);
    expect(r.drops).toEqual([]);
  });

  it("drops a future batch and the rest of its channel (fast channel invalidation)", async () => {
    const good = [singularBatch(batchFor(66n, o11)), singularBatch(batchFor(67n, o11))];
    const gap = singularBatch(batchFor(68n, o11));
    const withGap = channelPayloads(1, [gap, ...good]);
    const r = await drive(head, [
      { ref: o10, items: [] },
      { ref: o11, items: [] },
      { ref: o12, items: withGap },
    ]);
    expect(r.batches).toEqual([]);
    expect(r.drops.map((d) => d.details.reason)).toEqual(["future-timestamp"]);
    // The same batches in another channel after it are read.
    const later = channelPayloads(2, good);
    const r2 = await drive(head, [
      { ref: o10, items: [] },
      { ref: o11, items: [] },
      { ref: o12, items: [...withGap, ...later] },
    ]);
    expect(r2.batches.map((b) => b.timestamp)).toEqual([1_132n, 1_134n]);
  });

  it("skips past batches and goes on with the channel", async () => {
    const channel = channelPayloads(1, [
      singularBatch(batchFor(64n, o10)),
      singularBatch(batchFor(65n, o10)),
      singularBatch(batchFor(66n, o11)),
    ]);
    const r = await drive(head, [
      { ref: o10, items: [] },
      { ref: o11, items: [] },
      { ref: o12, items: channel },
    ]);
    expect(r.batches.map((b) => b.timestamp)).toEqual([1_132n]);
    expect(r.drops).toEqual([]);
  });

  it("skips batches read while L1 is not past the safe head's origin (origin behind)", async () => {
    const channel = channelPayloads(1, [singularBatch(batchFor(66n, o10))]);
    const behind = await drive(head, [
      { ref: o10, items: channel },
      { ref: o11, items: [] },
    ]);
    expect(behind.batches).toEqual([]);
    const inTime = await drive(head, [
      { ref: o10, items: [] },
      { ref: o11, items: channel },
    ]);
    expect(inTime.batches.map((b) => b.timestamp)).toEqual([1_132n]);
  });

  it("after a deposit-only block, drops the rest of its channel", async () => {
    const a = channelPayloads(1, [
      singularBatch(batchFor(66n, o11, await l2Transactions(2, 1))),
      singularBatch(batchFor(67n, o11, await l2Transactions(3, 1))),
    ]);
    const l1 = [
      { ref: o10, items: [] },
      { ref: o11, items: [] },
      { ref: o12, items: a },
    ];
    expect((await drive(head, l1)).batches.length).toBe(2);
    const replaced = await drive(head, l1, { replaceWithDepositOnly: [66n] });
    expect(replaced.batches.map((b) => b.timestamp)).toEqual([1_132n]);
  });

  describe("span batches", () => {
    it("expands a span into singular batches with their L1 origins", async () => {
      const txs = await l2Transactions(4, 2);
      const span = spanBatch(
        [batchFor(66n, o11, [txs[0]!]), batchFor(67n, o11), batchFor(68n, o11, [txs[1]!])],
        true,
      );
      const r = await drive(head, [
        { ref: o10, items: [] },
        { ref: o11, items: [] },
        { ref: o12, items: channelPayloads(1, [span]) },
      ]);
      expect(r.batches.map((b) => [b.timestamp, b.epochNumber])).toEqual([
        [1_132n, 11n],
        [1_134n, 11n],
        [1_136n, 11n],
      ]);
      expect(r.batches[2]!.transactions).toEqual([txs[1]]);
    });

    it("accepts a span overlapping the safe chain when the overlap matches, drops it when not", async () => {
      const txs = await l2Transactions(5, 3);
      const chain = new Chain();
      const b64 = l2(64n, o10, 4n);
      chain.blocks.set(63n, { ref: l2(63n, o10, 3n), transactions: [DEPOSIT] });
      chain.blocks.set(64n, { ref: b64, transactions: [DEPOSIT, txs[0]!] });
      const overlapping = (t64: Uint8Array) =>
        spanBatch([batchFor(64n, o10, [t64]), batchFor(65n, o10), batchFor(66n, o11, [txs[2]!])], false);
      const l1 = (span: Uint8Array) => [
        { ref: o10, items: [] },
        { ref: o11, items: [] },
        { ref: o12, items: channelPayloads(1, [span]) },
      ];
      const ok = await drive(head, l1(overlapping(txs[0]!)), { chain });
      expect(ok.batches.map((b) => b.timestamp)).toEqual([1_132n]);
      expect(ok.batches[0]!.transactions).toEqual([txs[2]]);
      const bad = await drive(head, l1(overlapping(txs[1]!)), { chain });
      expect(bad.batches).toEqual([]);
      expect(bad.drops.map((d) => d.details.reason)).toEqual(["overlap-tx-mismatch"]);
    });

    it("drops the rest of a span after its first invalid block, keeping the valid ones before it", async () => {
      const run = (s: Uint8Array) =>
        drive(head, [
          { ref: o10, items: [] },
          { ref: o11, items: [] },
          { ref: o12, items: channelPayloads(1, [s]) },
        ]);
      const valid = spanBatch([batchFor(66n, o11), batchFor(67n, o11), batchFor(68n, o11)], true);
      expect((await run(valid)).batches.length).toBe(3);
      // Block 67 names epoch 12, whose L1 time (1144) is after the block's (1134): 66 is derived, 67 and 68 not.
      const early = spanBatch([batchFor(66n, o11), batchFor(67n, o12), batchFor(68n, o12)], true);
      const r = await run(early);
      expect(r.batches.map((b) => b.timestamp)).toEqual([1_132n]);
      expect(r.drops.map((d) => d.details.reason)).toEqual(["timestamp-before-l1-origin"]);
    });
  });

  describe("empty batches when the sequencing window runs out", () => {
    it("derives empty batches only once the window of the epoch has expired", async () => {
      // Window 10: epoch 10 expires when L1 block 20 has been read.
      const l1 = Array.from({ length: 12 }, (_, i) => ({
        ref: l1Ref(10n + BigInt(i)),
        items: [] as Uint8Array[],
      }));
      const early = await drive(head, l1.slice(0, 10)); // up to L1 block 19
      expect(early.batches).toEqual([]);
      const r = await drive(head, l1); // up to L1 block 21
      expect(r.batches.length).toBeGreaterThan(0);
      expect(r.batches.every((b) => b.transactions.length === 0)).toBe(true);
      // L2 time 1132 reaches L1 block 11's time (1132): block 66 adopts epoch 11 (first of its epoch).
      expect(r.batches[0]).toMatchObject({ timestamp: 1_132n, epochNumber: 11n });
      // Consecutive timestamps, epochs never move back and advance by at most one.
      for (let i = 1; i < r.batches.length; i++) {
        expect(r.batches[i]!.timestamp).toBe(r.batches[i - 1]!.timestamp + 2n);
        const step = r.batches[i]!.epochNumber - r.batches[i - 1]!.epochNumber;
        expect(step === 0n || step === 1n).toBe(true);
      }
    });
  });
});
