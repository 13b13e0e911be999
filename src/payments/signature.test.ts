import fc from "fast-check";
import { bytesToHex, type Hex, parseSignature } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { MalformedSignatureError } from "./errors.js";
import { isLowS, joinSignature, normaliseSignature, SECP256K1_HALF_N, splitSignature } from "./signature.js";

const account = privateKeyToAccount("0x5000000000000000000000000000000000000000000000000000000000000005");

function withV(signature: Hex, v: number): Hex {
  return `${signature.slice(0, 130)}${v.toString(16).padStart(2, "0")}` as Hex;
}

describe("splitSignature", () => {
  it("normalises v to 27 + yParity for both 27/28 and 0/1 encodings", async () => {
    const signature = await account.signMessage({ message: "hello" });
    const { yParity } = parseSignature(signature);
    for (const v of [27 + yParity, yParity]) {
      const split = splitSignature(withV(signature, v));
      expect(split.v).toBe(27 + yParity);
      expect(split.yParity).toBe(yParity);
      expect(split.r).toBe(signature.slice(0, 66));
      expect(split.s).toBe(`0x${signature.slice(66, 130)}`);
    }
    expect(normaliseSignature(withV(signature, yParity))).toBe(withV(signature, 27 + yParity));
  });

  it("refuses wrong lengths, non-hex and v outside {0, 1, 27, 28}", () => {
    const sig65 = `0x${"11".repeat(64)}1b` as Hex;
    expect(() => splitSignature(`0x${"11".repeat(64)}` as Hex)).toThrow(MalformedSignatureError);
    expect(() => splitSignature(`${sig65}00` as Hex)).toThrow(MalformedSignatureError);
    expect(() => splitSignature(`0x${"zz".repeat(65)}` as Hex)).toThrow(MalformedSignatureError);
    expect(() => splitSignature("11".repeat(65) as Hex)).toThrow(MalformedSignatureError);
    for (const v of [2, 26, 29, 37, 255]) expect(() => splitSignature(withV(sig65, v))).toThrow(/v must be/);
  });

  it("join(split(x)) is x with v normalised, for any r, s and v", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.constantFrom(0, 1, 27, 28), (rs, v) => {
        const bytes = new Uint8Array(65);
        bytes.set(rs);
        bytes[64] = v;
        const split = splitSignature(bytesToHex(bytes));
        const joined = joinSignature(split);
        bytes[64] = v < 27 ? v + 27 : v;
        expect(joined).toBe(bytesToHex(bytes));
      }),
    );
  });

  it("isLowS accepts s <= n/2 only", () => {
    const low = {
      v: 27,
      yParity: 0,
      r: `0x${"01".repeat(32)}`,
      s: `0x${SECP256K1_HALF_N.toString(16)}`,
    } as const;
    expect(isLowS(low)).toBe(true);
    expect(isLowS({ ...low, s: `0x${(SECP256K1_HALF_N + 1n).toString(16)}` })).toBe(false);
  });
});
