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
