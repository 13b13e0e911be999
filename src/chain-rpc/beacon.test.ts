/**
 * BeaconBlobProvider against a local server that answers in anvil's format for `GET /eth/v1/beacon/blobs/{block_id}`
 * (`{"execution_optimistic":false,"finalized":false,"data":["0x…"]}`, 404 for an unknown block). The blob is a real
 * OP Stack blob (derive's encoder) with its real KZG versioned hash; the anvil test (anvil.test.ts) reads one that
 * anvil itself serves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toHex } from "../chain/index.js";
import { BLOB_SIZE, type Kzg, type L1BlockRef, encodeBlob, loadKzg, versionedHash } from "../derive/index.js";
import {
  BeaconBlobProvider,
  DataMismatchError,
  EndpointUnavailableError,
  MalformedResponseError,
} from "./index.js";
import { type TamperProxy, startTamperProxy } from "./proxy.test-support.js";

let proxy: TamperProxy;
let kzg: Kzg;
let blob: Uint8Array;
let hash: Uint8Array;
const block: L1BlockRef = {
  number: 7n,
  hash: Uint8Array.from({ length: 32 }, (_, i) => i + 1),
  parentHash: new Uint8Array(32),
  timestamp: 1_700_000_000n,
};

const envelope = (data: unknown[]): { status: number; body: string } => ({
  status: 200,
  body: JSON.stringify({ execution_optimistic: false, finalized: false, data }),
});

beforeAll(async () => {
  kzg = await loadKzg();
  blob = encodeBlob(new TextEncoder().encode("batcher frames would be here"));
  hash = versionedHash(kzg.commitment(blob));
  proxy = await startTamperProxy("");
}, 60_000);

afterAll(async () => {
  await proxy?.close();
});

describe("BeaconBlobProvider (anvil's route)", () => {
  it("asks by execution block hash and versioned hash and returns the 131072 bytes", async () => {
    proxy.get = async () => envelope([toHex(blob)]);
    const provider = new BeaconBlobProvider(`${proxy.url}/`);
    expect(provider.verified).toBe(false);
    const got = await provider.blob(block, 0, hash);
    expect(got).toEqual(blob);
    expect(got!.length).toBe(BLOB_SIZE);
    expect(proxy.paths.at(-1)).toBe(
      `/eth/v1/beacon/blobs/${toHex(block.hash)}?versioned_hashes=${toHex(hash)}`,
    );
  });

  it("an unknown block (404) or no blob for the hash is undefined", async () => {
    const provider = new BeaconBlobProvider(proxy.url);
    proxy.get = async () => ({
      status: 404,
      body: JSON.stringify({ code: 404, message: "Block not found" }),
    });
    expect(await provider.blob(block, 0, hash)).toBeUndefined();
    proxy.get = async () => envelope([]);
    expect(await provider.blob(block, 0, hash)).toBeUndefined();
  });

  it("refuses a short or long blob, bad hex, two blobs, a body without data, an error status", async () => {
    const provider = new BeaconBlobProvider(proxy.url);
    const hex = toHex(blob);
    for (const data of [
      [hex.slice(0, -2)],
      [`${hex}00`],
      [`${hex.slice(0, -2)}zz`],
      [hex.slice(2)],
      [hex, hex],
    ]) {
      proxy.get = async () => envelope(data);
      const error = await provider.blob(block, 0, hash).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MalformedResponseError);
    }
    proxy.get = async () => ({ status: 200, body: "{}" });
    expect(await provider.blob(block, 0, hash).catch((e: unknown) => e)).toBeInstanceOf(
      MalformedResponseError,
    );
    proxy.get = async () => ({ status: 200, body: `{"data":["0x${"00".repeat(BLOB_SIZE * 2)}"]}` });
    const big = await provider.blob(block, 0, hash).catch((e: unknown) => e);
    expect(big).toBeInstanceOf(MalformedResponseError);
    expect((big as MalformedResponseError).details.limit).toBeDefined();
    proxy.get = async () => ({ status: 503, body: "" });
    const down = await provider.blob(block, 0, hash).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(EndpointUnavailableError);
    expect((down as EndpointUnavailableError).details.status).toBe(503);
  });

  it("with a Kzg instance it vouches: a blob with one flipped byte is a mismatch", async () => {
    const provider = new BeaconBlobProvider(proxy.url, { kzg });
    expect(provider.verified).toBe(true);
    proxy.get = async () => envelope([toHex(blob)]);
    expect(await provider.blob(block, 0, hash)).toEqual(blob);
    const forged = Uint8Array.from(blob);
    forged[1000]! ^= 0x01;
    proxy.get = async () => envelope([toHex(forged)]);
    const error = await provider.blob(block, 0, hash).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataMismatchError);
    expect((error as DataMismatchError).subject).toBe("blob-hash");
    // Without one, the same forged blob is returned for derivation to check (verified: false).
    expect(await new BeaconBlobProvider(proxy.url).blob(block, 0, hash)).toEqual(forged);
  });
});

describe("BeaconBlobProvider (standard routes, by slot)", () => {
  const GENESIS = 1_699_999_940n;
  // 1_700_000_000 is 60 s after genesis: slot 5 of 12 s.
  const answerClock =
    (spec: boolean) =>
    async (path: string): Promise<{ status: number; body: string } | undefined> => {
      if (path === "/eth/v1/beacon/genesis")
        return { status: 200, body: JSON.stringify({ data: { genesis_time: String(GENESIS) } }) };
      if (path === "/eth/v1/config/spec")
        return spec
          ? { status: 200, body: JSON.stringify({ data: { SECONDS_PER_SLOT: "12", SLOTS_PER_EPOCH: "32" } }) }
          : { status: 404, body: "{}" };
      return undefined;
    };
  const sidecar = (commitmentOf: Uint8Array) => ({
    index: "0",
    blob: toHex(blob),
    kzg_commitment: toHex(kzg.commitment(commitmentOf)),
    kzg_proof: `0x${"00".repeat(48)}`,
  });

  it("computes the slot from genesis and SECONDS_PER_SLOT and asks /eth/v1/beacon/blobs/{slot} (Fulu)", async () => {
    const clock = answerClock(true);
    proxy.get = async (path) => (await clock(path)) ?? envelope([toHex(blob)]);
    const provider = new BeaconBlobProvider(proxy.url, { routes: "slot", kzg });
    const before = proxy.paths.length;
    expect(await provider.blob(block, 0, hash)).toEqual(blob);
    expect(proxy.paths.slice(before)).toEqual([
      "/eth/v1/beacon/genesis",
      "/eth/v1/config/spec",
      `/eth/v1/beacon/blobs/5?versioned_hashes=${toHex(hash)}`,
    ]);
    // The clock is asked once.
    await provider.blob(block, 0, hash);
    expect(proxy.paths.slice(before + 3)).toEqual([`/eth/v1/beacon/blobs/5?versioned_hashes=${toHex(hash)}`]);
  });

  it("falls back to blob_sidecars/{slot} on a node before Fulu, and picks the sidecar by its commitment", async () => {
    const clock = answerClock(true);
    let sidecars = [sidecar(blob)];
    proxy.get = async (path) => {
      const known = await clock(path);
      if (known !== undefined) return known;
      if (path.startsWith("/eth/v1/beacon/blobs/")) return { status: 400, body: "{}" };
      return { status: 200, body: JSON.stringify({ data: sidecars }) };
    };
    const provider = new BeaconBlobProvider(proxy.url, { routes: "slot" });
    const before = proxy.paths.length;
    expect(await provider.blob(block, 0, hash)).toEqual(blob);
    expect(proxy.paths.slice(before).at(-1)).toBe("/eth/v1/beacon/blob_sidecars/5?indices=0");
    // A sidecar whose commitment has another versioned hash is not the blob asked for.
    const other = encodeBlob(new TextEncoder().encode("another blob"));
    sidecars = [sidecar(other)];
    expect(await provider.blob(block, 0, hash)).toBeUndefined();
    // After one refusal the Fulu route is not asked again.
    expect(proxy.paths.slice(before).filter((p) => p.startsWith("/eth/v1/beacon/blobs/"))).toHaveLength(1);
  });

  it("a block off the slot grid, or a node without a clock, is refused in slot mode and read by hash in auto mode", async () => {
    const offGrid = { ...block, timestamp: block.timestamp + 1n };
    proxy.get = async (path) => (await answerClock(true)(path)) ?? envelope([toHex(blob)]);
    const slotOnly = new BeaconBlobProvider(proxy.url, { routes: "slot" });
    expect(await slotOnly.blob(offGrid, 0, hash).catch((e: unknown) => e)).toBeInstanceOf(
      MalformedResponseError,
    );
    const auto = new BeaconBlobProvider(proxy.url, { routes: "auto" });
    expect(await auto.blob(offGrid, 0, hash)).toEqual(blob);
    expect(proxy.paths.at(-1)).toBe(
      `/eth/v1/beacon/blobs/${toHex(block.hash)}?versioned_hashes=${toHex(hash)}`,
    );
    // anvil: a genesis route but no spec route.
    proxy.get = async (path) => (await answerClock(false)(path)) ?? envelope([toHex(blob)]);
    const anvil = new BeaconBlobProvider(proxy.url, { routes: "auto" });
    expect(await anvil.blob(block, 0, hash)).toEqual(blob);
    expect(proxy.paths.at(-1)).toBe(
      `/eth/v1/beacon/blobs/${toHex(block.hash)}?versioned_hashes=${toHex(hash)}`,
    );
    // The same node with SECONDS_PER_SLOT given by the operator is read by slot.
    const configured = new BeaconBlobProvider(proxy.url, { routes: "slot", secondsPerSlot: 12 });
    expect(await configured.blob(block, 0, hash)).toEqual(blob);
    expect(proxy.paths.at(-1)).toBe(`/eth/v1/beacon/blobs/5?versioned_hashes=${toHex(hash)}`);
  });

  it("a blob that does not match its versioned hash is refused by slot too", async () => {
    const forged = Uint8Array.from(blob);
    forged[7]! ^= 0x01;
    proxy.get = async (path) => (await answerClock(true)(path)) ?? envelope([toHex(forged)]);
    const error = await new BeaconBlobProvider(proxy.url, { routes: "slot", kzg })
      .blob(block, 0, hash)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataMismatchError);
    expect((error as DataMismatchError).subject).toBe("blob-hash");
  });
});
