/**
 * Writes src/proof/onchain/config-table.ts, the enclave's hardcoded config-hash table, from src/chain's built-in chains
 * (generated from the superchain registry export by src/chain/chains/generate.ts) and the dev chain's genesis
 * (src/proof/onchain/dev-chain.ts). Run at build time (`npx tsx src/proof/onchain/build-config-table.ts`) and commit the result;
 * the enclave never reads the registry at run time. A test recomputes the table.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { bytesToHex } from "viem";
import { builtInChain } from "../../chain/index.js";
import { type ChainGenesisConfig, computeConfigHash } from "./config-hash.js";
import { BUILT_IN_CHAINS } from "./built-in-chains.js";
import { devChainGenesisConfig } from "./dev-chain.js";
import { UnsupportedChainError } from "./chain-configs.js";

/** The genesis config of a built-in chain: the registry's facts from src/chain, or the dev chain's own. */
export function builtInGenesisConfig(chainId: bigint, devChain: ChainGenesisConfig): ChainGenesisConfig {
  const entry = BUILT_IN_CHAINS.find((chain) => chain.chainId === chainId);
  if (entry === undefined) throw new UnsupportedChainError(chainId);
  return entry.source === "devnet" ? devChain : builtInChain(chainId).genesisFacts;
}

/** The source text of config-table.ts. */
export function renderConfigTable(devChain: ChainGenesisConfig): string {
  const rows = BUILT_IN_CHAINS.map(({ chainId, name }) => {
    const config = builtInGenesisConfig(chainId, devChain);
    const hash = bytesToHex(computeConfigHash(config));
    return `  [${chainId}n, "${hash}"], // ${name}`;
  });
  return [
    "// Written by src/proof/onchain/build-config-table.ts from src/chain's built-in chains (the superchain registry export)",
    "// and the dev chain's genesis (src/proof/onchain/dev-chain.ts). Do not edit by hand.",
    "/** Config hash of every chain the enclave proves, by L2 chain id (hex at this edge only). */",
    "export const CONFIG_HASH_TABLE_HEX: ReadonlyArray<readonly [bigint, `0x${string}`]> = [",
    ...rows,
    "];",
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = fileURLToPath(new URL("./config-table.ts", import.meta.url));
  await writeFile(target, renderConfigTable(await devChainGenesisConfig()));
  console.log(`wrote ${target}`);
}
