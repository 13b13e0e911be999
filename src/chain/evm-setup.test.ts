import type { PrecompileInput } from "@ethereumjs/evm";
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import {
  commonFor,
  ethereumHardforkFor,
  opPrecompiles,
  P256VERIFY_ADDRESS,
  p256Verify,
  precompileInputLimits,
} from "./evm-setup.js";
import { OpFork } from "./rollup-config.js";

function input(data: Uint8Array, gasLimit: bigint): PrecompileInput {
  return { data, gasLimit, common: commonFor(10n, OpFork.Fjord), _EVM: undefined as never };
}

describe("OP precompiles", () => {
  it("P256VERIFY (RIP-7212): 1 for a valid signature, empty otherwise, 3450 gas", async () => {
    const secret = p256.utils.randomSecretKey();
    const pub = p256.getPublicKey(secret, false);
    const hash = sha256(new TextEncoder().encode("op stack"));
    const sig = p256.sign(hash, secret, { prehash: false });
    const data = new Uint8Array(160);
    data.set(hash, 0);
    data.set(sig.slice(0, 64), 32);
    data.set(pub.subarray(1), 96);
    const ok = await p256Verify(input(data, 10_000n));
    expect(ok.executionGasUsed).toBe(3450n);
    expect(ok.returnValue[31]).toBe(1);
    data[0]! ^= 1;
    const bad = await p256Verify(input(data, 10_000n));
    expect(bad.returnValue.length).toBe(0);
    expect(bad.executionGasUsed).toBe(3450n);
    const oog = await p256Verify(input(data, 3000n));
    expect(oog.exceptionError).toBeDefined();
    expect((await p256Verify(input(data.subarray(0, 159), 10_000n))).returnValue.length).toBe(0);
  });

  it("per-fork input limits and hardfork mapping", () => {
    expect(precompileInputLimits(OpFork.Fjord)).toEqual({});
    expect(precompileInputLimits(OpFork.Granite).bn256Pairing).toBe(112_687);
    expect(precompileInputLimits(OpFork.Isthmus)).toEqual({
      bn256Pairing: 112_687,
      blsG1Msm: 513_760,
      blsG2Msm: 488_448,
      blsPairing: 235_008,
    });
    expect(precompileInputLimits(OpFork.Jovian)).toEqual({
      bn256Pairing: 81_984,
      blsG1Msm: 288_960,
      blsG2Msm: 278_784,
      blsPairing: 156_672,
    });
    expect(ethereumHardforkFor(OpFork.Holocene)).toBe("cancun");
    expect(ethereumHardforkFor(OpFork.Isthmus)).toBe("prague");
  });

  it("an over-limit bn256 pairing input fails and consumes all gas (Granite)", async () => {
    const common = commonFor(10n, OpFork.Granite);
    const custom = opPrecompiles(common, OpFork.Granite);
    const pairing = custom.find(
      (c) => "function" in c && c.address === "0x0000000000000000000000000000000000000008",
    );
    expect(pairing).toBeDefined();
    const big = new Uint8Array(112_687 + 5);
    const res = await (
      pairing as {
        function: (i: PrecompileInput) => Promise<{ executionGasUsed: bigint; exceptionError?: unknown }>;
      }
    ).function(input(big, 1_000_000n));
    expect(res.executionGasUsed).toBe(1_000_000n);
    expect(res.exceptionError).toBeDefined();
    expect(custom.some((c) => c.address === P256VERIFY_ADDRESS)).toBe(true);
    expect(
      opPrecompiles(commonFor(10n, OpFork.Ecotone), OpFork.Ecotone).some(
        (c) => c.address === P256VERIFY_ADDRESS,
      ),
    ).toBe(false);
  });
});
