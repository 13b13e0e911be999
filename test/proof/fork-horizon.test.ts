/**
 * The fork horizon on real processes: an enclave (local mode, the recorded devnet chain) refuses a Prove whose
 * claimed block or (verified) L1 head lies past the horizon built into the image, naming the fork and the horizon,
 * and refuses to start with a rollup config that schedules a fork it does not implement; so does the host.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../conformance/fixture.js";
import { keccakPreimage, l1HeadHeaderKey, valueOf, withBootValue } from "../../conformance/witness.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import type { Preimage, Response } from "../../generated/protocol/index.js";
import { decodeHeader, encodeHeader, headerHash } from "../../src/chain/index.js";
import { callEnclave } from "../../src/host/index.js";
import { IMAGE_FORK_HORIZON } from "../../src/proof/onchain/index.js";
import { BootKey, u64be } from "../../src/proof/preimages/index.js";
import { hostArgs, runHostToExit } from "../host/spawn-host.js";

function prove(enclave: RunningEnclave, preimages: Preimage[]): Promise<Response> {
  return callEnclave(
    enclave.address,
    { kind: "Prove", preimages },
    { responseStartTimeoutMs: Number.POSITIVE_INFINITY },
  );
}

describe("an enclave at its fork horizon", () => {
  let enclave: RunningEnclave;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fork-horizon-"));
    enclave = await startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH]);
  }, 60_000);

  afterAll(async () => {
    await enclave?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a claimed block whose L2 time lies past the horizon, naming jovian", async () => {
    const { preimages, rollupConfig } = recordedWitness();
    const pastHorizon =
      (IMAGE_FORK_HORIZON.until - rollupConfig.genesisL2Time) / rollupConfig.blockTime + 10n;
    const response = await prove(
      enclave,
      withBootValue(preimages, BootKey.ClaimedL2BlockNumber, u64be(pastHorizon)),
    );
    expect(response.kind).toBe("Error");
    expect(response.kind === "Error" && response.message).toMatch(
      new RegExp(
        `the claimed block ${pastHorizon} at .* lies past this image's fork horizon .*a fork after jovian`,
      ),
    );
  }, 120_000);

  it("refuses an L1 head whose verified header lies past the horizon, naming bpo2", async () => {
    const { preimages } = recordedWitness();
    const header = decodeHeader(valueOf(preimages, l1HeadHeaderKey(preimages)!)!);
    const future = encodeHeader({ ...header, timestamp: IMAGE_FORK_HORIZON.until + 12n });
    const withFutureHead = withBootValue(
      [...preimages, keccakPreimage(future)],
      BootKey.L1Head,
      headerHash(decodeHeader(future)),
    );
    const response = await prove(enclave, withFutureHead);
    expect(response.kind === "Error" && response.message).toMatch(
      /the L1 head at .* lies past this image's fork horizon .*a fork after bpo2/,
    );
  }, 120_000);

  it("still proves the recorded witness inside the horizon", async () => {
    const response = await prove(enclave, recordedWitness().preimages);
    expect(response.kind).toBe("Prove");
  }, 120_000);

  it("the enclave and the host refuse to start with a rollup config scheduling an unknown fork", async () => {
    const json = JSON.parse(await readFile(FIXTURE_ROLLUP_PATH, "utf8")) as Record<string, unknown>;
    const path = join(dir, "rollup-interop.json");
    await writeFile(path, JSON.stringify({ ...json, interop_time: 1_900_000_000 }));
    await expect(startEnclave(["--rollup-config", path])).rejects.toThrow(
      /schedules the fork "interop" .* which this image does not implement .*OP through jovian/,
    );
    const host = await runHostToExit(
      hostArgs({ enclaves: ["/tmp/none.sock"], chainId: "901", extra: ["--rollup-config", path] }),
    );
    expect(host.code).not.toBe(0);
    expect(host.stderr + host.stdout).toMatch(/schedules the fork "interop"/);
  }, 120_000);
});
