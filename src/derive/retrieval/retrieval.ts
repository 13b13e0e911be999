/**
 * L1 retrieval (specs/protocol/derivation.md "L1 Retrieval", ecotone/derivation.md "Blob Retrieval"; op-node's
 * `blob_data_source.go` and `data_source.go`): an L1 block's transactions → the batcher data items, in
 * transaction order.
 *
 * A batcher transaction is of type 0-3, sent to the batch inbox, with a valid signature by the batcher address of
 * the system config at this block. Receipts are not read: a batcher transaction that reverted still carries data
 * (neither the spec nor op-node or kona check the status). A calldata transaction gives its input as one item; a blob
 * transaction gives one item per blob hash (its calldata is ignored), fetched from the blob provider by the blob's
 * index among all blob hashes of the block (every transaction's, batcher or not) and its versioned hash.
 *
 * Fail closed: a blob the provider does not have is DataMissingError (never "no data"); a blob that does not match
 * its versioned hash (checked by KZG unless the provider vouches for its blobs) is BlobMismatchError (critical). A
 * blob that matches but is not valid version-0 rollup data is ignored, as the spec says, and reported to `onDrop`.
 */
import { bytesEqual, toHex } from "../../chain/index.js";
import { DataMissingError, DeriveError, type DroppedInputError } from "../errors.js";
import type { BlobProvider } from "../providers.js";
import { type L1BlockRef } from "../types.js";
import { BLOB_SIZE, InvalidBlobError, decodeBlob } from "../blob/codec.js";
import { BlobMismatchError, type Kzg, loadKzg } from "../blob/kzg.js";
import { decodeL1Transaction } from "./l1-transaction.js";
import type { BatcherData, BatcherDataRef, BatcherFilter, L1Transaction } from "./types.js";

/** Options of `retrieveBatcherData`. */
export interface RetrievalOptions {
  /**
   * Verify every blob by KZG against its versioned hash. Defaults to `!blobs.verified`: required whenever the
   * provider cannot vouch for its data (the enclave's preimage oracle, an untrusted beacon API).
   */
  readonly verify?: boolean;
  /** Invalid blobs (ignored per the spec) are reported here. */
  readonly onDrop?: (error: DroppedInputError) => void;
  /** The KZG instance to verify with; defaults to the process-wide one (`loadKzg()`). */
  readonly kzg?: Kzg;
}

function asTransaction(tx: Uint8Array | L1Transaction): L1Transaction {
  return tx instanceof Uint8Array ? decodeL1Transaction(tx) : tx;
}

function isBatcherTx(tx: L1Transaction, filter: BatcherFilter): boolean {
  if (tx.type > 3 || tx.to === undefined || !bytesEqual(tx.to, filter.batchInbox)) return false;
  if (filter.l1ChainId !== undefined && tx.chainId !== undefined && tx.chainId !== filter.l1ChainId)
    return false;
  const sender = tx.sender(); // only now: recovery is the expensive part
  return sender !== undefined && bytesEqual(sender, filter.batcher);
}

/**
 * The batcher data references of an L1 block's transactions (EIP-2718 bytes, or already decoded), in order.
 * Synchronous and pure: blob contents are not fetched (see `retrieveBatcherData`).
 */
export function findBatcherData(
  transactions: readonly (Uint8Array | L1Transaction)[],
  filter: BatcherFilter,
): BatcherDataRef[] {
  const refs: BatcherDataRef[] = [];
  let blobIndex = 0;
  for (let txIndex = 0; txIndex < transactions.length; txIndex++) {
    const tx = asTransaction(transactions[txIndex]!);
    const hashes = tx.blobVersionedHashes;
    if (!isBatcherTx(tx, filter)) {
      blobIndex += hashes.length;
      continue;
    }
    if (tx.type !== 3) {
      refs.push({ kind: "calldata", txIndex, data: tx.input });
      continue;
    }
    for (const versionedHash of hashes)
      refs.push({ kind: "blob", txIndex, blobIndex: blobIndex++, versionedHash });
  }
  return refs;
}

/**
 * The batcher data of L1 block `block` whose transactions are `transactions`: calldata items as they are, blobs
 * fetched from `blobs`, verified (see RetrievalOptions.verify) and decoded. Invalid blobs are left out (and reported
 * to `onDrop`). Throws DataMissingError for a blob the provider does not supply and BlobMismatchError for one that is
 * not the blob its transaction committed to.
 */
export async function retrieveBatcherData(
  block: L1BlockRef,
  transactions: readonly (Uint8Array | L1Transaction)[],
  filter: BatcherFilter,
  blobs: BlobProvider,
  options: RetrievalOptions = {},
): Promise<BatcherData[]> {
  const refs = findBatcherData(transactions, filter);
  const blobRefs = refs.filter((r): r is Extract<BatcherDataRef, { kind: "blob" }> => r.kind === "blob");
  if (blobRefs.length === 0) return refs.map((ref) => ({ data: (ref as { data: Uint8Array }).data, ref }));

  const verify = options.verify ?? !blobs.verified;
  // Ask for every blob at once (in block order) so a provider can batch or parallelise its requests.
  const [fetched, kzg] = await Promise.all([
    Promise.all(blobRefs.map((ref) => fetchBlob(blobs, block, ref))),
    verify ? (options.kzg ?? loadKzg()) : undefined,
  ]);

  const out: BatcherData[] = [];
  let next = 0;
  for (const ref of refs) {
    if (ref.kind === "calldata") {
      out.push({ data: ref.data, ref });
      continue;
    }
    const blob = fetched[next++]!;
    const context = {
      l1Block: toHex(block.hash),
      blobIndex: ref.blobIndex,
      versionedHash: toHex(ref.versionedHash),
    };
    if (kzg !== undefined) {
      try {
        kzg.verifyBlob(blob, ref.versionedHash);
      } catch (e) {
        if (e instanceof BlobMismatchError)
          throw new BlobMismatchError(e.message, { ...e.details, ...context });
        throw e;
      }
    } else if (blob.length !== BLOB_SIZE) {
      throw new BlobMismatchError(`the provider returned ${blob.length} bytes for a blob`, {
        size: blob.length,
        ...context,
      });
    }
    let data: Uint8Array;
    try {
      data = decodeBlob(blob);
    } catch (e) {
      if (!(e instanceof InvalidBlobError)) throw e;
      options.onDrop?.(new InvalidBlobError(e.reason, e.message, { ...e.details, ...context }));
      continue;
    }
    out.push({ data, ref });
  }
  return out;
}

async function fetchBlob(
  provider: BlobProvider,
  block: L1BlockRef,
  ref: Extract<BatcherDataRef, { kind: "blob" }>,
): Promise<Uint8Array> {
  const details = {
    l1Block: toHex(block.hash),
    blobIndex: ref.blobIndex,
    versionedHash: toHex(ref.versionedHash),
  };
  let blob: Uint8Array | undefined;
  try {
    blob = await provider.blob(block, ref.blobIndex, ref.versionedHash);
  } catch (e) {
    if (e instanceof DeriveError) throw e;
    throw new DataMissingError("retrieval", "the blob provider failed", details, { cause: e });
  }
  if (blob === undefined)
    throw new DataMissingError("retrieval", "the blob provider does not have the blob", details);
  return blob;
}
