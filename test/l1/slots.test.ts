/**
 * The devnet L1 as a beacon chain (src/devnet/l1/slots.ts, beacon-server.ts): blocks only at
 * `genesis + slot × secondsPerSlot`, on the same grid after a restart and after anvil is killed with SIGKILL; the
 * standard beacon routes beside anvil (genesis, spec, blob sidecars and blobs by slot, each blob checked against
 * its versioned hash by KZG), anvil's execution-block-hash route still served through them, and an empty slot 404.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesToHex, type Hex, hexToBytes, parseGwei } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_BATCH_INBOX } from "../../contracts/index.js";
import { type Kzg, encodeBlob, loadKzg, versionedHash } from "../../src/derive/index.js";
import { DEVNET_L1_GENESIS_TIME } from "../../src/devnet/l1/anvil.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { viemKzg } from "../../src/devnet/l1/kzg.js";
import { SlotGridError } from "../../src/devnet/errors.js";
import { testSystemConfig, walletOf } from "./support.js";

const SLOT = 2;
const stateDir = mkdtempSync(join(tmpdir(), "devnet-l1-slots-"));
const running: DevnetL1[] = [];
let kzg: Kzg;
beforeAll(async () => {
  kzg = await loadKzg();
}, 300_000);
afterAll(async () => {
  for (const l1 of running.splice(0)) {
    await l1.beacon?.stop();
    await l1.anvil.stop();
  }
  rmSync(stateDir, { recursive: true, force: true });
});

async function start(secondsPerSlot = SLOT): Promise<DevnetL1> {
  const l1 = await startDevnetL1({
    systemConfig: testSystemConfig(),
    stateDir,
    stateIntervalSeconds: 1,
    slots: { secondsPerSlot },
  });
  running.push(l1);
  return l1;
}

async function stop(l1: DevnetL1, how: "stop" | "kill"): Promise<void> {
  running.splice(running.indexOf(l1), 1);
  await l1.beacon!.stop();
  await (how === "stop" ? l1.anvil.stop() : l1.anvil.kill());
}

/** Polls until the L1 has a block above `after` (the slot miner mines one per slot). */
async function blockAfter(l1: DevnetL1, after: bigint): Promise<{ number: bigint; timestamp: bigint }> {
  for (;;) {
    const latest = await l1.anvil.client.getBlock({ blockTag: "latest" });
    if (latest.number > after) return latest;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every block's timestamp is a slot start, increasing, none in the future. */
async function expectOnGrid(l1: DevnetL1, from: bigint): Promise<void> {
  const grid = l1.beacon!.grid;
  const latest = await l1.anvil.client.getBlockNumber();
  const times: bigint[] = [];
  for (let n = from; n <= latest; n++)
    times.push((await l1.anvil.client.getBlock({ blockNumber: n })).timestamp);
  const what = `genesis ${grid.genesisTime}, blocks at ${times.join(", ")}`;
  const now = BigInt(Math.ceil(Date.now() / 1000));
  times.forEach((t, i) => {
    expect((t - grid.genesisTime) % BigInt(grid.secondsPerSlot), what).toBe(0n);
    if (i > 0) expect(t > times[i - 1]!, what).toBe(true);
    expect(t <= now, what).toBe(true);
  });
}

async function getJson<T>(url: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as T };
}

describe("the devnet L1's slots and beacon API", () => {
  it("mines on the slot grid, serves blobs by slot, and keeps the grid across a restart and a SIGKILL", async () => {
    const l1 = await start();
    const grid = l1.beacon!.grid;
    expect(grid.genesisTime).toBe((await l1.anvil.client.getBlock({ blockNumber: 0n })).timestamp);
    expect(grid.genesisTime).toBe(DEVNET_L1_GENESIS_TIME);
    expect(l1.deployBlock.timestamp).toBe(grid.genesisTime + BigInt(SLOT));
    const beacon = l1.beacon!.url;

    const genesis = await getJson<{ data: { genesis_time: string } }>(`${beacon}/eth/v1/beacon/genesis`);
    expect(genesis.body.data.genesis_time).toBe(String(grid.genesisTime));
    const spec = await getJson<{ data: { SECONDS_PER_SLOT: string } }>(`${beacon}/eth/v1/config/spec`);
    expect(spec.body.data.SECONDS_PER_SLOT).toBe(String(SLOT));

    // Two blobs in one transaction; the block lands in a slot.
    const blobs = [
      encodeBlob(new TextEncoder().encode("first blob")),
      encodeBlob(new Uint8Array(5000).fill(7)),
    ];
    const hash = await walletOf(l1.anvil, 3).sendTransaction({
      to: DEVNET_BATCH_INBOX,
      blobs: blobs.map((b) => bytesToHex(b)),
      kzg: viemKzg(kzg),
      maxFeePerBlobGas: parseGwei("1"),
    });
    const receipt = await l1.anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    const block = await l1.anvil.client.getBlock({ blockHash: receipt.blockHash });
    const slot = (block.timestamp - grid.genesisTime) / BigInt(SLOT);
    const hashes = (await l1.anvil.client.getTransaction({ hash })).blobVersionedHashes!;

    type Sidecar = { index: string; blob: Hex; kzg_commitment: Hex; kzg_proof: Hex };
    const sidecars = await getJson<{ data: Sidecar[] }>(`${beacon}/eth/v1/beacon/blob_sidecars/${slot}`);
    expect(sidecars.status).toBe(200);
    expect(sidecars.body.data.map((s) => s.index)).toEqual(["0", "1"]);
    for (const [i, sidecar] of sidecars.body.data.entries()) {
      const blob = hexToBytes(sidecar.blob);
      expect(bytesToHex(kzg.verifyBlob(blob, hexToBytes(hashes[i]!)))).toBe(sidecar.kzg_commitment);
      expect(kzg.verifyProof(blob, hexToBytes(sidecar.kzg_commitment), hexToBytes(sidecar.kzg_proof))).toBe(
        true,
      );
      expect(sidecar.blob).toBe(bytesToHex(blobs[i]!));
    }

    for (const [i, versioned] of hashes.entries()) {
      const bySlot = await getJson<{ data: Hex[] }>(
        `${beacon}/eth/v1/beacon/blobs/${slot}?versioned_hashes=${versioned}`,
      );
      expect(bySlot.body.data).toHaveLength(1);
      expect(
        bytesToHex(versionedHash(kzg.verifyBlob(hexToBytes(bySlot.body.data[0]!), hexToBytes(versioned)))),
      ).toBe(versioned);
      expect(bySlot.body.data[0]).toBe(bytesToHex(blobs[i]!));
      // The execution block hash form (anvil's) still answers, through the beacon API.
      const byHash = await getJson<{ data: Hex[] }>(
        `${beacon}/eth/v1/beacon/blobs/${receipt.blockHash}?versioned_hashes=${versioned}`,
      );
      expect(byHash.body.data).toEqual(bySlot.body.data);
    }
    // Slot 2 is empty: block 1 sits in slot 1 and the clock then jumped to today.
    expect((await getJson(`${beacon}/eth/v1/beacon/blob_sidecars/2`)).status).toBe(404);
    expect((await getJson(`${beacon}/eth/v1/beacon/blobs/2`)).status).toBe(404);
    await expectOnGrid(l1, 0n);
    // From here on block 0 is left out: a resumed anvil reports its own start time as block 0's timestamp.

    // A graceful restart, then a SIGKILL of anvil and a restart: the same grid, new blocks on it.
    let head = await l1.anvil.client.getBlockNumber();
    await stop(l1, "stop");
    const again = await start();
    expect(again.anvil.resumed).toBe(true);
    expect(again.beacon!.grid).toEqual(grid);
    await blockAfter(again, head);
    await expectOnGrid(again, 1n);

    head = (await blockAfter(again, await again.anvil.client.getBlockNumber())).number;
    await stop(again, "kill");
    const afterKill = await start();
    await blockAfter(afterKill, head);
    await expectOnGrid(afterKill, 1n);

    // Another slot length on the same chain is refused.
    await stop(afterKill, "stop");
    await expect(start(3)).rejects.toBeInstanceOf(SlotGridError);
  }, 240_000);
});
