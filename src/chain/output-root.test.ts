import { concat, keccak256, pad } from "viem";
import { describe, expect, it } from "vitest";
import { fromHex, toHex } from "./hex.js";
import { outputRootV0 } from "./output-root.js";

describe("output root v0", () => {
  it("keccak256(0^32 ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash)", () => {
    const stateRoot = fromHex(`0x${"11".repeat(32)}`);
    const mp = fromHex(`0x${"22".repeat(32)}`);
    const hash = fromHex(`0x${"33".repeat(32)}`);
    const expected = keccak256(concat([pad("0x00", { size: 32 }), toHex(stateRoot), toHex(mp), toHex(hash)]));
    expect(toHex(outputRootV0(stateRoot, mp, hash))).toBe(expected);
    // worked value for all-zero inputs: keccak256 of 128 zero bytes
    const z = new Uint8Array(32);
    expect(toHex(outputRootV0(z, z, z))).toBe(
      "0x012893657d8eb2efad4de0a91bcd0e39ad9837745dec3ea923737ea803fc8e3d",
    );
  });

  it("rejects wrong lengths", () => {
    expect(() => outputRootV0(new Uint8Array(31), new Uint8Array(32), new Uint8Array(32))).toThrow(
      RangeError,
    );
  });
});
