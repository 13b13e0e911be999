/**
 * The one L1 info codec: the Bedrock form against viem's ABI encoder, every form through the deposit and back, and
 * the readings the node makes of a block's first transaction (receipt fees, the dev sequencer's sequence number).
 */
import { encodeFunctionData, parseAbi, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { decodeDepositTransaction, encodeDepositTransaction } from "./deposit-tx.js";
import { devL1Info, l1InfoDeposit, syntheticL1Origin } from "./dev-chain/l1-info.js";
import { bytesToBigInt, fromHex, toHex } from "./hex.js";
import {
  InvalidL1InfoError,
  L1_INFO_LENGTHS,
  L1_INFO_SELECTORS,
  type L1BlockInfo,
  type L1InfoFormat,
  decodeL1InfoCalldata,
  decodeL1InfoDeposit,
  ecotoneScalars,
  encodeEcotoneScalar,
  encodeL1InfoCalldata,
  encodeL1InfoDeposit,
  isValidEcotoneScalar,
  l1InfoOfFirstTransaction,
} from "./l1-info.js";

const SIGNATURES: Record<L1InfoFormat, string> = {
  bedrock: "function setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)",
  ecotone: "function setL1BlockValuesEcotone()",
  isthmus: "function setL1BlockValuesIsthmus()",
  jovian: "function setL1BlockValuesJovian()",
};

const BEDROCK: L1BlockInfo = {
  format: "bedrock",
  number: 17_422_590n,
  timestamp: 1_686_068_903n,
  baseFee: 21_439_873_498n,
  blockHash: fromHex("0x98b2f10e3f3ed4c7c1d53b4a1c1f9d26b4d3d1b1a2f7e7c0b3c8f6a2e1d0c9b8"),
  sequenceNumber: 5n,
  batcherAddress: fromHex("0x6887246668a3b87f54deb3b94ba47a6f63f32985"),
  blobBaseFee: 0n,
  blobBaseFeeScalar: 0,
  baseFeeScalar: 0,
  operatorFeeScalar: 0,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 0,
  l1FeeOverhead: 188n,
  l1FeeScalar: 684_000n,
};

function packed(format: Exclude<L1InfoFormat, "bedrock">): L1BlockInfo {
  return {
    ...BEDROCK,
    format,
    blobBaseFee: 7n,
    baseFeeScalar: 1368,
    blobBaseFeeScalar: 810_949,
    operatorFeeScalar: format === "ecotone" ? 0 : 9,
    operatorFeeConstant: format === "ecotone" ? 0n : 1_000n,
    daFootprintGasScalar: format === "jovian" ? 400 : 0,
    l1FeeOverhead: undefined,
    l1FeeScalar: undefined,
  };
}

describe("the L1 info codec", () => {
  it("names each form by the selector of its L1Block function", () => {
    for (const format of Object.keys(SIGNATURES) as L1InfoFormat[])
      expect(toHex(L1_INFO_SELECTORS[format]), format).toBe(toFunctionSelector(SIGNATURES[format]));
  });

  it("encodes the Bedrock form as the ABI call of setL1BlockValues and reads it back", () => {
    const data = encodeL1InfoCalldata(BEDROCK);
    const abi = parseAbi([
      "function setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)",
    ]);
    expect(toHex(data)).toBe(
      encodeFunctionData({
        abi,
        functionName: "setL1BlockValues",
        args: [
          BEDROCK.number,
          BEDROCK.timestamp,
          BEDROCK.baseFee,
          toHex(BEDROCK.blockHash),
          BEDROCK.sequenceNumber,
          `0x${"00".repeat(12)}${toHex(BEDROCK.batcherAddress).slice(2)}` as const,
          188n,
          684_000n,
        ],
      }),
    );
    expect(data.length).toBe(L1_INFO_LENGTHS.bedrock);
    expect(decodeL1InfoCalldata(data)).toEqual(BEDROCK);
    const unpadded = Uint8Array.from(data);
    unpadded[4] = 1; // the number word's high bytes
    expect(() => decodeL1InfoCalldata(unpadded)).toThrow(InvalidL1InfoError);
  });

  it("round-trips every form through the deposit, whose source hash binds the calldata", () => {
    for (const info of [BEDROCK, packed("ecotone"), packed("isthmus"), packed("jovian")]) {
      const deposit = encodeL1InfoDeposit(info);
      expect(decodeL1InfoDeposit(deposit), info.format).toEqual(info);
      expect(decodeDepositTransaction(deposit).data.length).toBe(L1_INFO_LENGTHS[info.format]);
      const tx = decodeDepositTransaction(deposit);
      const other = encodeDepositTransaction({
        ...tx,
        data: encodeL1InfoCalldata({ ...info, sequenceNumber: 6n }),
      });
      expect(() => decodeL1InfoDeposit(other)).toThrow(/source hash/);
    }
  });

  it("reads the dev chain's deposit, and nothing from a block whose first transaction is not one", () => {
    const origin = syntheticL1Origin(1_000n, 1_030n);
    const deposit = l1InfoDeposit(origin, 3n);
    const info = l1InfoOfFirstTransaction(deposit);
    expect(info).toEqual(devL1Info(origin, 3n));
    expect(info).toMatchObject({ format: "isthmus", number: 2n, sequenceNumber: 3n, baseFeeScalar: 2269 });
    expect(bytesToBigInt(decodeDepositTransaction(deposit).data.subarray(12, 20))).toBe(3n);

    expect(l1InfoOfFirstTransaction(undefined)).toBeUndefined();
    expect(l1InfoOfFirstTransaction(fromHex("0x02c0"))).toBeUndefined();
    const tx = decodeDepositTransaction(deposit);
    expect(
      l1InfoOfFirstTransaction(encodeDepositTransaction({ ...tx, from: new Uint8Array(20) })),
    ).toBeUndefined();
  });
});

describe("the Ecotone scalar word", () => {
  it("carries version 1, the blob base fee scalar in bytes 24..28 and the base fee scalar in 28..32", () => {
    const word = encodeEcotoneScalar(2269, 1_055_762);
    expect(toHex(word)).toBe(`0x01${"00".repeat(23)}00101c12000008dd`);
    expect(ecotoneScalars(word)).toEqual({ baseFeeScalar: 2269, blobBaseFeeScalar: 1_055_762 });
    expect(isValidEcotoneScalar(word)).toBe(true);
    const version0 = Uint8Array.from(word);
    version0[0] = 0;
    // Version 0 states the base fee scalar only, and its blob scalar bytes must be zero.
    expect(ecotoneScalars(version0)).toEqual({ baseFeeScalar: 2269, blobBaseFeeScalar: 0 });
    expect(isValidEcotoneScalar(version0)).toBe(false);
  });
});
