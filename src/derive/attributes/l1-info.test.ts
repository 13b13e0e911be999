import { describe, expect, it } from "vitest";
import {
  type BlockHeader,
  OpFork,
  type RollupConfig,
  builtInChain,
  findL1ChainConfig,
  loadFixture,
  fromHex,
  keccak256,
  L1_INFO_SELECTORS,
  type L1BlockInfo,
  encodeL1InfoCalldata,
  encodeL1InfoDeposit,
  encodeEcotoneScalar,
} from "../../chain/index.js";
import { fixtureFiles } from "../../chain/fixture-paths.test-support.js";
import { CriticalDeriveError } from "../errors.js";
import {
  buildL1BlockInfo,
  decodeL1InfoCalldata,
  decodeL1InfoDeposit,
  l1InfoFormatAt,
  l1OriginFromHeader,
} from "./l1-info.js";
import { systemConfigFromGenesis } from "./system-config.js";

// op-rs/kona @ cdb9be24, crates/protocol/protocol/src/test_utils.rs: RAW_ECOTONE_INFO_TX, RAW_ISTHMUS_INFO_TX.
const KONA_ECOTONE_CALLDATA =
  "440a5e2000000558000c5fc5000000000000000500000000661c277300000000012bec20000000000000000000000000000000000000000000000000000000026e9f109900000000000000000000000000000000000000000000000000000000000000011c4c84c50740386c7dc081efddd644405f04cde73e30a2e381737acce9f5add30000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f32985";
const KONA_ISTHMUS_CALLDATA =
  "098999be00000558000c5fc5000000000000000500000000661c277300000000012bec20000000000000000000000000000000000000000000000000000000026e9f109900000000000000000000000000000000000000000000000000000000000000011c4c84c50740386c7dc081efddd644405f04cde73e30a2e381737acce9f5add30000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f329850000abcd000000000000dcba";

/** kona's round-trip structs (info/{ecotone,isthmus,jovian}.rs tests): fields 1..12. */
function konaRoundTripInfo(format: L1BlockInfo["format"]): L1BlockInfo {
  return {
    format,
    number: 1n,
    timestamp: 2n,
    baseFee: 3n,
    blockHash: new Uint8Array(32).fill(4),
    sequenceNumber: 5n,
    batcherAddress: new Uint8Array(20).fill(6),
    blobBaseFee: 7n,
    blobBaseFeeScalar: 8,
    baseFeeScalar: 9,
    operatorFeeScalar: format === "ecotone" ? 0 : 10,
    operatorFeeConstant: format === "ecotone" ? 0n : 11n,
    daFootprintGasScalar: format === "jovian" ? 12 : 0,
  };
}

