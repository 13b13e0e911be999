/**
 * Where derivation's data comes from (docs/derive.md, "Providers"). One interface per source, so the same
 * pipeline runs over JSON-RPC (node, host), over content-addressed preimages (enclave) and over memory (tests).
 *
 * The rule every implementation keeps: data that cannot be supplied is an error, never an empty answer. A
 * provider throws DataMissingError (or returns undefined, and the stage throws it); a withheld receipt list or
 * blob is never read as "no receipts" or "no data", because a host that withholds data could otherwise steer
 * derivation to a chain of its choosing.
 */
import type { BlockHeader, Receipt } from "../chain/index.js";
import type { L1BlockRef } from "./types.js";

/** L1 execution data by block. Headers are checked against the hash they were asked by (see `L1Traversal`). */
export interface L1Provider {
  /** The header whose hash is `hash`; undefined when unknown. */
  headerByHash(hash: Uint8Array): Promise<BlockHeader | undefined>;
  /** The canonical header at `number` as the provider sees it; undefined when unknown. */
  headerByNumber(number: bigint): Promise<BlockHeader | undefined>;
  /** The block's transactions, EIP-2718 encoded, in block order; undefined when unknown. */
  transactionsByHash(blockHash: Uint8Array): Promise<readonly Uint8Array[] | undefined>;
  /** The block's receipts in block order; undefined when unknown (never `[]` for a block that has transactions). */
  receiptsByHash(blockHash: Uint8Array): Promise<readonly Receipt[] | undefined>;
}

/** EIP-4844 blobs of batcher transactions. */
export interface BlobProvider {
  /**
   * The 131,072-byte blob with versioned hash `versionedHash`, the `index`-th blob hash of L1 block `block`
   * (counting every blob hash in the block, in transaction order); undefined when unknown.
   */
  blob(block: L1BlockRef, index: number, versionedHash: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * True when the provider has checked every blob it returns against its versioned hash (KZG commitment
   * recomputed from the data). Otherwise derivation verifies each blob itself; the enclave's provider says false.
   */
  readonly verified: boolean;
}

/** An L2 block of the agreed chain. */
export interface L2Block {
  readonly hash: Uint8Array;
  readonly header: BlockHeader;
  /** EIP-2718 encodings in block order; the first is the L1 info deposit. */
  readonly transactions: readonly Uint8Array[];
}

/**
 * The agreed L2 chain, up to the agreed head (derivation never asks past it). Derivation reads each block's L1
 * origin, sequence number and system config from the block itself (its L1 info deposit, gas limit and
 * extraData), so a provider only serves blocks; the hash must be the header's (checked).
 */
export interface L2Provider {
  /** The L2 block at `number`; undefined when unknown. */
  blockByNumber(number: bigint): Promise<L2Block | undefined>;
}
