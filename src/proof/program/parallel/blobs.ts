/**
 * A request's blobs checked on the block workers before derivation reads them (docs/enclave.md "Parallel
 * execution"). Derivation checks each blob it reads against its versioned hash by computing the blob's KZG
 * commitment (tens of milliseconds of CPU each on c-kzg), one after another on the thread that derives. Here the
 * workers compute the commitments of the blobs the witness carries, one job per blob, and the main thread's Kzg
 * remembers each one a worker checked (Kzg.rememberChecked): derivation then accepts exactly those bytes on their
 * sha256, and checks in full any blob not checked here. Nothing is refused here.
 */
import { type Kzg, loadKzg, VERIFIED_BLOBS_KEPT } from "../../../derive/index.js";
import type { PreimageTable } from "../../preimages/index.js";
import { witnessedBlobs } from "../blob.js";
import type { BlockPool } from "./pool.js";

/** How many of a request's blobs were found and how many a worker checked. */
export interface BlobsChecked {
  readonly blobs: number;
  readonly checked: number;
}

/**
 * Checks the blobs `table` carries (at most VERIFIED_BLOBS_KEPT, the number a Kzg remembers) on `pool`'s workers
 * and remembers each checked one in `kzg` (default: this thread's, the one derivation uses).
 */
export async function checkBlobsOnPool(
  pool: BlockPool,
  table: PreimageTable,
  signal?: AbortSignal,
  kzg?: Kzg,
): Promise<BlobsChecked> {
  const blobs = witnessedBlobs(table, VERIFIED_BLOBS_KEPT);
  if (blobs.length === 0) return { blobs: 0, checked: 0 };
  const digests = await pool.checkBlobs(
    table.toShared(),
    blobs.map((blob) => blob.commitment),
    signal,
  );
  const remembering = kzg ?? (await loadKzg());
  let checked = 0;
  for (const [i, blob] of blobs.entries()) {
    const digest = digests[i];
    if (digest === undefined) continue;
    remembering.rememberChecked(blob.versionedHash, blob.commitment, digest);
    checked++;
  }
  return { blobs: blobs.length, checked };
}
