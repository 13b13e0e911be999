/**
 * The recorded devnet witness (conformance/fixtures/, docs/conformance.md "The recorded witness") is still
 * valid: it proves offline with our proof program (src/proof/program's runProgram over the recorded preimages, loaded
 * as the enclave loads a Prove frame) to exactly the manifest's output roots, and its boot keys are the
 * manifest's. A change of the program or of the fixture's format that breaks it fails here; re-record with
 * `npm run conformance:record`.
 */
import { describe, expect, it } from "vitest";
import { PreimageKeyType, toHex } from "../src/chain/index.js";
import { loadVerifiedPreimages, readBootInfo } from "../src/proof/preimages/index.js";
import { OfflineOracle, refusePrecompileKeys, runProgram } from "../src/proof/program/index.js";
import { FIXTURE_FORMAT, FIXTURE_WITNESS_PATH, recordedWitness } from "./fixture.js";
import {
  agreedStateRootKey,
  firstBlobElement,
  l1HeadHeaderKey,
  loadWitnessFile,
  valueOf,
  withoutKey,
} from "./witness.js";

describe("the recorded devnet witness", () => {
  const { preimages, manifest, rollupConfig } = recordedWitness();

  it("has the manifest's format, boot information and contents", () => {
    expect(manifest.format).toBe(FIXTURE_FORMAT);
    expect(preimages).toHaveLength(manifest.preimageCount);
    const boot = readBootInfo(loadVerifiedPreimages(preimages));
    expect({
      l1Head: toHex(boot.l1Head),
      l1HeadNumber: Number(boot.l1HeadNumber),
      agreedOutputRoot: toHex(boot.agreedOutputRoot),
      claimedOutputRoot: toHex(boot.claimedOutputRoot),
      claimedL2BlockNumber: Number(boot.claimedL2BlockNumber),
      chainId: boot.chainId.toString(),
      proposer: toHex(boot.proposer),
      intermediateBlockInterval: Number(boot.intermediateBlockInterval),
    }).toEqual(manifest.boot);
    expect(boot.chainId).toBe(rollupConfig.l2ChainId);
    expect(manifest.outputRoots.at(-1)).toBe(manifest.boot.claimedOutputRoot);
    // What the enclave checks withhold or tamper with is in the recording.
    expect(l1HeadHeaderKey(preimages)).toBeDefined();
    expect(agreedStateRootKey(preimages)).toBeDefined();
    expect(firstBlobElement(preimages)).toBeDefined();
    expect(preimages.some(([key]) => key[0] === PreimageKeyType.Precompile)).toBe(false);
    const inRange = (block: number) =>
      block > manifest.startBlock && block <= manifest.boot.claimedL2BlockNumber;
    expect(manifest.contents.userTransactions.filter((t) => inRange(t.block)).length).toBeGreaterThan(0);
    expect(manifest.contents.deposits.filter((d) => inRange(d.block)).length).toBeGreaterThan(0);
  });

  it("loads through the --witness reader (gzip'd) to the same preimages", async () => {
    const loaded = await loadWitnessFile(FIXTURE_WITNESS_PATH);
    expect(loaded.length).toBe(preimages.length);
    expect(loaded.map(([k, v]) => `${toHex(k)}:${toHex(v)}`)).toEqual(
      preimages.map(([k, v]) => `${toHex(k)}:${toHex(v)}`),
    );
  });

  it("proves offline with the proof program to the manifest's output roots", async () => {
    refusePrecompileKeys(preimages);
    const store = loadVerifiedPreimages(preimages);
    const result = await runProgram({
      boot: readBootInfo(store),
      oracle: new OfflineOracle(store),
      rollupConfig,
    });
    expect(Number(result.startBlock)).toBe(manifest.startBlock);
    expect(result.outputRoots.map((root) => toHex(root))).toEqual(manifest.outputRoots);
    expect(toHex(result.agreedHead.hash)).toBe(manifest.agreedL2HeadHash);
  }, 120_000);

  it("needs what the withheld-preimage checks withhold (each removal is refused offline)", async () => {
    const replay = (witness: typeof preimages) => {
      const store = loadVerifiedPreimages(witness);
      return runProgram({ boot: readBootInfo(store), oracle: new OfflineOracle(store), rollupConfig });
    };
    for (const key of [
      l1HeadHeaderKey(preimages)!,
      agreedStateRootKey(preimages)!,
      firstBlobElement(preimages)![0],
    ]) {
      expect(valueOf(preimages, key)).toBeDefined();
      const error = await replay(withoutKey(preimages, key)).catch((e: unknown) => e);
      expect(error, toHex(key)).toBeInstanceOf(Error);
      expect((error as { kind?: string }).kind, toHex(key)).toBe("missing-preimage");
    }
  }, 300_000);
});
