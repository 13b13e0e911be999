import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Bytes32Map } from "./bytes32-map.js";
import { toHexRaw } from "./hex.js";

/** Keys that share their bucket bytes (the last four) or differ only in the first byte, as well as random ones. */
const key = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 3 }))
    .map(([first, tail]) =>
      Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? first : i === 31 ? tail : 7)),
    ),
  fc.integer({ min: 0, max: 3 }).map((n) => {
    const k = new Uint8Array(32);
    k[5] = n;
    k[28] = 0x40; // outside the bucket's 30 bits: the same bucket as 0x00
    return k;
  }),
);

describe("Bytes32Map", () => {
  it("acts as a Map keyed by the key's hex, also with the first byte substituted (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(key, fc.integer(), fc.option(fc.integer({ min: 0, max: 255 }), { nil: undefined })),
          {
            maxLength: 600,
          },
        ),
        fc.array(key, { maxLength: 50 }),
        (ops, probes) => {
          const map = new Bytes32Map<number>();
          const model = new Map<string, number>();
          const keyHex = (k: Uint8Array, first: number) => toHexRaw(Uint8Array.of(first, ...k.subarray(1)));
          for (const [k, v, first] of ops) {
            map.set(k, v, first ?? k[0]!);
            model.set(keyHex(k, first ?? k[0]!), v);
          }
          expect(map.size).toBe(model.size);
          for (const k of [...probes, ...ops.map(([k]) => k)]) {
            for (const first of [k[0]!, 2]) {
              expect(map.get(k, first)).toBe(model.get(keyHex(k, first)));
              expect(map.has(k, first)).toBe(model.has(keyHex(k, first)));
            }
          }
          expect([...map.entries()].map(([k, v]) => [toHexRaw(k), v])).toEqual([...model.entries()]);
          // The views hold the same keys, also those set before the key pool last grew.
          expect([...map.entryViews()].map(([k, v]) => [toHexRaw(k), v])).toEqual([...model.entries()]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses keys that are not 32 bytes", () => {
    const map = new Bytes32Map<number>();
    expect(() => map.get(new Uint8Array(31))).toThrow(RangeError);
    expect(() => map.set(new Uint8Array(33), 1)).toThrow(RangeError);
  });
});