describe("L1 info calldata", () => {
  it("decodes and re-encodes kona's Ecotone and Isthmus vectors byte for byte", () => {
    const ecotone = decodeL1InfoCalldata(fromHex(KONA_ECOTONE_CALLDATA));
    expect(ecotone).toMatchObject({
      format: "ecotone",
      baseFeeScalar: 0x558,
      blobBaseFeeScalar: 0xc5fc5,
      sequenceNumber: 5n,
      timestamp: 0x661c2773n,
      number: 0x12bec20n,
      baseFee: 0x26e9f1099n,
      blobBaseFee: 1n,
      batcherAddress: fromHex("6887246668a3b87f54deb3b94ba47a6f63f32985"),
    });
    expect(encodeL1InfoCalldata(ecotone)).toEqual(fromHex(KONA_ECOTONE_CALLDATA));
    const isthmus = decodeL1InfoCalldata(fromHex(KONA_ISTHMUS_CALLDATA));
    expect([isthmus.format, isthmus.operatorFeeScalar, isthmus.operatorFeeConstant]).toEqual([
      "isthmus",
      0xabcd,
      0xdcban,
    ]);
    expect(encodeL1InfoCalldata(isthmus)).toEqual(fromHex(KONA_ISTHMUS_CALLDATA));
  });

  it("round-trips kona's Ecotone, Isthmus and Jovian structs at 164, 176 and 178 bytes", () => {
    for (const [format, length] of [
      ["ecotone", 164],
      ["isthmus", 176],
      ["jovian", 178],
    ] as const) {
      const info = konaRoundTripInfo(format);
      const calldata = encodeL1InfoCalldata(info);
      expect(calldata.length).toBe(length);
      expect(decodeL1InfoCalldata(calldata)).toEqual(info);
      expect(decodeL1InfoDeposit(encodeL1InfoDeposit(info))).toEqual(info);
    }
  });

  it("uses the selectors of setL1BlockValuesEcotone/Isthmus/Jovian()", () => {
    for (const [format, name] of [
      ["ecotone", "Ecotone"],
      ["isthmus", "Isthmus"],
      ["jovian", "Jovian"],
    ] as const) {
      expect(L1_INFO_SELECTORS[format]).toEqual(
        keccak256(new TextEncoder().encode(`setL1BlockValues${name}()`)).slice(0, 4),
      );
    }
  });

  it("refuses Bedrock calldata, wrong lengths and unpadded batchers", () => {
    const bedrock = new Uint8Array(260);
    bedrock.set(fromHex("015d8eb9"));
    expect(() => decodeL1InfoCalldata(bedrock)).toThrow(CriticalDeriveError);
    expect(() => decodeL1InfoCalldata(fromHex(KONA_ECOTONE_CALLDATA).slice(0, 163))).toThrow(/164 bytes/);
    const jovian = encodeL1InfoCalldata(konaRoundTripInfo("jovian"));
    expect(() => decodeL1InfoCalldata(jovian.slice(0, 176))).toThrow(/178 bytes/);
    const unpadded = fromHex(KONA_ECOTONE_CALLDATA);
    unpadded[140] = 1;
    expect(() => decodeL1InfoCalldata(unpadded)).toThrow(/padded/);
  });
});

describe("L1 info format by fork", () => {
  const base = builtInChain(8453n).rollupConfig;
  const isthmus = 1_000_000n;
  const jovian = 2_000_000n;
  const config: RollupConfig = {
    ...base,
    genesisL2Time: 0n,
    forkTimes: {
      ...base.forkTimes,
      [OpFork.Holocene]: 0n,
      [OpFork.Isthmus]: isthmus,
      [OpFork.Jovian]: jovian,
    },
  };

  it("keeps the previous format on each activation block", () => {
    expect(l1InfoFormatAt(config, isthmus - 2n)).toBe("ecotone");
    expect(l1InfoFormatAt(config, isthmus)).toBe("ecotone");
    expect(l1InfoFormatAt(config, isthmus + 2n)).toBe("isthmus");
    expect(l1InfoFormatAt(config, jovian)).toBe("isthmus");
    expect(l1InfoFormatAt(config, jovian + 2n)).toBe("jovian");
    // An activation time between blocks: the first block at or after it is the activation block.
    const odd = { ...config, forkTimes: { ...config.forkTimes, [OpFork.Jovian]: jovian + 1n } };
    expect(l1InfoFormatAt(odd, jovian + 2n)).toBe("isthmus");
    expect(l1InfoFormatAt(odd, jovian + 4n)).toBe("jovian");
  });

  it("refuses blocks before Holocene", () => {
    expect(() => l1InfoFormatAt(base, base.forkTimes[OpFork.Holocene]! - 1n)).toThrow(CriticalDeriveError);
  });

  it("fills the operator fee from Isthmus and the DA footprint scalar (default 400) from Jovian", () => {
    const systemConfig = {
      ...systemConfigFromGenesis(base.genesis!.systemConfig),
      scalar: encodeEcotoneScalar(2000, 800000),
      operatorFeeScalar: 3,
      operatorFeeConstant: 4n,
    };
    const l1Origin = {
      number: 10n,
      hash: new Uint8Array(32).fill(1),
      timestamp: 5n,
      baseFee: 7n,
      blobBaseFee: 1n,
      mixHash: new Uint8Array(32),
    };
    const at = (l2Timestamp: bigint) =>
      buildL1BlockInfo({ rollupConfig: config, systemConfig, l1Origin, sequenceNumber: 2n, l2Timestamp });
    expect(at(isthmus)).toMatchObject({ format: "ecotone", operatorFeeScalar: 0, operatorFeeConstant: 0n });
    expect(at(isthmus + 2n)).toMatchObject({
      format: "isthmus",
      operatorFeeScalar: 3,
      operatorFeeConstant: 4n,
    });
    expect(at(jovian + 2n)).toMatchObject({
      format: "jovian",
      daFootprintGasScalar: 400,
      baseFeeScalar: 2000,
    });
    const withScalar = buildL1BlockInfo({
      rollupConfig: config,
      systemConfig: { ...systemConfig, daFootprintGasScalar: 77 },
      l1Origin,
      sequenceNumber: 0n,
      l2Timestamp: jovian + 2n,
    });
    expect(withScalar.daFootprintGasScalar).toBe(77);
  });
});

