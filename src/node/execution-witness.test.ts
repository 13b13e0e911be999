import { describe, expect, it } from "vitest";
import { WitnessNodeCache } from "./execution-witness.js";

const key = (i: number) => `0x${i.toString(16).padStart(64, "0")}`;
const value = (i: number) => new Uint8Array(100).fill(i & 0xff);
/** What the cache counts per entry: the value, the key's characters twice, and 64. */
const ENTRY_BYTES = 100 + 66 * 2 + 64;

describe("WitnessNodeCache", () => {
  it("answers what it was given, and a miss as undefined", () => {
    const cache = new WitnessNodeCache(1 << 20);
    cache.add(key(1), value(1));
    expect(cache.get(key(1))).toEqual(value(1));
    expect(cache.get(key(2))).toBeUndefined();
  });

  it("stays within its bound: the older generation is dropped as the young one fills", () => {
    const perGeneration = 10;
    const cache = new WitnessNodeCache(ENTRY_BYTES * perGeneration * 2);
    for (let i = 0; i < 1000; i++) cache.add(key(i), value(i));
    expect(cache.size).toBeLessThanOrEqual(perGeneration * 2 + 1);
    expect(cache.get(key(999))).toEqual(value(999));
    expect(cache.get(key(0))).toBeUndefined();
  });

  it("keeps an entry that is read while the generations turn over", () => {
    const perGeneration = 10;
    const cache = new WitnessNodeCache(ENTRY_BYTES * perGeneration * 2);
    cache.add(key(0), value(0));
    // Each round fills about one generation; the entry read in every round survives them all.
    for (let round = 1; round <= 20; round++) {
      for (let i = 0; i < perGeneration; i++) cache.add(key(round * 100 + i), value(i));
      expect(cache.get(key(0))).toEqual(value(0));
    }
    expect(cache.get(key(100))).toBeUndefined();
  });
});
