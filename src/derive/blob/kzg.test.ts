import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { sha256 } from "@noble/hashes/sha2.js";
import { beforeAll, describe, expect, it } from "vitest";
import { DeriveError } from "../errors.js";
import { BLOB_SIZE, encodeBlob } from "./codec.js";
import { countingKzg } from "./counting-kzg.test-support.js";
import { DERIVE_FIXTURES_DIR } from "./fixture-paths.test-support.js";
import { BlobMismatchError, Kzg, blobCommitment, loadKzg, verifyBlob, versionedHash } from "./kzg.js";

/**
 * Five real blob sidecars (Goerli beacon block 7422094): a beacon API `blob_sidecars` response copied from
 * ethereum-optimism/optimism @ d317e96c2add, op-service/eth/testdata/eth_v1_beacon_blob_sidecars_7422094_goerli.json
 * (gzipped in ../shared/fixtures/derive/, see its README).
 */
interface Sidecar {
  index: number;
  blob: Uint8Array;
  commitment: Uint8Array;
  proof: Uint8Array;
}
function loadSidecars(): Sidecar[] {
  const raw = gunzipSync(readFileSync(`${DERIVE_FIXTURES_DIR}/goerli-blob-sidecars-7422094.json.gz`));
  const json = JSON.parse(raw.toString("utf8")) as {
    data: { index: string; blob: string; kzg_commitment: string; kzg_proof: string }[];
  };
  const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), "hex"));
  return json.data.map((s) => ({
    index: Number(s.index),
    blob: bytes(s.blob),
    commitment: bytes(s.kzg_commitment),
    proof: bytes(s.kzg_proof),
  }));
}
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