describe("L1 origin from an L1 header", () => {
  it("takes the blob base fee from excessBlobGas with the L1's fraction, 1 without it", () => {
    const rollup = builtInChain(11155420n).rollupConfig;
    const sepolia = findL1ChainConfig(11155111n)!;
    const header = {
      parentHash: new Uint8Array(32),
      ommersHash: new Uint8Array(32),
      beneficiary: new Uint8Array(20),
      stateRoot: new Uint8Array(32),
      transactionsRoot: new Uint8Array(32),
      receiptsRoot: new Uint8Array(32),
      logsBloom: new Uint8Array(256),
      difficulty: 0n,
      number: 100n,
      gasLimit: 30_000_000n,
      gasUsed: 0n,
      timestamp: 1741000000n, // Cancun on Sepolia, before Prague
      extraData: new Uint8Array(0),
      mixHash: new Uint8Array(32).fill(9),
      nonce: new Uint8Array(8),
      baseFeePerGas: 7n,
      withdrawalsRoot: new Uint8Array(32),
      blobGasUsed: 0n,
      excessBlobGas: 10n * 1024n * 1024n,
      parentBeaconBlockRoot: new Uint8Array(32).fill(3),
    } satisfies BlockHeader;
    const origin = l1OriginFromHeader(header, rollup, sepolia);
    expect(origin.blobBaseFee).toBe(23n); // go-ethereum TestCalcBlobFee, Cancun fraction
    expect(origin.mixHash).toEqual(header.mixHash);
    expect(origin.baseFee).toBe(7n);
    expect(origin.hash).toHaveLength(32);
    const shanghai: BlockHeader = { ...header };
    delete shanghai.excessBlobGas;
    delete shanghai.blobGasUsed;
    delete shanghai.parentBeaconBlockRoot;
    const preCancun = l1OriginFromHeader(shanghai, rollup, sepolia);
    expect(preCancun.blobBaseFee).toBe(1n);
    expect(preCancun.parentBeaconBlockRoot).toBeUndefined();
  });
});

describe("OP Sepolia fixtures", () => {
  it("rebuild each block's L1 info deposit byte for byte from its L1 values and the fork rule", async () => {
    const files = fixtureFiles();
    expect(files.length).toBe(4);
    const sequenceNumbers: bigint[] = [];
    for (const file of files) {
      const fixture = await loadFixture(file);
      const original = fixture.transactions[0]!;
      const stated = decodeL1InfoDeposit(original);
      sequenceNumbers.push(stated.sequenceNumber);
      for (const rollupConfig of [fixture.config, builtInChain(11155420n).rollupConfig]) {
        const info = buildL1BlockInfo({
          rollupConfig,
          systemConfig: {
            ...systemConfigFromGenesis(rollupConfig.genesis!.systemConfig),
            batcherAddress: stated.batcherAddress,
            scalar: encodeEcotoneScalar(stated.baseFeeScalar, stated.blobBaseFeeScalar),
          },
          l1Origin: {
            number: stated.number,
            hash: stated.blockHash,
            timestamp: stated.timestamp,
            baseFee: stated.baseFee,
            blobBaseFee: stated.blobBaseFee,
            mixHash: fixture.attributes.prevRandao,
          },
          sequenceNumber: stated.sequenceNumber,
          l2Timestamp: fixture.attributes.timestamp,
        });
        expect(info.format).toBe("ecotone");
        expect(encodeL1InfoDeposit(info)).toEqual(original);
      }
    }
    expect(sequenceNumbers).toEqual([0n, 1n, 2n, 3n]);
  });
});
