import { describe, expect, it } from "vitest";
import { fastLzCompressedLength } from "./fastlz.js";
import { fromHex } from "./hex.js";
import {
  type L1FeeParams,
  bedrockL1Cost,
  decodeL1FeeParams,
  ecotoneL1Cost,
  fjordEstimatedSizeScaled,
  fjordL1Cost,
  fjordL1CostFromFastLzSize,
  daFootprint,
  l1DataFee,
  operatorFee,
} from "./l1-fee.js";
import { OpFork } from "./rollup-config.js";

// Worked values from op-geth's rollup cost tests: an "empty" legacy tx of 30 non-zero bytes,
// l1BaseFee 1000 gwei-ish units, overhead 50, scalar 7e6, blob base fee 10e6, scalars 2 and 3.
const EMPTY_TX = fromHex("dd80808094095e7baea6a6c7c4c2dfeb977efac326af552d878080808080");
const PARAMS: L1FeeParams = {
  l1BaseFee: 1000n * 1_000_000n,
  l1BlobBaseFee: 10n * 1_000_000n,
  baseFeeScalar: 2n,
  blobBaseFeeScalar: 3n,
  overhead: 50n,
  scalar: 7n * 1_000_000n,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 0n,
};

describe("L1 data fee", () => {
  it("Bedrock and Regolith", () => {
    expect(bedrockL1Cost(EMPTY_TX, PARAMS, false)).toBe(11_326_000_000_000n);
    expect(bedrockL1Cost(EMPTY_TX, PARAMS, true)).toBe(3_710_000_000_000n);
  });

  it("Ecotone: (480/16)·(2·16·1000e6 + 3·10e6)/1e6 = 960900", () => {
    expect(ecotoneL1Cost(EMPTY_TX, PARAMS)).toBe(960_900n);
  });

  it("Fjord uses the 100-byte minimum for small transactions", () => {
    expect(fjordL1Cost(EMPTY_TX, PARAMS)).toBe(3_203_000n);
    for (const size of [100n, 150n, 170n]) expect(fjordL1CostFromFastLzSize(size, PARAMS)).toBe(3_203_000n);
    for (const size of [171n, 175n, 200n])
      expect(fjordL1CostFromFastLzSize(size, PARAMS)).toBeGreaterThan(3_203_000n);
    expect(fjordEstimatedSizeScaled(200n)).toBe(124_714_400n);
  });

  it("Fjord matches the Solidity GasPriceOracle parity value", () => {
    const p = {
      ...PARAMS,
      l1BaseFee: 2_000_000n,
      l1BlobBaseFee: 3_000_000n,
      baseFeeScalar: 20n,
      blobBaseFeeScalar: 15n,
    };
    expect(fjordL1CostFromFastLzSize(235n, p)).toBe(105_484n);
  });

  it("selects the formula by fork; the first Ecotone block (scalars unset) uses Bedrock's", () => {
    expect(l1DataFee(EMPTY_TX, PARAMS, OpFork.Regolith)).toBe(3_710_000_000_000n);
    expect(l1DataFee(EMPTY_TX, PARAMS, OpFork.Ecotone)).toBe(960_900n);
    expect(l1DataFee(EMPTY_TX, PARAMS, OpFork.Holocene)).toBe(3_203_000n);
    const unset = { ...PARAMS, baseFeeScalar: 0n, blobBaseFeeScalar: 0n };
    expect(l1DataFee(EMPTY_TX, unset, OpFork.Ecotone)).toBe(3_710_000_000_000n);
  });

  it("decodes packed L1Block storage words", () => {
    const scalars = new Uint8Array(32);
    scalars.set([0, 0, 0x05, 0x58], 16); // baseFeeScalar 1368
    scalars.set([0, 0x0c, 0x5f, 0xc5], 20); // blobBaseFeeScalar 810949
    scalars.set([0, 0, 0, 0, 0, 0, 0, 7], 24); // sequenceNumber, ignored
    const op = new Uint8Array(32);
    op.set([0x01, 0x90], 18); // daFootprintGasScalar 400 (Jovian)
    op.set([0, 0x0f, 0x42, 0x40], 20); // operatorFeeScalar 1_000_000
    op.set([0, 0, 0, 0, 0, 0, 0x03, 0xe8], 24); // operatorFeeConstant 1000
    const p = decodeL1FeeParams({
      baseFee: Uint8Array.of(0x3b, 0x9a, 0xca, 0x00),
      scalars,
      overhead: new Uint8Array(0),
      scalar: new Uint8Array(0),
      blobBaseFee: Uint8Array.of(1),
      operatorFeeParams: op,
    });
    expect(p).toMatchObject({
      l1BaseFee: 1_000_000_000n,
      l1BlobBaseFee: 1n,
      baseFeeScalar: 1368n,
      blobBaseFeeScalar: 810_949n,
      operatorFeeScalar: 1_000_000n,
      operatorFeeConstant: 1000n,
      daFootprintGasScalar: 400n,
    });
  });
});

describe("FastLZ compressed length (op-geth vectors)", () => {
  it("known inputs", () => {
    expect(fastLzCompressedLength(new Uint8Array(0))).toBe(0);
    expect(fastLzCompressedLength(new Uint8Array(1000).fill(1))).toBe(21);
    expect(fastLzCompressedLength(new Uint8Array(1000))).toBe(21);
    expect(fastLzCompressedLength(EMPTY_TX)).toBe(31);
    const contractCall = fromHex(
      "02f901550a758302df1483be21b88304743f94f80e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8" +
        "e41ef24f3f000000000000000000000000000000000000000000000000000000000000006e000000000000000000000000af88d065e77c8c" +
        "c2239327c5edb3a432268e5831000000000000000000000000000000000000000000000000000000000003c1e50000000000000000000000" +
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000a0000000" +
        "00000000000000000000000000000000000000000000000000000000148c89ed219d02f1a5be012c689b4f5b731827bebe00000000000000" +
        "0000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a3675a7f5f493ebd5ad77c497f8a07cdf65680e238392693019b4092f61" +
        "0222e71b7cec06449cb922b93b6a12744e",
    );
    expect(fastLzCompressedLength(contractCall)).toBe(202);
  });
});

describe("operator fee", () => {
  const p = { ...PARAMS, operatorFeeScalar: 1_500_000n, operatorFeeConstant: 1000n };
  it("is zero before Isthmus", () => {
    expect(operatorFee(100_000n, p, OpFork.Holocene)).toBe(0n);
  });
  it("Isthmus: gas·scalar/1e6 + constant", () => {
    expect(operatorFee(100_000n, p, OpFork.Isthmus)).toBe(151_000n);
    expect(operatorFee(21_001n, p, OpFork.Isthmus)).toBe(32_501n); // 31501.5 rounds down, + 1000
  });
  it("Jovian: gas·scalar·100 + constant", () => {
    expect(
      operatorFee(21_000n, { ...p, operatorFeeScalar: 7n, operatorFeeConstant: 5n }, OpFork.Jovian),
    ).toBe(14_700_005n);
  });
});

describe("Jovian DA footprint", () => {
  it("max(100, (intercept + coef·fastlzSize)/1e6) estimated bytes times the scalar (0 means the default 400)", () => {
    expect(daFootprint(200n, 400n)).toBe(124n * 400n);
    expect(daFootprint(200n, 1000n)).toBe(124_000n);
    expect(daFootprint(100n, 400n)).toBe(40_000n); // 41 estimated bytes -> minimum 100
    expect(daFootprint(0n, 0n)).toBe(40_000n);
  });
});
