import { readFile } from "node:fs/promises";
import { bytesToHex } from "viem";
import { describe, expect, it } from "vitest";
import { builtInGenesisConfig, renderConfigTable } from "./build-config-table.js";
import { DEV_CHAIN_ID } from "./built-in-chains.js";
import { devChainGenesisConfig } from "./dev-chain.js";
import { configHashFor, supportedChainIds, UnsupportedChainError } from "./chain-configs.js";
import { computeConfigHash, encodeChainConfig } from "./config-hash.js";

const devChain = await devChainGenesisConfig();
const genesisConfigOf = (chainId: bigint) => builtInGenesisConfig(chainId, devChain);

describe("config hash", () => {
  it("matches the known hashes of Base (8453) and Base Sepolia (84532)", () => {
    expect(bytesToHex(computeConfigHash(genesisConfigOf(8453n)))).toBe(
      "0x1607709d90d40904f790574404e2ad614eac858f6162faa0ec34c6bf5e5f3c57",
    );
    expect(bytesToHex(computeConfigHash(genesisConfigOf(84532n)))).toBe(
      "0x12e9c45f19f9817c6d4385fad29e7a70c355502cf0883e76a9a7e478a85d1360",
    );
  });

  it("encodes 212 bytes in the documented order", () => {
    const encoded = encodeChainConfig(genesisConfigOf(8453n));
    expect(encoded.length).toBe(212);
    const hex = bytesToHex(encoded).slice(2);
    const at = (offset: number, length: number) => hex.slice(offset * 2, (offset + length) * 2);
    expect(at(0, 8)).toBe("0000000000000000"); // version 0
    expect(at(8, 32)).toBe(`${"0".repeat(60)}2105`); // chain id 8453 = 0x2105
    expect(at(40, 32)).toBe("5c13d307623a926cd31415036c8b7fa14572f9dac64528e857a470511fc30771"); // L1 genesis
    expect(at(72, 32)).toBe("f712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd"); // L2 genesis
    expect(at(104, 8)).toBe((1686789347).toString(16).padStart(16, "0")); // l2_time
    expect(at(112, 20)).toBe("5050f69a9786f081509234f1a7f4684b5e5b76c9"); // batcher
    expect(at(132, 32)).toBe(`${"0".repeat(58)}0a6fe0`); // scalar
    expect(at(164, 8)).toBe((30_000_000).toString(16).padStart(16, "0")); // gas limit
    expect(at(172, 20)).toBe("49048044d57e1c92a77f79988d21fa8faf74e97e"); // OptimismPortalProxy
    expect(at(192, 20)).toBe("73a79fab69143498ed3712e519a88a918e1f4072"); // SystemConfigProxy
  });

  it("the committed table is exactly what the build script computes from the built-in chains", async () => {
    const committed = await readFile(new URL("./config-table.ts", import.meta.url), "utf8");
    expect(committed).toBe(renderConfigTable(devChain));
  });

  it("the table serves the four registry chains and the dev chain, and refuses others with UnsupportedChain", () => {
    expect(supportedChainIds()).toEqual([8453n, 84532n, 10n, 11155420n, DEV_CHAIN_ID]);
    for (const chainId of supportedChainIds().filter((id) => id !== DEV_CHAIN_ID)) {
      expect(configHashFor(chainId)).toEqual(computeConfigHash(genesisConfigOf(chainId)));
    }
    expect(configHashFor(DEV_CHAIN_ID)).toEqual(computeConfigHash(devChain));
    expect(() => configHashFor(42n)).toThrow(UnsupportedChainError);
    expect(() => configHashFor(902n)).toThrow(/UnsupportedChain: chain id 902/);
    expect(() => builtInGenesisConfig(902n, devChain)).toThrow(UnsupportedChainError);
  });

  it("the dev chain's genesis config: fixed time, synthetic L1 genesis, no L1 contracts", () => {
    expect(devChain.chainId).toBe(901n);
    expect(devChain.l2GenesisTime).toBe(1_767_225_600n);
    expect(devChain.gasLimit).toBe(30_000_000n);
    expect(devChain.batcherAddress).toEqual(new Uint8Array(20));
    expect(devChain.depositContractAddress).toEqual(new Uint8Array(20));
    expect(devChain.systemConfigAddress).toEqual(new Uint8Array(20));
    // Ecotone scalar: version 1, blobBaseFeeScalar 1055762 (0x101c12), baseFeeScalar 2269 (0x8dd).
    expect(bytesToHex(devChain.scalar)).toBe(`0x01${"0".repeat(46)}00101c12000008dd`);
  });
});
