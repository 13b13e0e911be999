/**
 * `--witness <file>`: a witness given by the operator replaces the recorded one as the control. The recorded
 * devnet witness, written out as a plain (not gzip'd) witness file and read back through the CLI's reader, is
 * given to this repository's enclave parts run in-process (server, handlers, local security module, the proof
 * program with the fixture's rollup.json as the development chain; peers/fail-open-enclave.ts with no careless
 * behaviour): every enclave check PASSes, none SKIPs, and the careless enclave still FAILs with the same witness.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preimage } from "../generated/protocol/index.js";
import { recordedWitness } from "./fixture.js";
import { type CarelessEnclave, startCarelessEnclave } from "./peers/careless-enclave.js";
import { type FailOpenEnclave, startFailOpenEnclave } from "./peers/fail-open-enclave.js";
import { runConformance } from "./suite.js";
import { loadWitnessFile, witnessJson } from "./witness.js";

describe("proof-dependent checks with a given witness file the enclave can prove", () => {
  let dir: string;
  let enclave: FailOpenEnclave;
  let careless: CarelessEnclave;
  let witness: Preimage[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "conformance-witness-"));
    const recorded = recordedWitness();
    enclave = await startFailOpenEnclave(recorded.rollupConfig);
    careless = await startCarelessEnclave();
    const file = join(dir, "witness.json");
    await writeFile(file, witnessJson(recorded.preimages));
    witness = await loadWitnessFile(file);
  });

  afterAll(async () => {
    await enclave?.close();
    await careless?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("passes every enclave check, the wrong-root and journal checks included", async () => {
    const results = await runConformance({ enclave: enclave.address }, { witness });
    expect(results.filter((r) => r.status !== "PASS")).toEqual([]);
    expect(results.find((r) => r.id === "enclave.wrong-claimed-root")?.detail).toMatch(
      /OutputRootMismatchError.*while the correct root was proved/,
    );
    expect(results.find((r) => r.id === "enclave.journal-image-hash")?.detail).toMatch(
      /every journal embeds 0x0{64} and recovers to the signer/,
    );
    expect(results.find((r) => r.id === "enclave.content-verification.keccak256")?.detail).toMatch(
      /the unmodified request was proved/,
    );
  }, 120_000);

  it("still fails the careless enclave with the same witness", async () => {
    const results = await runConformance(
      { enclave: { kind: "tcp", host: "127.0.0.1", port: careless.port } },
      { witness },
    );
    const status = (id: string) => results.find((r) => r.id === id)?.status;
    expect(status("enclave.wrong-claimed-root")).toBe("FAIL");
    expect(status("enclave.journal-image-hash")).toBe("FAIL");
    expect(status("enclave.content-verification.sha256")).toBe("FAIL");
  }, 120_000);
});
