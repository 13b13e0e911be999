/**
 * The enclave process's --workers (docs/enclave.md "Parallel execution"), on the recorded devnet witness: with 2
 * workers and the chain witness a Prove is executed on the worker threads (started from their bundle) and logged
 * `range executed` with mode parallel and the peak memory; the same proposals as an enclave with --workers 1,
 * which executes sequentially. Its workers check the request's blobs before derivation reads them; a forged blob
 * element is refused as the sequential enclave refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../conformance/fixture.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import type { Preimage, Response } from "../../generated/protocol/index.js";
import { PreimageKeyType, toHex } from "../../src/chain/index.js";
import { callEnclave } from "../../src/host/index.js";
import { withChainWitness } from "../../src/proof/program/parallel/chain-witness.test-support.js";

function prove(enclave: RunningEnclave, preimages: Preimage[]): Promise<Response> {
  return callEnclave(
    enclave.address,
    { kind: "Prove", preimages },
    { responseStartTimeoutMs: Number.POSITIVE_INFINITY },
  );
}

function executed(enclave: RunningEnclave): Record<string, unknown>[] {
  return enclave.logs.filter((entry) => entry.msg === "range executed");
}

describe("the enclave's --workers", () => {
  let parallel: RunningEnclave;
  let sequential: RunningEnclave;
  let witness: Preimage[];

  beforeAll(async () => {
    const { preimages, rollupConfig } = recordedWitness();
    witness = (await withChainWitness(preimages, rollupConfig)).witness;
    [parallel, sequential] = await Promise.all([
      startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH, "--workers", "2"]),
      startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH, "--workers", "1"]),
    ]);
  }, 120_000);

  afterAll(async () => {
    await parallel?.stop();
    await sequential?.stop();
  });

  it("executes on the worker threads, logs peak memory, and proves what a sequential enclave proves", async () => {
    const inParallel = await prove(parallel, witness);
    const inSequence = await prove(sequential, witness);
    if (inParallel.kind !== "Prove" || inSequence.kind !== "Prove")
      throw new Error(`expected two proofs, got ${inParallel.kind} and ${inSequence.kind}`);
    expect(inParallel.result.Tee.proposals.map((p) => toHex(p.output_root))).toEqual(
      recordedWitness().manifest.outputRoots,
    );
    // Two enclaves, two signers: the roots and journals' contents agree, the signatures are each enclave's own.
    const withoutSignatures = (r: typeof inParallel.result) =>
      r.Tee.proposals.map(({ signature: _signature, ...rest }) => rest);
    expect(withoutSignatures(inParallel.result)).toEqual(withoutSignatures(inSequence.result));
    expect(executed(parallel)).toEqual([
      expect.objectContaining({ mode: "parallel", workers: 2, peakRssBytes: expect.any(Number) }),
    ]);
    expect(executed(parallel)[0]!.peakWorkerHeapBytes).toBeGreaterThan(0);
    expect(executed(sequential)).toEqual([expect.objectContaining({ mode: "sequential", workers: 1 })]);
    // The parallel enclave checked the preimages on its workers (the payload and index shared with them).
    expect(parallel.logs.filter((entry) => entry.msg === "preimages verified")).toEqual([
      expect.objectContaining({
        preimages: witness.length,
        // The recorded range's one blob, its commitment computed on a worker before derivation read it.
        blobs: 1,
        blobsChecked: 1,
        workers: 2,
        ms: expect.any(Number),
      }),
    ]);
  }, 180_000);

  it("refuses a witness with a forged blob element as the sequential enclave does; nothing signed", async () => {
    // Blob elements are not content-addressed: only the KZG commitment catches this one.
    const at = witness.findIndex(([key]) => key[0] === PreimageKeyType.Blob);
    const forged = witness.map(([key, value], index): Preimage => {
      if (index !== at + 100) return [key, value];
      const changed = value.slice();
      changed[31]! ^= 1;
      return [key, changed];
    });
    expect(forged[at + 100]![0][0]).toBe(PreimageKeyType.Blob);
    const before = executed(parallel).length;
    const inParallel = await prove(parallel, forged);
    const inSequence = await prove(sequential, forged);
    expect(inParallel).toEqual({
      kind: "Error",
      message: expect.stringMatching(/the field elements do not have the blob's KZG commitment/),
    });
    expect(inParallel).toEqual(inSequence);
    expect(executed(parallel)).toHaveLength(before);
    expect(parallel.logs.filter((entry) => entry.msg === "preimages verified").at(-1)).toMatchObject({
      blobs: 1,
      blobsChecked: 0,
    });
  }, 180_000);

  it("refuses a witness with a forged value as the sequential enclave does; nothing executed or signed", async () => {
    // A keccak256-keyed entry from the middle of the request on (the first share a worker takes is not the one).
    const at = witness.findIndex(
      ([key], index) => index >= witness.length / 2 && key[0] === PreimageKeyType.Keccak256,
    );
    const forged = witness.map(([key, value], index): Preimage => {
      if (index !== at) return [key, value];
      const changed = value.slice();
      changed[0]! ^= 1;
      return [key, changed];
    });
    const before = executed(parallel).length;
    const inParallel = await prove(parallel, forged);
    const inSequence = await prove(sequential, forged);
    expect(inParallel).toEqual({
      kind: "Error",
      message: expect.stringMatching(/^PreimageMismatchError: preimage for key keccak256:/),
    });
    expect(inParallel).toEqual(inSequence);
    expect(executed(parallel)).toHaveLength(before);
  }, 180_000);

  it("without the chain witness, executes sequentially and says why", async () => {
    const response = await prove(parallel, recordedWitness().preimages);
    expect(response.kind).toBe("Prove");
    expect(executed(parallel).at(-1)).toMatchObject({
      mode: "sequential",
      fallback: expect.stringMatching(/does not open the claimed output root/),
    });
  }, 180_000);
});
