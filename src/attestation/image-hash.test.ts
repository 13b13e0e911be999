import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { Pcr0LengthError, teeImageHashOf } from "./image-hash.js";

describe("tee image hash", () => {
  it("is zero without PCR0, keccak256(PCR0) for 48 bytes, and aborts otherwise", () => {
    expect(teeImageHashOf(null)).toEqual(new Uint8Array(32));
    const pcr0 = new Uint8Array(48).fill(0xab);
    expect(teeImageHashOf(pcr0)).toEqual(keccak_256(pcr0));
    expect(() => teeImageHashOf(new Uint8Array(32))).toThrow(Pcr0LengthError);
  });
});
