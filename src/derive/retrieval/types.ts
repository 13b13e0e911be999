/** Types of the retrieval stage: L1 transactions as retrieval sees them, and the batcher data it yields. */

/**
 * An L1 transaction, reduced to what retrieval reads. `decodeL1Transaction` builds one from EIP-2718 bytes; a
 * caller that already decoded the block's transactions may build its own (with `sender` returning the address it
 * recovered).
 */
export interface L1Transaction {
  /** EIP-2718 type: 0 legacy, 1 access list, 2 dynamic fee, 3 blob; other types are never batcher transactions. */
  readonly type: number;
  /** The 20-byte recipient; undefined for a contract creation (and for a type retrieval does not read). */
  readonly to: Uint8Array | undefined;
  /** The calldata (ignored for blob transactions, as the spec says). */
  readonly input: Uint8Array;
  /** The EIP-4844 blob versioned hashes (type 3 only; empty otherwise). */
  readonly blobVersionedHashes: readonly Uint8Array[];
  /** The chain id the transaction is signed for; undefined for a pre-EIP-155 legacy transaction. */
  readonly chainId: bigint | undefined;
  /**
   * The 20-byte address that signed the transaction, or undefined when the signature is invalid. Retrieval calls it
   * only for transactions sent to the batch inbox (recovery costs a curve operation).
   */
  sender(): Uint8Array | undefined;
}

/** Which L1 transactions carry batcher data: sent to `batchInbox`, signed by `batcher`. */
export interface BatcherFilter {
  /** The rollup's batch inbox address (20 bytes). */
  readonly batchInbox: Uint8Array;
  /** The batcher address of the system config at this L1 block (20 bytes). */
  readonly batcher: Uint8Array;
  /**
   * The L1 chain id. When set, a transaction signed for another chain counts as badly signed (as op-node's L1
   * signer does). A transaction in a valid L1 block always has the right chain id, so this is a guard only.
   */
  readonly l1ChainId?: bigint;
}

/** Where one item of batcher data comes from. */
export type BatcherDataRef =
  /** A calldata batcher transaction (types 0-2): its whole input is one item. */
  | { readonly kind: "calldata"; readonly txIndex: number; readonly data: Uint8Array }
  /**
   * One blob of a blob batcher transaction (type 3). `blobIndex` counts every blob hash in the L1 block, in
   * transaction order, non-batcher transactions' included: it is the blob's index in the block's sidecars.
   */
  | {
      readonly kind: "blob";
      readonly txIndex: number;
      readonly blobIndex: number;
      readonly versionedHash: Uint8Array;
    };

/** One item of batcher data, ready for the frame parser (version byte + frames). */
export interface BatcherData {
  readonly data: Uint8Array;
  readonly ref: BatcherDataRef;
}
