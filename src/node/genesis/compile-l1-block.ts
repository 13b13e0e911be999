/**
 * Compiles the dev chain's L1Block (src/node/genesis/L1Block.sol) with the pinned solc and writes
 * its runtime bytecode to l1-block.artifact.json. Run: `npx tsx src/node/genesis/compile-l1-block.ts`.
 * A test recompiles and checks the committed artifact is current.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import solc from "solc";

export const L1_BLOCK_SOURCE_PATH = fileURLToPath(new URL("./L1Block.sol", import.meta.url));
export const L1_BLOCK_ARTIFACT_PATH = fileURLToPath(new URL("./l1-block.artifact.json", import.meta.url));

export interface L1BlockArtifact {
  compiler: string;
  deployedBytecode: string;
}

export class L1BlockCompileError extends Error {
  constructor(messages: string[]) {
    super(`solc failed:\n${messages.join("\n")}`);
    this.name = "L1BlockCompileError";
  }
}

export function compileL1Block(): L1BlockArtifact {
  const input = {
    language: "Solidity",
    sources: { "L1Block.sol": { content: readFileSync(L1_BLOCK_SOURCE_PATH, "utf8") } },
    settings: {
      optimizer: { enabled: true, runs: 999_999 },
      evmVersion: "cancun",
      metadata: { bytecodeHash: "none" },
      outputSelection: { "*": { "*": ["evm.deployedBytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new L1BlockCompileError(errors.map((e) => e.formattedMessage));
  const object = output.contracts["L1Block.sol"]?.["L1Block"]?.evm.deployedBytecode.object;
  if (object === undefined) throw new L1BlockCompileError(["no L1Block in the output"]);
  return { compiler: solc.version(), deployedBytecode: `0x${object}` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(L1_BLOCK_ARTIFACT_PATH, `${JSON.stringify(compileL1Block(), null, 2)}\n`);
  console.log(`wrote ${L1_BLOCK_ARTIFACT_PATH}`);
}
