/**
 * The devnet of the schedule-id journal version end to end: `src/devnet/main.ts --verifier-version schedule-id
 * --proposer` as a real process deploys ProtocolVersions holding the chain's upgrade schedule and
 * ScheduleIdAggregateVerifier on it, starts the enclave and the host with `--journal-version schedule-id`, registers
 * the enclave's signer through the registrar. Its rollup.json schedules one upgrade after genesis (the Pectra blob
 * schedule fix, DEVNET_UPGRADE_AFTER_BLOCKS L2 blocks in), so ProtocolVersions' schedule has a link that activates
 * while the chain runs: the proposer's proposals, proven through that enclave (which computes the id from the
 * ladder built into it and the rollup config it was started with), land on the schedule-id verifier before the
 * activation with the seed as schedule id and after it with the id of the schedule through that upgrade, each the
 * one ProtocolVersions activates at its claim time; `npm run prove` meanwhile checks a proof of its own against
 * TEEVerifier over the schedule-id journal.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, bytesToHex, createPublicClient, http } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import {
  protocolVersionsAbi,
  scheduleIdAggregateVerifierAbi,
  verifierVersionOf,
} from "../../contracts/index.js";
import { parseRollupConfig } from "../../src/chain/index.js";
import { jsonLine, runToCompletion, type ServiceChild, startServiceChild } from "../../src/devnet/child.js";
import { DEVNET_UPGRADE_AFTER_BLOCKS } from "../../src/devnet/rollup-config.js";
import {
  claimScheduleId,
  ladderTimestamps,
  scheduleIdOf,
  UPGRADE_LADDER,
} from "../../src/proof/onchain/index.js";

interface DevnetReady {
  l1RpcUrl: string;
  rollupConfig: string;
  aggregateVerifier: Address;
  protocolVersions: Address;
  verifierVersion: string;
  proposerRunning: boolean;
}

const dataDir = mkdtempSync(join(tmpdir(), "devnet-schedule-"));
let devnet: ServiceChild | undefined;

afterAll(async () => {
  await devnet?.stop(90_000);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start -- --verifier-version schedule-id --proposer", () => {
  it("lands the proposer's proposals, proven by a schedule-id enclave, on ScheduleIdAggregateVerifier before and after an upgrade activates", async () => {
    devnet = startServiceChild(
      "devnet",
      "src/devnet/main.ts",
      [
        ...["--data-dir", dataDir, "--l1-port", "0", "--l1-beacon-port", "0", "--node-port", "0"],
        ...["--merchant-port", "0", "--batcher-metrics-port", "0", "--prover-port", "0"],
        ...["--l1-block-time", "1", "--l2-block-time", "1", "--data-availability", "calldata"],
        ...["--block-interval", "2", "--intermediate-block-interval", "2"],
        ...["--verifier-version", "schedule-id", "--proposer"],
      ],
      () => {},
    );
    const ready = await devnet.waitForLine((line) => {
      const value = jsonLine(line);
      return value?.msg === "devnet ready" ? (value as unknown as DevnetReady) : undefined;
    }, 180_000);
    expect(ready.verifierVersion).toBe("schedule-id");
    expect(ready.proposerRunning).toBe(true);
    // `npm run prove` of three blocks (not the proposer's next range: TEEVerifier only), alongside the proposer: it
    // appends the schedule id the verifier pins to the journal it checks.
    const proved = runToCompletion(
      "src/devnet/prove.ts",
      ["--data-dir", dataDir, "--blocks", "3"],
      300_000,
    ).then(
      (out) => ({ out }),
      (error: unknown) => ({ out: String(error) }),
    );
    const l1 = createPublicClient({ transport: http(ready.l1RpcUrl, { timeout: 60_000 }) });
    expect(await verifierVersionOf(l1, ready.aggregateVerifier)).toBe("schedule-id");
    const read = <T>(functionName: string, args: readonly unknown[] = []): Promise<T> =>
      l1.readContract({
        address: ready.aggregateVerifier,
        abi: scheduleIdAggregateVerifierAbi,
        functionName,
        args,
      } as never) as Promise<T>;
    expect(await read("PROTOCOL_VERSIONS")).toBe(ready.protocolVersions);
    // ProtocolVersions holds the ladder the enclave image implements, with the rollup config's times.
    const rollup = parseRollupConfig(JSON.parse(readFileSync(ready.rollupConfig, "utf8")));
    expect(
      await l1.readContract({
        address: ready.protocolVersions,
        abi: protocolVersionsAbi,
        functionName: "getSchedule",
      }),
    ).toEqual(ladderTimestamps(rollup));

    // One upgrade after genesis: the Pectra blob schedule fix, DEVNET_UPGRADE_AFTER_BLOCKS L2 blocks in; every other
    // fork is active from genesis (0, "not scheduled" in ProtocolVersions' terms).
    const activation = rollup.genesisL2Time + BigInt(DEVNET_UPGRADE_AFTER_BLOCKS) * rollup.blockTime;
    expect(rollup.pectraBlobScheduleTime).toBe(activation);
    const timestamps = ladderTimestamps(rollup);
    const upgradeIndex = UPGRADE_LADDER.findIndex((upgrade) => upgrade.name === "pectra_blob_schedule");
    expect(timestamps.map((t, i) => (i === upgradeIndex ? activation : 0n))).toEqual(timestamps);

    // The proposer's proposals (2 blocks each) land past the activation block: the contract accepted the enclave's
    // schedule-id journal on both sides of it.
    const lastBlock = BigInt(DEVNET_UPGRADE_AFTER_BLOCKS) + 2n;
    const deadline = Date.now() + 300_000;
    while ((await read<bigint>("latestBlock")) < lastBlock && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await read<bigint>("latestBlock")).toBeGreaterThanOrEqual(lastBlock);
    const pinnedAt = async (end: bigint): Promise<string> => {
      const id = await read<bigint>("proposalAt", [end - 2n, end]);
      expect(id, `the proposal ending at ${end}`).toBeGreaterThan(0n);
      const pinned = await read<string>("scheduleIdOf", [id]);
      expect(pinned).toBe(bytesToHex(claimScheduleId(rollup, end)));
      expect(pinned).toBe(
        await l1.readContract({
          address: ready.protocolVersions,
          abi: protocolVersionsAbi,
          functionName: "activatedScheduleId",
          args: [await read<bigint>("l2Timestamp", [end])],
        }),
      );
      return pinned;
    };
    // Before the activation (blocks 0..2, claim time before it): the seed.
    expect(await pinnedAt(2n)).toBe(bytesToHex(new Uint8Array(32)));
    // From the activation block on: the schedule through the upgrade.
    const upgraded = bytesToHex(scheduleIdOf(timestamps, upgradeIndex + 1));
    expect(upgraded).not.toBe(bytesToHex(new Uint8Array(32)));
    expect(await pinnedAt(BigInt(DEVNET_UPGRADE_AFTER_BLOCKS))).toBe(upgraded);
    expect(await pinnedAt(lastBlock)).toBe(upgraded);
    const lines = (await proved).out.trim().split("\n");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      msg: "proof accepted",
      journalVersion: "schedule-id",
      teeVerifier: "accepted",
    });
  }, 500_000);
});
