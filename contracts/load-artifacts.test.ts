import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ABI_MODULE_FILE,
  artifactPath,
  compileContracts,
  computeSourceHash,
  readContractSources,
  renderAbiModule,
  renderArtifact,
} from "./compile.js";
import {
  LOAD_ARTIFACTS_DIR,
  LOAD_CONTRACT_NAMES,
  LOAD_SOURCES_DIR,
  LOAD_UNIT_PREFIX,
  loadLoadArtifact,
} from "./load-artifacts.js";

describe("committed load contract artifacts", () => {
  const sources = readContractSources(LOAD_SOURCES_DIR, LOAD_UNIT_PREFIX);
  const compiled = compileContracts(sources);

  it("are byte-identical to a fresh compilation of contracts/src/load (run `npm run contracts:compile` when this fails)", () => {
    expect(compiled.map((a) => a.contractName)).toEqual([...LOAD_CONTRACT_NAMES]);
    for (const artifact of compiled) {
      expect(artifact.sourceName.startsWith("src/load/")).toBe(true);
      expect(readFileSync(artifactPath(artifact.contractName, LOAD_ARTIFACTS_DIR), "utf8")).toBe(
        renderArtifact(artifact),
      );
    }
    expect(readFileSync(join(LOAD_ARTIFACTS_DIR, ABI_MODULE_FILE), "utf8")).toBe(renderAbiModule(compiled));
  });

  it("have no leftover files and record the load set's own source hash", () => {
    const committed = readdirSync(LOAD_ARTIFACTS_DIR).filter((f) => f.endsWith(".json"));
    expect(committed.sort()).toEqual(LOAD_CONTRACT_NAMES.map((n) => `${n}.json`));
    const hash = computeSourceHash(sources);
    expect(hash).not.toBe(computeSourceHash(readContractSources()));
    for (const name of LOAD_CONTRACT_NAMES) expect(loadLoadArtifact(name).sourceHash).toBe(hash);
  });
});
