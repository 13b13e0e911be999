import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import {
  ABI_MODULE_FILE,
  ARTIFACTS_DIR,
  artifactPath,
  compileContracts,
  computeSourceHash,
  readContractSources,
  renderAbiModule,
  renderArtifact,
} from "./compile.js";
import { CONTRACT_NAMES, loadArtifact } from "./artifacts.js";

describe("committed contract artifacts", () => {
  const compiled = compileContracts();

  it("are byte-identical to a fresh compilation of contracts/src (run `npm run contracts:compile` when this fails)", () => {
    for (const artifact of compiled) {
      expect(readFileSync(artifactPath(artifact.contractName), "utf8"), artifact.contractName).toBe(
        renderArtifact(artifact),
      );
    }
  });

  it("include an up-to-date typed ABI module", () => {
    expect(readFileSync(join(ARTIFACTS_DIR, ABI_MODULE_FILE), "utf8")).toBe(renderAbiModule(compiled));
  });

  it("cover exactly the deployable contracts, with no leftover files", () => {
    const committed = readdirSync(ARTIFACTS_DIR)
      .filter((f) => f.endsWith(".json"))
      .sort();
    expect(committed).toEqual(compiled.map((a) => `${a.contractName}.json`));
    expect([...CONTRACT_NAMES]).toEqual(compiled.map((a) => a.contractName));
  });

  it("record the hash of the current sources and settings", () => {
    const hash = computeSourceHash(readContractSources());
    for (const name of CONTRACT_NAMES) expect(loadArtifact(name).sourceHash).toBe(hash);
  });

  it("source hash changes with any source byte", () => {
    const sources = readContractSources();
    const [first] = sources.keys();
    if (first === undefined) throw new Error("no sources");
    const edited = new Map(sources);
    edited.set(first, `${sources.get(first)} `);
    expect(computeSourceHash(edited)).not.toBe(computeSourceHash(sources));
  });
});