// Committing to, or proving, the five sidecars is several seconds of CPU on a calm machine and over a minute on a
// loaded one (two tests timed out at the default 60 s beside the other KZG file): a generous bound per test.
describe("KZG verification of blobs", { timeout: 300_000 }, () => {
  let kzg: Kzg;
  let sidecars: Sidecar[];
  beforeAll(async () => {
    sidecars = loadSidecars();
    kzg = await loadKzg();
  }, 180_000);

  it("loads once per process", async () => {
    expect(await loadKzg()).toBe(kzg);
  });

  it("versionedHash is 0x01 ‖ sha256(commitment)[1:]", () => {
    // EIP-4844 example: the commitment of the all-zero blob is the point at infinity (0xc0 ‖ 47 zero bytes); its
    // versioned hash is the well-known 0x010657f3...
    const infinity = new Uint8Array(48);
    infinity[0] = 0xc0;
    expect(hex(versionedHash(infinity))).toBe(
      "010657f37554c781402a22917dee2f75def7ab966d7b770905398eba3c444014",
    );
    expect(() => versionedHash(new Uint8Array(47))).toThrow(BlobMismatchError);
  });

  it("recomputes the commitment of each of the five real Goerli sidecars", () => {
    expect(sidecars.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    for (const s of sidecars) {
      expect(s.blob.length).toBe(BLOB_SIZE);
      expect(hex(kzg.commitment(s.blob))).toBe(hex(s.commitment));
      const returned = kzg.verifyBlob(s.blob, versionedHash(s.commitment));
      expect(hex(returned)).toBe(hex(s.commitment));
    }
  });

  it("verifies each sidecar's KZG proof, and recomputes it", () => {
    for (const s of sidecars) {
      expect(kzg.verifyProof(s.blob, s.commitment, s.proof)).toBe(true);
      expect(hex(kzg.proof(s.blob, s.commitment))).toBe(hex(s.proof));
    }
    const [a, b] = sidecars as [Sidecar, Sidecar];
    expect(kzg.verifyProof(a.blob, a.commitment, b.proof)).toBe(false);
    expect(kzg.verifyProof(a.blob, b.commitment, a.proof)).toBe(false);
    expect(kzg.verifyProof(a.blob.subarray(1), a.commitment, a.proof)).toBe(false);
  });

  it("refuses a blob with one flipped byte, and a blob fetched under another blob's hash", () => {
    for (const [i, s] of sidecars.entries()) {
      const tampered = s.blob.slice();
      const at = 1000 + i * 20_000;
      tampered[at]! ^= 0x01;
      let err: unknown;
      try {
        kzg.verifyBlob(tampered, versionedHash(s.commitment));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(BlobMismatchError);
      expect(err).toBeInstanceOf(DeriveError);
      expect((err as BlobMismatchError).kind).toBe("critical");
      expect((err as BlobMismatchError).stage).toBe("blob");
      expect(kzg.verifyProof(tampered, s.commitment, s.proof)).toBe(false);
    }
    const [a, b] = sidecars as [Sidecar, Sidecar];
    expect(() => kzg.verifyBlob(a.blob, versionedHash(b.commitment))).toThrow(BlobMismatchError);
  });

  it("refuses malformed blobs and hashes instead of committing to them", () => {
    const s = sidecars[0]!;
    const hash = versionedHash(s.commitment);
    expect(() => kzg.verifyBlob(s.blob.subarray(0, BLOB_SIZE - 1), hash)).toThrow(BlobMismatchError);
    expect(() => kzg.verifyBlob(new Uint8Array(BLOB_SIZE + 32), hash)).toThrow(BlobMismatchError);
    const nonCanonical = new Uint8Array(BLOB_SIZE).fill(0xff); // every element above the BLS modulus
    expect(() => kzg.commitment(nonCanonical)).toThrow(BlobMismatchError);
    const wrongVersion = hash.slice();
    wrongVersion[0] = 0x02;
    expect(() => kzg.verifyBlob(s.blob, wrongVersion)).toThrow(BlobMismatchError);
    expect(() => kzg.verifyBlob(s.blob, hash.subarray(0, 31))).toThrow(BlobMismatchError);
  });

  it("accepts the same bytes under a verified hash without a new commitment, and checks any other bytes in full", async () => {
    const { kzg: memo, commitments } = await countingKzg();
    const s = sidecars[0]!;
    const hash = versionedHash(s.commitment);
    expect(hex(memo.verifyBlob(s.blob, hash))).toBe(hex(s.commitment));
    expect(hex(memo.verifyBlob(s.blob.slice(), hash))).toBe(hex(s.commitment));
    expect(commitments()).toBe(1);
    const tampered = s.blob.slice();
    tampered[4096]! ^= 0x01;
    expect(() => memo.verifyBlob(tampered, hash)).toThrow(BlobMismatchError);
    expect(commitments()).toBe(2);
    // The refused bytes are not remembered, and the verified ones still are.
    expect(() => memo.verifyBlob(tampered, hash)).toThrow(BlobMismatchError);
    expect(hex(memo.verifyBlob(s.blob, hash))).toBe(hex(s.commitment));
    expect(commitments()).toBe(3);
    // Verified bytes under another versioned hash are checked in full, and refused.
    expect(() => memo.verifyBlob(s.blob, versionedHash(sidecars[1]!.commitment))).toThrow(BlobMismatchError);
    expect(commitments()).toBe(4);
  });

  it("rememberChecked: the bytes another thread checked are a hit; any other bytes, or a commitment not the hash's, are not", async () => {
    const { kzg: memo, commitments } = await countingKzg();
    const [s, other] = [sidecars[0]!, sidecars[1]!];
    const hash = versionedHash(s.commitment);
    memo.rememberChecked(hash, s.commitment, sha256(s.blob));
    expect(hex(memo.verifyBlob(s.blob.slice(), hash))).toBe(hex(s.commitment));
    expect(commitments()).toBe(0);
    const tampered = s.blob.slice();
    tampered[64]! ^= 0x01;
    expect(() => memo.verifyBlob(tampered, hash)).toThrow(BlobMismatchError);
    expect(commitments()).toBe(1);
    // A commitment that is not the versioned hash's, or a digest that is not one, is refused and not remembered.
    const otherHash = versionedHash(other.commitment);
    expect(() => memo.rememberChecked(otherHash, s.commitment, sha256(s.blob))).toThrow(BlobMismatchError);
    expect(() => memo.rememberChecked(otherHash, other.commitment, new Uint8Array(31))).toThrow(
      BlobMismatchError,
    );
    expect(() => memo.verifyBlob(s.blob, otherHash)).toThrow(BlobMismatchError);
    expect(commitments()).toBe(2);
  });

  it("verifies an OP-encoded blob through the convenience functions", async () => {
    const blob = encodeBlob(new TextEncoder().encode("batcher frames go here"));
    const commitment = await blobCommitment(blob);
    expect(hex(await verifyBlob(blob, versionedHash(commitment)))).toBe(hex(commitment));
  });
});
