/**
 * The schedule-id journal version end to end: a real enclave process started with `--journal-version schedule-id`
 * and the recorded devnet chain, whose rollup config here schedules Jovian at timestamp 1 (before genesis, so
 * derivation is unchanged and the recorded witness still proves; the config hash covers genesis facts only). The
 * expected schedule id is computed in the test with viem from the contract's definition. The suite's enclave
 * checks pass when told the schedule-id version, and its journal check fails when told the spec's version; the
 * signatures recover over the schedule id of exactly this schedule, not over one with one more upgrade.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeAbiParameters, type Hex, hexToBytes, keccak256, zeroHash } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../conformance/fixture.js";
import { journalProblems } from "../../conformance/journal-check.js";
import { runConformance } from "../../conformance/suite.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { callEnclave } from "../../src/host/index.js";
import { parseRollupConfig } from "../../src/chain/index.js";

function link(previous: Hex, index: number, timestamp: bigint): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "uint256" }, { type: "uint64" }],
      [previous, BigInt(index), timestamp],
    ),
  );
}

/** regolith..isthmus unscheduled (0: active from genesis), jovian (id 9) at 1. */
const SCHEDULE = [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 1n];
const expectedScheduleId = hexToBytes(SCHEDULE.reduce<Hex>((prev, ts, i) => link(prev, i, ts), zeroHash));
/** The same schedule with one more upgrade (id 10) active at the claim. */
const oneMoreUpgrade = hexToBytes(
  link(
    SCHEDULE.reduce<Hex>((p, ts, i) => link(p, i, ts), zeroHash),
    10,
    2n,
  ),
);

describe("an enclave signing schedule-id journals", () => {
  let dir: string;
  let rollupPath: string;
  let enclave: RunningEnclave;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "schedule-id-"));
    const json = JSON.parse(await readFile(FIXTURE_ROLLUP_PATH, "utf8")) as Record<string, unknown>;
    expect(json.jovian_time).toBe(0);
    rollupPath = join(dir, "rollup.json");
    await writeFile(rollupPath, JSON.stringify({ ...json, jovian_time: 1 }));
    enclave = await startEnclave(["--rollup-config", rollupPath, "--journal-version", "schedule-id"]);
  }, 60_000);

  afterAll(async () => {
    await enclave?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("signs every journal over the image's schedule id, appended after teeImageHash", async () => {
    const { preimages } = recordedWitness();
    const response = await callEnclave(
      enclave.address,
      { kind: "Prove", preimages },
      { responseStartTimeoutMs: Number.POSITIVE_INFINITY },
    );
    if (response.kind !== "Prove") throw new Error(`expected a proof, got ${JSON.stringify(response)}`);
    const expected = {
      witness: preimages,
      signerAddress: hexToBytes(enclave.signer as Hex),
      teeImageHash: new Uint8Array(32),
    };
    expect(journalProblems(response.result, { ...expected, scheduleIdAt: () => expectedScheduleId })).toEqual(
      [],
    );
    // The spec's journal, and the journal of a schedule with one more upgrade, do not verify.
    expect(journalProblems(response.result, expected).length).toBeGreaterThan(0);
    expect(
      journalProblems(response.result, { ...expected, scheduleIdAt: () => oneMoreUpgrade }).length,
    ).toBeGreaterThan(0);
  }, 120_000);

  it("passes the suite's enclave checks told the schedule-id version, and fails its journal check told the spec's", async () => {
    const rollupConfig = parseRollupConfig(JSON.parse(await readFile(rollupPath, "utf8")));
    const withSchedule = await runConformance(
      { enclave: enclave.address },
      { journalVersion: "schedule-id", rollupConfig },
    );
    expect(withSchedule.filter((r) => r.status !== "PASS")).toEqual([]);
    const spec = await runConformance({ enclave: enclave.address }, { only: ["enclave.journal-image-hash"] });
    expect(spec.map((r) => [r.id, r.status])).toEqual([["enclave.journal-image-hash", "FAIL"]]);
  }, 240_000);
});
