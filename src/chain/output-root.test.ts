import { concat, keccak256, pad } from "viem";
import { describe, expect, it } from "vitest";
import { fromHex, toHex } from "./hex.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  OUTPUT_ROOT_V0_PREIMAGE_BYTES,
  OutputRootPreimageError,
  headerMessagePasserRoot,
  openOutputRootV0,
  outputRootPreimageV0,
  outputRootV0,
} from "./output-root.js";

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

describe("opening a v0 output root", () => {
  const stateRoot = fromHex(`0x${"11".repeat(32)}`);
  const passer = fromHex(`0x${"22".repeat(32)}`);
  const hash = fromHex(`0x${"33".repeat(32)}`);
  const root = outputRootV0(stateRoot, passer, hash);
  const preimage = outputRootPreimageV0(stateRoot, passer, hash);

  it("gives back the three roots the preimage commits to", () => {
    expect(preimage.length).toBe(OUTPUT_ROOT_V0_PREIMAGE_BYTES);
    expect(openOutputRootV0(root, preimage)).toEqual({
      stateRoot,
      messagePasserStorageRoot: passer,
      blockHash: hash,
    });
  });

  it("names the fault of a preimage that does not open it", () => {
    const fault = (r: Uint8Array, p: Uint8Array): unknown => {
      try {
        openOutputRootV0(r, p);
      } catch (e) {
        return e instanceof OutputRootPreimageError ? e.fault : e;
      }
      return "opened";
    };
    expect(fault(root, preimage.subarray(0, 127))).toBe("length");
    expect(fault(outputRootV0(stateRoot, passer, stateRoot), preimage)).toBe("hash");
    const v1 = Uint8Array.from(preimage);
    v1[31] = 1;
    expect(fault(keccak_256(v1), v1)).toBe("version");
  });
});

describe("the message passer root a header commits to", () => {
  const withdrawalsRoot = fromHex(`0x${"44".repeat(32)}`);
  it("is the withdrawalsRoot from Isthmus (a header with a requests hash), none before", () => {
    expect(headerMessagePasserRoot({ withdrawalsRoot, requestsHash: new Uint8Array(32) })).toEqual(
      withdrawalsRoot,
    );
    // Canyon to Holocene headers carry the empty withdrawals root, not the message passer's.
    expect(headerMessagePasserRoot({ withdrawalsRoot })).toBeUndefined();
    expect(headerMessagePasserRoot({})).toBeUndefined();
  });
});
