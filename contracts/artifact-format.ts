/**
 * Where the contracts and their artifacts live and what an artifact holds, without the compiler: loading
 * artifacts (contracts/artifacts.ts) must not load solc.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";

export const CONTRACTS_DIR = dirname(fileURLToPath(import.meta.url));
export const SOURCES_DIR = join(CONTRACTS_DIR, "src");
export const ARTIFACTS_DIR = join(CONTRACTS_DIR, "artifacts");

/** The compiler version the artifacts must be built with (package.json pins `solc` to it exactly). */
export const SOLC_VERSION = "0.8.30+commit.73712a01";

/**
 * Compiler settings. evmVersion "cancun": OP Stack chains from the Ecotone upgrade on (and so
 * Holocene-era chains) run Cancun-level execution (PUSH0, MCOPY, TSTORE), while Prague/Osaka opcodes
 * are not guaranteed on every OP chain and devnet, so we target the newest EVM they all share.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: {
    "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
  },
} as const;

export interface ContractArtifact {
  contractName: string;
  sourceName: string;
  compiler: { version: string; settings: typeof SOLC_SETTINGS };
  /** sha256 over the sources, compiler version and settings (see computeSourceHash in contracts/compile.ts). */
  sourceHash: Hex;
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

export function artifactPath(contractName: string, dir: string = ARTIFACTS_DIR): string {
  return join(dir, `${contractName}.json`);
}
