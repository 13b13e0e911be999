/**
 * Parallel execution of a range over the recorded devnet witness (conformance/fixtures: 3 blocks, a user
 * transaction, batches in a blob): with the chain witness the range runs on worker threads and gives the
 * sequential output roots and the same signed proof; without it, or with a header of the range forged (in the
 * middle, at the end), the chain of hashes breaks at the forged block, the range is executed sequentially and the
 * proof is refused, nothing signed.
 */
import { afterAll, describe, expect, it } from "vitest";
import { recordedWitness } from "../../../../conformance/fixture.js";
import { runProof } from "../../../../enclave/prove.js";
import type { Preimage } from "../../../../generated/protocol/index.js";
import { toHex } from "../../../chain/index.js";
import { OutputRootMismatchError } from "../../onchain/index.js";
import { PreimageTable, readBootInfo } from "../../preimages/index.js";
import { OfflineOracle } from "../oracle.js";
import { programExecutor, runProgram } from "../program.js";
import type { ExecutionReport } from "../types.js";
import { countingSigner, forgeHeaderChain, withChainWitness } from "./chain-witness.test-support.js";
import { BlockPool } from "./pool.js";

const pool = new BlockPool({ workers: 2 });
afterAll(() => pool.close());

function parallelRun(witness: readonly Preimage[]) {
  const table = PreimageTable.fromPreimages(witness);
  return runProgram({
    boot: readBootInfo(table),
    oracle: new OfflineOracle(table),
    rollupConfig: recordedWitness().rollupConfig,
    parallel: { pool, table },
  });
}

function executor(parallel: boolean, reports: ExecutionReport[] = []) {
  const { rollupConfig } = recordedWitness();
  return programExecutor(() => ({ rollupConfig }), {
    ...(parallel ? { pool } : {}),
    onExecuted: (report) => reports.push(report),
  });
}

describe("parallel execution of a range (recorded devnet witness)", () => {
  it("runs every block on the workers and gives the sequential roots and the same signed proof", async () => {
    const { preimages, rollupConfig, manifest } = recordedWitness();
    const { sequential, witness } = await withChainWitness(preimages, rollupConfig);
    expect(sequential.outputRoots.map(toHex)).toEqual(manifest.outputRoots);
    expect(sequential.execution.mode).toBe("sequential");
    const parallel = await parallelRun(witness);
    expect(parallel.execution).toMatchObject({ mode: "parallel", workers: 2 });
    expect(parallel.execution.fallback).toBeUndefined();
    expect(parallel.execution.peakWorkerHeapBytes).toBeGreaterThan(0);
    expect(parallel.outputRoots.map(toHex)).toEqual(manifest.outputRoots);
    expect(parallel.blocks.map((b) => toHex(b.hash))).toEqual(sequential.blocks.map((b) => toHex(b.hash)));

    const signer = countingSigner();
    const reports: ExecutionReport[] = [];
    const program = (parallel: boolean) => ({
      signer,
      teeImageHash: new Uint8Array(32),
      executor: executor(parallel, reports),
    });
    const signedSequentially = await runProof(program(false), witness);
    const signedInParallel = await runProof(program(true), witness);
    expect(reports.map((r) => r.mode)).toEqual(["sequential", "parallel"]);
    expect(signedInParallel).toEqual(signedSequentially);
    expect(signedInParallel.Tee.proposals.map((p) => toHex(p.output_root))).toEqual(manifest.outputRoots);
  }, 120_000);

  it("without the chain witness, executes the range sequentially to the same roots", async () => {
    const { preimages, manifest } = recordedWitness();
    const result = await parallelRun(preimages);
    expect(result.execution.mode).toBe("sequential");
    expect(result.execution.fallback?.reason).toMatch(/does not open the claimed output root/);
    expect(result.outputRoots.map(toHex)).toEqual(manifest.outputRoots);
  }, 120_000);

  for (const [where, at] of [
    ["in the middle of the range", 1],
    ["at the end of the range", 2],
  ] as const) {
    it(`a header forged ${where} breaks the chain there; the proof is refused, nothing signed`, async () => {
      const { preimages, rollupConfig, manifest } = recordedWitness();
      const { sequential, witness } = await withChainWitness(preimages, rollupConfig);
      const forged = forgeHeaderChain(witness, sequential.agreedHead, at);
      const reports: ExecutionReport[] = [];
      const signer = countingSigner();
      await expect(
        runProof(
          { signer, teeImageHash: new Uint8Array(32), executor: executor(true, reports) },
          forged.witness,
        ),
      ).rejects.toBeInstanceOf(OutputRootMismatchError);
      expect(signer.calls).toBe(0);
      // Caught by the chain of hashes at the forged block (its computed hash is not the forged header's), then
      // executed sequentially, which computes the true roots and refuses the forged claim.
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ mode: "sequential", fallback: { verifiedBlocks: at } });
      expect(reports[0]!.fallback!.reason).toMatch(
        new RegExp(
          `L2 block ${sequential.blocks[at]!.number} sealed to .*, not the header the witness carries`,
        ),
      );
      const refused = await parallelRun(forged.witness).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OutputRootMismatchError);
      expect(manifest.outputRoots).toHaveLength(3);
    }, 120_000);
  }
});
