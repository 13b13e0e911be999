/**
 * Compiles the dev chain's own predeploys (src/chain/dev-chain/*.sol: L1Block, GasPriceOracle) with the
 * pinned solc and writes their runtime bytecode to predeploys.artifact.json.
 * Run: `npx tsx src/chain/dev-chain/compile-predeploys.ts`. A test recompiles and checks the committed
 * artifact is current.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import solc from "solc";
import { ChainError } from "../errors.js";

export const OWN_PREDEPLOYS = ["L1Block", "GasPriceOracle"] as const;
export type OwnPredeploy = (typeof OWN_PREDEPLOYS)[number];
export const PREDEPLOYS_ARTIFACT_PATH = fileURLToPath(new URL("./predeploys.artifact.json", import.meta.url));

export interface PredeploysArtifact {
  compiler: string;
  deployedBytecode: Record<OwnPredeploy, string>;
}

export class PredeployCompileError extends ChainError {
  constructor(messages: string[]) {
    super(`solc failed:\n${messages.join("\n")}`, "predeploy-compile", { details: { messages } });
  }
}

export function compilePredeploys(): PredeploysArtifact {
  const sources: Record<string, { content: string }> = {};
  for (const name of OWN_PREDEPLOYS) {
    sources[`${name}.sol`] = {
      content: readFileSync(fileURLToPath(new URL(`./${name}.sol`, import.meta.url)), "utf8"),
    };
  }
  const input = {
    language: "Solidity",
    sources,
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
  if (errors.length > 0) throw new PredeployCompileError(errors.map((e) => e.formattedMessage));
  const deployedBytecode = {} as Record<OwnPredeploy, string>;
  for (const name of OWN_PREDEPLOYS) {
    const object = output.contracts[`${name}.sol`]?.[name]?.evm.deployedBytecode.object;
    if (object === undefined) throw new PredeployCompileError([`no ${name} in the output`]);
    deployedBytecode[name] = `0x${object}`;
  }
  return { compiler: solc.version(), deployedBytecode };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(PREDEPLOYS_ARTIFACT_PATH, `${JSON.stringify(compilePredeploys(), null, 2)}\n`);
  console.log(`wrote ${PREDEPLOYS_ARTIFACT_PATH}`);
}
