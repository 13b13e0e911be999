/**
 * The suite speaking 8-byte frames (`--frame-length-prefix 8`) to this repository's enclave parts run in-process
 * (peers/fail-open-enclave.ts with no careless behaviour): every enclave check, the hostile-frame ones included,
 * PASSes in that form too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordedWitness } from "./fixture.js";
import { type FailOpenEnclave, startFailOpenEnclave } from "./peers/fail-open-enclave.js";
import { runConformance } from "./suite.js";

describe("the enclave checks with 8-byte frames", () => {
  let enclave: FailOpenEnclave;

  beforeAll(async () => {
    enclave = await startFailOpenEnclave(recordedWitness().rollupConfig);
  });

  afterAll(async () => {
    await enclave?.close();
  });

  it("passes every enclave check", async () => {
    const results = await runConformance({ enclave: enclave.address }, { frameLengthPrefix: 8 });
    expect(results.length).toBeGreaterThan(10);
    expect(results.filter((r) => r.status !== "PASS")).toEqual([]);
    expect(results.find((r) => r.id === "enclave.hostile-frame.oversized-prefix")?.detail).toMatch(
      /answered with an Error/,
    );
  }, 120_000);
});
