/**
 * Blob transactions on the devnet L1: sent with viem (sidecars built through src/devnet/l1/kzg.ts),
 * served back by anvil's beacon route `GET /eth/v1/beacon/blobs/{block}?versioned_hashes=…`, decoded with
 * src/derive's blob codec and checked against their versioned hashes by KZG; still served after a restart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesToHex, type Hex, hexToBytes, parseGwei } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_BATCH_INBOX } from "../../contracts/index.js";
import {
  BLOB_SIZE,
  decodeBlob,
  encodeBlob,
  type Kzg,
  loadKzg,
  MAX_BLOB_DATA_SIZE,
  versionedHash,
} from "../../src/derive/index.js";
import { type Anvil, startAnvil } from "../../src/devnet/l1/anvil.js";
import { viemKzg } from "../../src/devnet/l1/kzg.js";
import { walletOf } from "./support.js";

const stateDir = mkdtempSync(join(tmpdir(), "anvil-blobs-"));
const running: Anvil[] = [];
let kzg: Kzg;
// The process-wide Kzg, loaded once (its trusted setup parses in about 0.1 s of CPU).
beforeAll(async () => {
  kzg = await loadKzg();
}, 300_000);
afterAll(async () => {
  await Promise.all(running.map((a) => a.stop()));
  rmSync(stateDir, { recursive: true, force: true });
});

/** Deterministic pseudo-random bytes (xorshift32), so a decoding error cannot hide behind repeated content. */
function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function beaconBlobs(anvil: Anvil, blockId: string, hashes: readonly Hex[]): Promise<Uint8Array[]> {
  const query = hashes.length === 0 ? "" : `?versioned_hashes=${hashes.join(",")}`;
  const response = await fetch(`${anvil.beaconUrl}/eth/v1/beacon/blobs/${blockId}${query}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: Hex[] };
  return body.data.map((blob) => hexToBytes(blob));
}

describe("blob transactions and anvil's beacon blob route", () => {
  it("serves each blob by block hash and versioned hash; it decodes to the data and matches its KZG commitment", async () => {
    const anvil = await startAnvil({ mining: { mode: "auto" }, stateDir });
    running.push(anvil);
    const payloads = [bytes(MAX_BLOB_DATA_SIZE, 0x9e3779b9), bytes(1000, 12345)];
    const blobs = payloads.map((p) => encodeBlob(p));
    expect(blobs.every((b) => b.length === BLOB_SIZE)).toBe(true);

    const hash = await walletOf(anvil, 3).sendTransaction({
      to: DEVNET_BATCH_INBOX,
      blobs: blobs.map((b) => bytesToHex(b)),
      kzg: viemKzg(kzg),
      maxFeePerBlobGas: parseGwei("1"),
    });
    const receipt = await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe("success");
    expect(receipt.blobGasUsed).toBe(2n * 131_072n);
    const tx = await anvil.client.getTransaction({ hash });
    expect(tx.type).toBe("eip4844");
    const hashes = tx.blobVersionedHashes!;
    expect(hashes).toHaveLength(2);

    for (const [i, versioned] of hashes.entries()) {
      const [served, ...rest] = await beaconBlobs(anvil, receipt.blockHash, [versioned]);
      expect(rest).toHaveLength(0);
      expect(bytesToHex(decodeBlob(served!))).toBe(bytesToHex(payloads[i]!));
      // The blob's KZG commitment hashes to the versioned hash the transaction committed to.
      expect(bytesToHex(versionedHash(kzg.commitment(served!)))).toBe(versioned);
      expect(bytesToHex(kzg.verifyBlob(served!, hexToBytes(versioned)))).toBe(
        bytesToHex(kzg.commitment(blobs[i]!)),
      );
    }
    // Without versioned hashes: every blob of the block, in order; by block number too.
    const all = await beaconBlobs(anvil, String(receipt.blockNumber), []);
    expect(all.map((b) => bytesToHex(decodeBlob(b)))).toEqual(payloads.map((p) => bytesToHex(p)));
    // The beacon genesis route names the L1 genesis time.
    const genesis = (await (await fetch(`${anvil.beaconUrl}/eth/v1/beacon/genesis`)).json()) as {
      data: { genesis_time: string };
    };
    expect(BigInt(genesis.data.genesis_time)).toBe(
      (await anvil.client.getBlock({ blockNumber: 0n })).timestamp,
    );

    // The blobs are part of the persisted state: a restarted L1 serves them.
    await anvil.stop();
    running.splice(0);
    const restarted = await startAnvil({ mining: { mode: "auto" }, stateDir });
    running.push(restarted);
    expect(restarted.resumed).toBe(true);
    const [again] = await beaconBlobs(restarted, receipt.blockHash, [hashes[1]!]);
    expect(bytesToHex(decodeBlob(again!))).toBe(bytesToHex(payloads[1]!));
  }, 180_000);
});
