import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteArena } from "./byte-arena.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("ByteArena", () => {
  it("keeps every copy's bytes, however the copies fill and roll over its chunks (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 90 }), { maxLength: 200 }), (values) => {
        const expected = values.map(hex);
        const arena = new ByteArena(256);
        const copies = values.map((v) => arena.copy(v));
        // Copies made later, and the originals overwritten, must not reach the earlier copies.
        for (const v of values) v.fill(0xee);
        expect(copies.map(hex)).toEqual(expected);
        copies.forEach((copy) => {
          // Up to a quarter chunk shares a 256-byte chunk; larger gets a buffer of its own.
          expect(copy.buffer.byteLength).toBe(copy.length > 64 ? copy.length : 256);
        });
      }),
    );
  });
});
