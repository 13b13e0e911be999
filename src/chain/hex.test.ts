/** Hex at the edges: both encoders of toHexRaw (the table loop and node's native one) against viem's, and back. */
import fc from "fast-check";
import { bytesToHex } from "viem";
import { describe, expect, it } from "vitest";
import { fromHex, toHex, toHexRaw } from "./hex.js";

describe("toHex / toHexRaw", () => {
  it("equal viem's bytesToHex for every length, also on views into a larger buffer, and fromHex reverses them (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat(8), fc.nat(8), (bytes, before, after) => {
        const backing = new Uint8Array(before + bytes.length + after).fill(0xee);
        backing.set(bytes, before);
        const view = backing.subarray(before, before + bytes.length);
        expect(toHex(view)).toBe(bytesToHex(bytes));
        expect(toHexRaw(view)).toBe(bytesToHex(bytes).slice(2));
        expect(fromHex(toHex(view))).toEqual(bytes);
      }),
      { numRuns: 1000 },
    );
    for (let n = 0; n <= 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 0xff);
      expect(toHex(bytes)).toBe(bytesToHex(bytes));
    }
  });
});
