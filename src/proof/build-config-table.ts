/**
 * Writes src/proof/config-table.ts, the enclave's hardcoded config-hash table, from the superchain registry
 * export and the dev chain's genesis (src/proof/dev-chain.ts). Run at build time (`npx tsx src/proof/build-config-table.ts [path/to/superchain-configs.json]`)
 * and commit the result; the enclave never reads the registry at run time. A test recomputes the table.
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { bytesToHex } from "viem";
import { type ChainGenesisConfig, computeConfigHash } from "./config-hash.js";
import { BUILT_IN_CHAINS } from "./built-in-chains.js";
import { devChainGenesisConfig } from "./dev-chain.js";
import { genesisConfigFromRegistry } from "./superchain.js";

export const DEFAULT_REGISTRY_PATH = fileURLToPath(
  new URL("../../../shared/data/superchain-configs.json", import.meta.url),
);

/** The source text of config-table.ts: registry chains from `registry`, the dev chain from `devChain`. */
export function renderConfigTable(registry: unknown, devChain: ChainGenesisConfig): string {
  const rows = BUILT_IN_CHAINS.map(({ chainId, name, source }) => {
    const config = source === "devnet" ? devChain : genesisConfigFromRegistry(registry, chainId);
    if (config.chainId !== chainId)
      throw new Error(`the ${name} genesis config is for chain ${config.chainId}`);
    const hash = bytesToHex(computeConfigHash(config));
    return `  [${chainId}n, "${hash}"], // ${name}`;
  });
  return [
    "// Written by src/proof/build-config-table.ts from shared/data/superchain-configs.json and the dev chain's",
    "// genesis (src/proof/dev-chain.ts). Do not edit by hand.",
    "/** Config hash of every chain the enclave proves, by L2 chain id (hex at this edge only). */",
    "export const CONFIG_HASH_TABLE_HEX: ReadonlyArray<readonly [bigint, `0x${string}`]> = [",
    ...rows,
    "];",
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const registry = JSON.parse(await readFile(process.argv[2] ?? DEFAULT_REGISTRY_PATH, "utf8"));
  const target = fileURLToPath(new URL("./config-table.ts", import.meta.url));
  await writeFile(target, renderConfigTable(registry, await devChainGenesisConfig()));
  console.log(`wrote ${target}`);
}
