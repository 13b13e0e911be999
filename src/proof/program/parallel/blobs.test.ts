/**
 * A request's blobs checked on the block workers ahead of derivation (checkBlobsOnPool): a blob whose field elements
 * have its commitment is remembered, and derivation's read of it (readBlob) then computes no commitment; a blob with
 * a forged element, or one the witness lacks an element of, is not remembered, and readBlob refuses it as it does
 * without workers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preimage } from "../../../../generated/protocol/index.js";
import { MissingPreimageError, keccak256, keccak256Key, toHex } from "../../../chain/index.js";
import { encodeBlob, type Kzg, loadKzg, versionedHash } from "../../../derive/index.js";
import { countingKzg } from "../../../derive/blob/counting-kzg.test-support.js";
import { PreimageTable } from "../../preimages/index.js";
import { blobPreimages, readBlob, witnessedBlobs } from "../blob.js";
import { InvalidWitnessError } from "../errors.js";
import { checkBlobsOnPool } from "./blobs.js";
import { BlockPool } from "./pool.js";

const pool = new BlockPool({ workers: 2 });
afterAll(() => pool.close());

interface TestBlob {
  readonly versionedHash: Uint8Array;
  readonly preimages: Preimage[];
}

let kzg: Kzg;
beforeAll(async () => {
  kzg = await loadKzg();
}, 180_000);

/** An OP-encoded blob of `text` with its commitment, as a witness carries it. */
function blobOf(text: string): TestBlob & { readonly blob: Uint8Array } {
  const blob = encodeBlob(new TextEncoder().encode(text));
  const commitment = kzg.commitment(blob);
  const hash = versionedHash(commitment);
  return { versionedHash: hash, blob, preimages: blobPreimages(hash, commitment, blob) };
}

describe("checkBlobsOnPool: the request's blobs checked on the block workers", { timeout: 180_000 }, () => {
  it("remembers the blobs whose elements have their commitment; derivation refuses the others as without workers", async () => {
    const good = blobOf("a batcher's frames");
    const forged = blobOf("another batcher's frames");
    // One field element changed (its key kept): the elements no longer have the commitment.
    const at = 1 + 17;
    const element = forged.preimages[at]![1].slice();
    element[31]! ^= 1;
    forged.preimages[at] = [forged.preimages[at]![0], element];
    const incomplete = blobOf("a third batcher's frames");
    incomplete.preimages.splice(1 + 4095, 1);
    const filler: Preimage[] = Array.from({ length: 50 }, (_, i) => {
      const value = new Uint8Array([i, 1, 2, 3]);
      return [keccak256Key(keccak256(value)), value];
    });
    const table = PreimageTable.fromPreimages([
      ...filler,
      ...good.preimages,
      ...forged.preimages,
      ...incomplete.preimages,
    ]);
    expect(witnessedBlobs(table, 256).map((b) => toHex(b.versionedHash))).toEqual(
      [good, forged, incomplete].map((b) => toHex(b.versionedHash)),
    );

    const { kzg: memo, commitments } = await countingKzg();
    expect(await checkBlobsOnPool(pool, table, undefined, memo)).toEqual({ blobs: 3, checked: 1 });
    expect(commitments()).toBe(0);
    // The checked blob is read without a commitment computed on this thread.
    expect(toHex(readBlob(table, good.versionedHash, memo))).toBe(toHex(good.blob));
    expect(commitments()).toBe(0);
    // The forged one is checked in full and refused; the incomplete one lacks an element.
    expect(() => readBlob(table, forged.versionedHash, memo)).toThrow(InvalidWitnessError);
    expect(commitments()).toBe(1);
    expect(() => readBlob(table, incomplete.versionedHash, memo)).toThrow(MissingPreimageError);
    expect(commitments()).toBe(1);
  });

  it("takes at most the given number of blobs, and none from a request without blobs", async () => {
    const blobs = [blobOf("one"), blobOf("two"), blobOf("three")];
    const table = PreimageTable.fromPreimages(blobs.flatMap((b) => b.preimages));
    expect(witnessedBlobs(table, 2).map((b) => toHex(b.versionedHash))).toEqual(
      blobs.slice(0, 2).map((b) => toHex(b.versionedHash)),
    );
    const value = new Uint8Array([9]);
    const none = PreimageTable.fromPreimages([[keccak256Key(keccak256(value)), value]]);
    expect(await checkBlobsOnPool(pool, none)).toEqual({ blobs: 0, checked: 0 });
  });
});
