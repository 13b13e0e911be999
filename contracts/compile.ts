/**
 * Compiles `contracts/src/*.sol` with the pinned npm `solc` (solc-js, 0.8.30) into deterministic
 * artifacts under `contracts/artifacts/<ContractName>.json` (abi, bytecode, deployedBytecode and a
 * hash of the sources plus compiler version and settings). Run with `npm run contracts:compile`.
 * `contracts/artifacts.test.ts` recompiles and fails when the committed artifacts are stale.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";
import type { Abi, Hex } from "viem";
import {
  ARTIFACTS_DIR,
  artifactPath,
  type ContractArtifact,
  SOLC_SETTINGS,
  SOLC_VERSION,
  SOURCES_DIR,
} from "./artifact-format.js";
import { ContractsError } from "./errors.js";
import { LOAD_ARTIFACTS_DIR, LOAD_SOURCES_DIR, LOAD_UNIT_PREFIX } from "./load-format.js";

export {
  ARTIFACTS_DIR,
  artifactPath,
  type ContractArtifact,
  CONTRACTS_DIR,
  SOLC_SETTINGS,
  SOLC_VERSION,
  SOURCES_DIR,
} from "./artifact-format.js";

/** solc reported errors or warnings (the build accepts neither). */
export class SolidityCompilationError extends ContractsError {
  constructor(readonly diagnostics: readonly string[]) {
    super(`solc failed:\n${diagnostics.join("\n")}`, "compilation-failed", { diagnostics });
  }
}

/** The installed solc is not the pinned SOLC_VERSION. */
export class CompilerVersionMismatchError extends ContractsError {
  constructor(readonly found: string) {
    super(`expected solc ${SOLC_VERSION}, the installed solc is ${found}`, "compiler-version-mismatch", {
      expected: SOLC_VERSION,
      found,
    });
  }
}

/** Source files keyed by their unit name `<unitPrefix>/<File>.sol` (default `src/<File>.sol`), sorted by name. */
export function readContractSources(dir: string = SOURCES_DIR, unitPrefix = "src"): Map<string, string> {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith(".sol"))
    .sort();
  return new Map(files.map((file) => [`${unitPrefix}/${file}`, readFileSync(join(dir, file), "utf8")]));
}

export function computeSourceHash(sources: ReadonlyMap<string, string>): Hex {
  const canonical = JSON.stringify({
    compiler: SOLC_VERSION,
    settings: SOLC_SETTINGS,
    sources: [...sources.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  });
  return `0x${createHash("sha256").update(canonical).digest("hex")}`;
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

/** Compiles every source; returns the artifacts sorted by contract name. */
export function compileContracts(
  sources: ReadonlyMap<string, string> = readContractSources(),
): ContractArtifact[] {
  const installed = String(solc.version());
  if (!installed.startsWith(SOLC_VERSION)) throw new CompilerVersionMismatchError(installed);
  const input = {
    language: "Solidity",
    sources: Object.fromEntries([...sources].map(([unit, content]) => [unit, { content }])),
    settings: SOLC_SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const diagnostics = output.errors ?? [];
  const fatal = diagnostics.filter((d) => d.severity === "error");
  if (fatal.length > 0 || output.contracts === undefined) {
    throw new SolidityCompilationError(fatal.map((d) => d.formattedMessage));
  }
  const warnings = diagnostics.filter((d) => d.severity !== "error");
  if (warnings.length > 0) throw new SolidityCompilationError(warnings.map((d) => d.formattedMessage));
  const sourceHash = computeSourceHash(sources);
  const artifacts: ContractArtifact[] = [];
  for (const [sourceName, contracts] of Object.entries(output.contracts)) {
    for (const [contractName, compiled] of Object.entries(contracts)) {
      const bytecode = compiled.evm.bytecode.object;
      // Interfaces compile to no code: they are not deployable artifacts.
      if (bytecode.length === 0) continue;
      artifacts.push({
        contractName,
        sourceName,
        compiler: { version: SOLC_VERSION, settings: SOLC_SETTINGS },
        sourceHash,
        abi: compiled.abi,
        bytecode: `0x${bytecode}`,
        deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      });
    }
  }
  return artifacts.sort((a, b) => (a.contractName < b.contractName ? -1 : 1));
}

/** The exact bytes written for an artifact (stable key order, two-space indent, final newline). */
export function renderArtifact(artifact: ContractArtifact): string {
  return `${JSON.stringify(artifact, null, 2)}\n`;
}

export const ABI_MODULE_FILE = "abis.ts";

function abiConstName(contractName: string): string {
  const leadingCaps = /^[A-Z]+(?=[A-Z][a-z]|$)/.exec(contractName)?.[0] ?? contractName[0] ?? "";
  return `${leadingCaps.toLowerCase()}${contractName.slice(leadingCaps.length)}Abi`;
}

/**
 * A TypeScript module with every ABI `as const` (e.g. `eip3009TokenAbi`, `teeProverRegistryAbi`),
 * so viem infers function names, arguments and results from them.
 */
export function renderAbiModule(artifacts: readonly ContractArtifact[]): string {
  const parts = [
    "// Generated by contracts/compile.ts (npm run contracts:compile) from contracts/src. Do not edit.\n",
  ];
  for (const artifact of artifacts) {
    const body = JSON.stringify(artifact.abi, null, 2);
    parts.push(`\nexport const ${abiConstName(artifact.contractName)} = ${body} as const;\n`);
  }
  return parts.join("");
}

export function writeArtifacts(artifacts: readonly ContractArtifact[], dir: string = ARTIFACTS_DIR): void {
  mkdirSync(dir, { recursive: true });
  for (const artifact of artifacts)
    writeFileSync(artifactPath(artifact.contractName, dir), renderArtifact(artifact));
  writeFileSync(join(dir, ABI_MODULE_FILE), renderAbiModule(artifacts));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  // The project's contracts, then the load generator's (a separate set: its own source hash and ABI module).
  const sets = [
    { sources: readContractSources(), dir: ARTIFACTS_DIR },
    { sources: readContractSources(LOAD_SOURCES_DIR, LOAD_UNIT_PREFIX), dir: LOAD_ARTIFACTS_DIR },
  ];
  for (const { sources, dir } of sets) {
    const artifacts = compileContracts(sources);
    writeArtifacts(artifacts, dir);
    for (const a of artifacts) {
      process.stdout.write(`${a.contractName}: ${(a.deployedBytecode.length - 2) / 2} bytes deployed\n`);
    }
    process.stdout.write(`source hash ${artifacts[0]?.sourceHash ?? "(none)"}\n`);
  }
}
