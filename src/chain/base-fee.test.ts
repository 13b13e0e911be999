import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  InvalidExtraDataError,
  calcOpBaseFee,
  decodeOpExtraData,
  encodeOpExtraData,
  nextBaseFee,
  resolveEip1559Params,
} from "./base-fee.js";
import { fromHex, toHex } from "./hex.js";
import { OpFork, type RollupConfig } from "./rollup-config.js";

const config: RollupConfig = {
  l2ChainId: 11155420n,
  blockTime: 2n,
  genesisL2Time: 0n,
  forkTimes: {
    [OpFork.Bedrock]: 0n,
    [OpFork.Regolith]: 0n,
    [OpFork.Canyon]: 100n,
    [OpFork.Holocene]: 1000n,
    [OpFork.Jovian]: 5000n,
  },
  eip1559Elasticity: 6n,
  eip1559Denominator: 50n,
  eip1559DenominatorCanyon: 250n,
};

describe("EIP-1559 base fee with OP parameters", () => {
  it("worked values of the update rule", () => {
    // limit 60M, elasticity 6 -> target 10M; denominator 250
    expect(nextBaseFee(1_000_000_000n, 10_000_000n, 60_000_000n, 250n, 6n)).toBe(1_000_000_000n);
    expect(nextBaseFee(1_000_000_000n, 20_000_000n, 60_000_000n, 250n, 6n)).toBe(1_004_000_000n);
    expect(nextBaseFee(1_000_000_000n, 0n, 60_000_000n, 250n, 6n)).toBe(996_000_000n);
    // tiny fees: an increase is at least 1, a decrease may round to nothing
    expect(nextBaseFee(270n, 10_000_001n, 60_000_000n, 250n, 6n)).toBe(271n);
    expect(nextBaseFee(270n, 2_136_422n, 60_000_000n, 250n, 6n)).toBe(270n);
  });

  it("pre-Canyon uses denominator 50, Canyon 250", () => {
    const parent = {
      timestamp: 10n,
      gasLimit: 60_000_000n,
      gasUsed: 20_000_000n,
      baseFeePerGas: 1_000_000_000n,
      extraData: new Uint8Array(0),
    };
    expect(calcOpBaseFee(config, parent, 12n)).toBe(1_020_000_000n);
    expect(calcOpBaseFee(config, { ...parent, timestamp: 100n }, 102n)).toBe(1_004_000_000n);
  });

  it("Holocene takes denominator and elasticity from the parent's extraData", () => {
    // denominator 100, elasticity 4: target 15M, used 30M -> +1e9·15M/15M/100 = +10M
    const extraData = fromHex("0x000000006400000004");
    expect(extraData.length).toBe(9);
    const parent = {
      timestamp: 1000n,
      gasLimit: 60_000_000n,
      gasUsed: 30_000_000n,
      baseFeePerGas: 1_000_000_000n,
      extraData,
    };
    expect(calcOpBaseFee(config, parent, 1002n)).toBe(1_010_000_000n);
  });

  it("Jovian clamps to the minimum base fee and meters max(gasUsed, blobGasUsed)", () => {
    const extraData = encodeOpExtraData({ denominator: 250n, elasticity: 6n, minBaseFee: 2_000_000_000n });
    const parent = {
      timestamp: 5000n,
      gasLimit: 60_000_000n,
      gasUsed: 0n,
      baseFeePerGas: 1_000_000_000n,
      extraData,
    };
    expect(calcOpBaseFee(config, parent, 5002n)).toBe(2_000_000_000n);
    const low = encodeOpExtraData({ denominator: 250n, elasticity: 6n, minBaseFee: 1n });
    expect(calcOpBaseFee(config, { ...parent, extraData: low, blobGasUsed: 20_000_000n }, 5002n)).toBe(
      1_004_000_000n,
    );
  });

  it("extraData encodings", () => {
    expect(toHex(encodeOpExtraData({ denominator: 250n, elasticity: 6n }))).toBe("0x00000000fa00000006");
    expect(toHex(encodeOpExtraData({ denominator: 250n, elasticity: 6n, minBaseFee: 0x1234n }))).toBe(
      "0x01000000fa000000060000000000001234",
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 0xffffffffn }),
        fc.bigInt({ min: 1n, max: 0xffffffffn }),
        fc.option(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), { nil: undefined }),
        (denominator, elasticity, minBaseFee) => {
          const p =
            minBaseFee === undefined ? { denominator, elasticity } : { denominator, elasticity, minBaseFee };
          expect(decodeOpExtraData(encodeOpExtraData(p))).toEqual(p);
        },
      ),
    );
    expect(() => decodeOpExtraData(new Uint8Array(0))).toThrow(InvalidExtraDataError);
  });

  it("payload eip1559Params: zero means the chain's Canyon defaults", () => {
    expect(resolveEip1559Params(config, new Uint8Array(8))).toEqual({ denominator: 250n, elasticity: 6n });
    expect(resolveEip1559Params(config, fromHex("0x0000003200000002"))).toEqual({
      denominator: 50n,
      elasticity: 2n,
    });
    expect(() => resolveEip1559Params(config, fromHex("0x0000000000000002"))).toThrow(InvalidExtraDataError);
  });
});
