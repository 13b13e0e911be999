/**
 * The load generator's contracts (`contracts/src/load/*.sol`: an ERC-20, a constant-product pool, an NFT
 * collection, a storage-heavy contract), compiled by `npm run contracts:compile` as a set of their own (own source
 * hash, own ABI module) into `contracts/artifacts/load/`. `contracts/load-artifacts.test.ts` fails when they are
 * stale. src/load deploys and calls them.
 */
import { readFileSync } from "node:fs";
import { artifactPath, type ContractArtifact } from "./artifact-format.js";
import { LOAD_ARTIFACTS_DIR } from "./load-format.js";

export { LOAD_ARTIFACTS_DIR, LOAD_SOURCES_DIR, LOAD_UNIT_PREFIX } from "./load-format.js";

export const LOAD_CONTRACT_NAMES = ["LoadNft", "LoadPool", "LoadStorage", "LoadToken"] as const;
export type LoadContractName = (typeof LOAD_CONTRACT_NAMES)[number];

export function loadLoadArtifact(contractName: LoadContractName): ContractArtifact {
  return JSON.parse(readFileSync(artifactPath(contractName, LOAD_ARTIFACTS_DIR), "utf8")) as ContractArtifact;
}

export { loadNftAbi, loadPoolAbi, loadStorageAbi, loadTokenAbi } from "./artifacts/load/abis.js";
