import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromHex } from "../hex.js";
import { OpFork, isForkActive } from "../rollup-config.js";
import { loadFixture } from "../fixture.js";
import { fixtureFiles } from "../fixture-paths.test-support.js";
import {
  GRANITE_CHANNEL_TIMEOUT,
  UnknownChainError,
  builtInChain,
  builtInChains,
  findBuiltInChain,
} from "./chains.js";
import { DEFAULT_REGISTRY_PATH } from "./generate-paths.js";
import {
  BLOB_FEE_FRACTION_CANCUN,
  BLOB_FEE_FRACTION_PRAGUE,
  BLOB_FEE_FRACTION_BPO1,
  blobBaseFee,
  blobBaseFeeUpdateFraction,
  findL1ChainConfig,
} from "./l1-chains.js";
import { BUILT_IN_CHAIN_IDS, SuperchainRegistryError, extractChainData } from "./registry.js";
import { SUPERCHAIN_CHAIN_DATA } from "./superchain.generated.js";

const registryPresent = existsSync(DEFAULT_REGISTRY_PATH);
const registry = (): unknown => JSON.parse(readFileSync(DEFAULT_REGISTRY_PATH, "utf8"));

describe("superchain.generated.ts", () => {
  it.skipIf(!registryPresent)("is what the generator makes of the registry export (not stale)", () => {
    expect(extractChainData(registry())).toEqual(SUPERCHAIN_CHAIN_DATA);
  });

  it("lists the four built-in chains in order", () => {
    expect(SUPERCHAIN_CHAIN_DATA.map((c) => c.l2ChainId)).toEqual([...BUILT_IN_CHAIN_IDS]);
  });

  it("refuses a registry that lacks a chain or has a malformed field", () => {
    expect(() => extractChainData({ superchains: [] })).toThrow(SuperchainRegistryError);
    if (!registryPresent) return;
    const broken = registry() as { superchains: { chains: Record<string, unknown>[] }[] };
    const chain = broken.superchains.flatMap((s) => s.chains).find((c) => c.l2_chain_id === 8453)!;
    chain.batch_inbox_address = "0x1234";
    expect(() => extractChainData(broken)).toThrow(/batch_inbox_address/);
  });
});

describe("built-in chains", () => {
  it("carry the registry's facts as typed rollup configs", () => {
    const base = builtInChain(8453n);
    const c = base.rollupConfig;
    expect(base.name).toBe("Base");
    expect(base.l1ChainId).toBe(1n);
    expect(c.l1ChainId).toBe(1n);
    expect(c.blockTime).toBe(2n);
    expect(c.seqWindowSize).toBe(3600n);
    expect(c.maxSequencerDrift).toBe(600n);
    expect(c.channelTimeout).toBe(GRANITE_CHANNEL_TIMEOUT);
    expect(c.batchInboxAddress).toEqual(fromHex("0xff00000000000000000000000000000000008453"));
    expect(c.depositContractAddress).toEqual(fromHex("0x49048044d57e1c92a77f79988d21fa8faf74e97e"));
    expect(c.l1SystemConfigAddress).toEqual(fromHex("0x73a79fab69143498ed3712e519a88a918e1f4072"));
    expect(c.forkTimes[OpFork.Holocene]).toBe(1736445601n);
    expect(c.forkTimes[OpFork.Isthmus]).toBe(1746806401n);
    expect(c.forkTimes[OpFork.Jovian]).toBe(1764691201n);
    expect(c.pectraBlobScheduleTime).toBeUndefined();
    expect(c.genesis?.l1.number).toBe(17481768n);
    expect(c.genesis?.l2.hash).toEqual(
      fromHex("0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd"),
    );
    expect(c.genesis?.systemConfig.batcherAddress).toEqual(
      fromHex("0x5050f69a9786f081509234f1a7f4684b5e5b76c9"),
    );
    expect(c.genesis?.systemConfig.gasLimit).toBe(30_000_000n);
    expect(builtInChain(84532n).rollupConfig.eip1559Elasticity).toBe(10n);
    expect(builtInChain(11155420n).rollupConfig.pectraBlobScheduleTime).toBe(1742486400n);
    expect(builtInChains()).toHaveLength(4);
    expect(findBuiltInChain(901n)).toBeUndefined();
    expect(() => builtInChain(901n)).toThrow(UnknownChainError);
  });

  it("agree with the OP Sepolia fixtures' rollup config on every field both have", async () => {
    const [file] = fixtureFiles();
    const fixture = await loadFixture(file!);
    const ours = builtInChain(11155420n).rollupConfig;
    const theirs = fixture.config;
    for (const fork of [
      OpFork.Canyon,
      OpFork.Ecotone,
      OpFork.Fjord,
      OpFork.Granite,
      OpFork.Holocene,
      OpFork.Isthmus,
    ])
      expect(ours.forkTimes[fork]).toBe(theirs.forkTimes[fork]);
    for (const key of [
      "l2ChainId",
      "blockTime",
      "genesisL2Time",
      "depositContractAddress",
      "l1SystemConfigAddress",
      "l1ChainId",
      "batchInboxAddress",
      "seqWindowSize",
      "maxSequencerDrift",
      "channelTimeout",
      "pectraBlobScheduleTime",
      "genesis",
    ] as const) {
      expect(ours[key], key).toEqual(theirs[key]);
    }
    expect(isForkActive(ours, OpFork.Holocene, fixture.attributes.timestamp)).toBe(true);
  });
});

describe("L1 blob fee schedule", () => {
  it("computes EIP-4844 blob base fees (go-ethereum consensus/misc/eip4844/eip4844_test.go TestCalcBlobFee)", () => {
    const cases: [bigint, bigint][] = [
      [0n, 1n],
      [2314057n, 1n],
      [2314058n, 2n],
      [10n * 1024n * 1024n, 23n],
    ];
    for (const [excess, fee] of cases) expect(blobBaseFee(excess, BLOB_FEE_FRACTION_CANCUN)).toBe(fee);
  });

  it("picks the fraction by L1 time, with the Sepolia Pectra blob-schedule exception", () => {
    const sepolia = findL1ChainConfig(11155111n)!;
    const prague = sepolia.pragueTime!;
    expect(blobBaseFeeUpdateFraction(sepolia, prague - 1n)).toBe(BLOB_FEE_FRACTION_CANCUN);
    expect(blobBaseFeeUpdateFraction(sepolia, prague)).toBe(BLOB_FEE_FRACTION_PRAGUE);
    const pectraFix = builtInChain(11155420n).rollupConfig.pectraBlobScheduleTime!;
    expect(blobBaseFeeUpdateFraction(sepolia, prague, pectraFix)).toBe(BLOB_FEE_FRACTION_CANCUN);
    expect(blobBaseFeeUpdateFraction(sepolia, pectraFix, pectraFix)).toBe(BLOB_FEE_FRACTION_PRAGUE);
    expect(blobBaseFeeUpdateFraction(sepolia, 1761017184n, pectraFix)).toBe(BLOB_FEE_FRACTION_BPO1);
    expect(findL1ChainConfig(31337n)).toBeUndefined();
  });
});
