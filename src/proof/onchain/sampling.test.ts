import { describe, expect, it } from "vitest";
import { intermediateBlocks } from "./aggregate-verifier.js";
import { sampledBlockNumbers, sampleIntermediateRoots, SamplingError } from "./sampling.js";

/** Distinct 32-byte roots: root(b) is filled with the low byte of b. */
const root = (block: bigint) => new Uint8Array(32).fill(Number(block & 0xffn));

describe("intermediate-root sampling", () => {
  // Range of L blocks after start 100: blocks 101..100+L. Expected sample blocks written out by hand.
  const expected: Record<string, bigint[]> = {
    "1/1": [101n],
    "1/2": [],
    "1/5": [],
    "2/1": [101n, 102n],
    "2/2": [102n],
    "2/5": [],
    "5/1": [101n, 102n, 103n, 104n, 105n],
    "5/2": [102n, 104n],
    "5/5": [105n],
    "10/1": [101n, 102n, 103n, 104n, 105n, 106n, 107n, 108n, 109n, 110n],
    "10/2": [102n, 104n, 106n, 108n, 110n],
    "10/5": [105n, 110n],
  };
  for (const [key, blocks] of Object.entries(expected)) {
    const [length, interval] = key.split("/").map(Number) as [number, number];
    it(`range of ${length} with interval ${interval}: N = ${blocks.length}`, () => {
      expect(sampledBlockNumbers(100n, length, BigInt(interval))).toEqual(blocks);
      const roots = Array.from({ length }, (_, i) => root(101n + BigInt(i)));
      expect(sampleIntermediateRoots(100n, roots, BigInt(interval))).toEqual(blocks.map(root));
      expect(blocks.length).toBe(Math.floor(length / interval));
      // The blocks AggregateVerifier lists are the ones the aggregate journal samples.
      if (length % interval === 0)
        expect(
          intermediateBlocks(100n, {
            blockInterval: BigInt(length),
            intermediateBlockInterval: BigInt(interval),
          }),
        ).toEqual(blocks);
    });
  }

  it("rejects interval 0 and an empty range", () => {
    expect(() => sampledBlockNumbers(100n, 5, 0n)).toThrow(SamplingError);
    expect(() => sampleIntermediateRoots(100n, [root(101n)], 0n)).toThrow(/at least 1/);
    expect(() => sampledBlockNumbers(100n, 0, 1n)).toThrow(/at least one block/);
  });
});
