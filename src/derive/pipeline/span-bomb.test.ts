// A span batch of 1,000,000 empty blocks fits in a channel of about a kilobyte. Expanded before validation it
// held about 120 MB (one object, two bigints and an array per block); the batch source now hands validation a
// list that computes each block when asked for, and the prefix checks drop the span having looked at two.
// Memory is measured after a full garbage collection while the decoded batch is still referenced.
import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { encodeBatch } from "../batches/batch.js";
import { SpanBatchBlockList, spanBatchBlocks } from "../batches/expand.js";
import type { SpanBatch } from "../batches/types.js";
import type { L1BlockRef, L2BlockRef } from "../types.js";
import { fakeHash, l1Ref, testDerivationConfig } from "../validation/chain.test-support.js";
import { checkSpanBatchPrefix } from "../validation/index.js";
import { BatchSource } from "./batch-source.js";
import { channelPayloads } from "./synthetic.test-support.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

function heapBytes(): number {
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

const BLOCKS = 1_000_000;
const config = testDerivationConfig({ genesisL2Time: 1_000n });

function emptySpan(blocks: number, relTimestamp: bigint): SpanBatch {
  return {
    type: "span",
    relTimestamp,
    l1OriginNumber: 10n,
    parentCheck: new Uint8Array(20),
    l1OriginCheck: new Uint8Array(20),
    originBits: new Uint8Array(blocks),
    blockTxCounts: new Array<number>(blocks).fill(0),
    transactions: [],
  };
}

describe("a span batch of a million empty blocks", () => {
  it("is validated and dropped without being expanded (memory bounded before validation)", async () => {
    const origin: L1BlockRef = l1Ref(10n);
    const safe: L2BlockRef = {
      number: 100n,
      hash: fakeHash(2, 100n),
      parentHash: fakeHash(2, 99n),
      timestamp: 1_200n,
      l1Origin: { number: 10n, hash: origin.hash },
      sequenceNumber: 0n,
    };
    // Starts far after the safe head's next block: the prefix checks drop it as a future batch.
    const payloads = channelPayloads(1, [encodeBatch(emptySpan(BLOCKS, 1_000_000n))]);
    expect(payloads.reduce((n, p) => n + p.length, 0)).toBeLessThan(4096);

    const before = heapBytes();
    const source = new BatchSource(config);
    source.setBlock(origin, payloads);
    const next = source.next();
    if (next === "eof" || next.kind !== "span") throw new Error("expected a span batch");
    expect(next.span.blocks.length).toBe(BLOCKS);
    const decoded = heapBytes() - before;

    const unused = async (): Promise<never> => {
      throw new Error("not reached: the span is dropped before reading the chain");
    };
    const prefix = await checkSpanBatchPrefix(config, [origin], safe, next.span, origin, {
      blockRef: unused,
      block: unused,
    });
    expect(prefix.validity).toMatchObject({ kind: "drop", reason: "future-timestamp" });
    const validated = heapBytes() - before;
    // Decoding keeps the channel's decompressed bytes and the batch's per-block counts and bits (about 10 MB);
    // expanded, the same span held more than 100 MB.
    expect(decoded).toBeLessThan(40 * 1024 * 1024);
    expect(validated).toBeLessThan(40 * 1024 * 1024);
    expect(next.span.blocks.at(0)).toBeDefined();
  });

  it("computes each block's timestamp and L1 origin as the spec's formulas, in order and out of order", () => {
    const ctx = { genesisTimestamp: 1_000n, blockTime: 2n, chainId: 901n };
    const span: SpanBatch = { ...emptySpan(6, 4n), originBits: Uint8Array.of(1, 0, 1, 1, 0, 1) };
    // epoch(last) = l1_origin_num; epoch(i - 1) = epoch(i) - origin_bits[i]
    const expected = [7n, 7n, 8n, 9n, 9n, 10n].map((epochNumber, i) => ({
      timestamp: 1_004n + 2n * BigInt(i),
      epochNumber,
      transactions: [],
    }));
    const list = new SpanBatchBlockList(span, ctx);
    expect([5, 0, 3, 4, 1, 2, -1, -6].map((i) => list.at(i))).toEqual(
      [5, 0, 3, 4, 1, 2, 5, 0].map((i) => expected[i]),
    );
    expect([list.at(6), list.at(-7), list.at(1.5)]).toEqual([undefined, undefined, undefined]);
    expect(spanBatchBlocks(span, ctx)).toEqual(expected);
  });
});
