import { keccak_256 } from "@noble/hashes/sha3.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toHex } from "./hex.js";
import { initKeccak, keccak256 } from "./keccak.js";

describe("keccak256", () => {
  it("known value and agreement with @noble/hashes before and after the WebAssembly backend loads", async () => {
    expect(toHex(keccak256(new Uint8Array(0)))).toBe(
      "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    );
    await initKeccak();
    expect(toHex(keccak256(new Uint8Array(0)))).toBe(
      "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1200 }), (b) => {
        expect(keccak256(b)).toEqual(keccak_256(b));
      }),
    );
    const a = keccak256(Uint8Array.of(1));
    const b = keccak256(Uint8Array.of(2));
    expect(a).not.toEqual(b); // results are independent buffers
  });
});
