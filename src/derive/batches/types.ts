/**
 * Batch types (derivation.md "Batch format", delta/span-batches.md, isthmus/derivation.md "Span Batch Updates").
 * Byte fields are Uint8Array, u64/u256 quantities bigint, and counts and indices number.
 */

/** Batch type byte of a singular batch. */
export const SINGULAR_BATCH_TYPE = 0;
/** Batch type byte of a span batch. */
export const SPAN_BATCH_TYPE = 1;
/** MAX_SPAN_BATCH_ELEMENT_COUNT: the cap on a span batch's blocks and on its total transactions. */
export const MAX_SPAN_BATCH_ELEMENT_COUNT = 10_000_000;

/** The inputs of one L2 block, whichever batch type carried them. */
export interface BlockBatch {
  /** L2 block timestamp (seconds). */
  readonly timestamp: bigint;
  /** L1 origin (epoch) block number. */
  readonly epochNumber: bigint;
  /** L1 origin (epoch) block hash, 32 bytes. */
  readonly epochHash: Uint8Array;
  /** The block's sequenced transactions, each as EIP-2718 bytes (deposits are never in batches). */
  readonly transactions: readonly Uint8Array[];
}

/** Type 0x00: `rlp([parent_hash, epoch_number, epoch_hash, timestamp, [tx, ...]])`. */
export interface SingularBatch extends BlockBatch {
  readonly type: "singular";
  /** Parent L2 block hash, 32 bytes. */
  readonly parentHash: Uint8Array;
}

/** Span-batch transaction types: legacy, EIP-2930, EIP-1559 and (Isthmus) EIP-7702. */
export type SpanBatchTxType = 0 | 1 | 2 | 4;

/**
 * One transaction of a span batch, without the chain ID (it comes from the rollup config) and with its
 * signature's `v` split into `yParity` and, for legacy transactions, `protected` (EIP-155).
 */
export interface SpanBatchTransaction {
  readonly type: SpanBatchTxType;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  /** Recipient, 20 bytes; null for a contract creation (never for type 4). */
  readonly to: Uint8Array | null;
  /** Signature r and s as 32-byte big-endian words. */
  readonly r: Uint8Array;
  readonly s: Uint8Array;
  readonly yParity: 0 | 1;
  /** EIP-155 replay protection: meaningful for legacy transactions, always true for typed ones. */
  readonly protected: boolean;
  /**
   * The `tx_datas` element exactly as the batch carries it: `rlp([value, gasPrice, data])` for legacy, or
   * the type byte followed by `rlp([value, ..., data, access_list(, authorization_list)])` for types 1, 2, 4.
   */
  readonly data: Uint8Array;
}

/** Type 0x01, as encoded: prefix and payload of delta/span-batches.md. */
export interface SpanBatch {
  readonly type: "span";
  /** `span_start.timestamp - genesis.l2_time`. */
  readonly relTimestamp: bigint;
  /** L1 origin number of the last block. */
  readonly l1OriginNumber: bigint;
  /** First 20 bytes of the first block's parent hash. */
  readonly parentCheck: Uint8Array;
  /** First 20 bytes of the last block's L1 origin hash. */
  readonly l1OriginCheck: Uint8Array;
  /** One entry (0 or 1) per block: 1 when the block's L1 origin differs from its parent's. */
  readonly originBits: Uint8Array;
  /** Number of transactions of each block (same length as originBits). */
  readonly blockTxCounts: readonly number[];
  /** All transactions of the span, in block order. */
  readonly transactions: readonly SpanBatchTransaction[];
}

export type Batch = SingularBatch | SpanBatch;

/** Chain parameters a span batch needs to become blocks (from the rollup config). */
export interface SpanBatchContext {
  /** `genesis.l2_time`. */
  readonly genesisTimestamp: bigint;
  /** L2 block time in seconds. */
  readonly blockTime: bigint;
  /** L2 chain ID (restores `v` and the typed transactions' chain_id). */
  readonly chainId: bigint;
}

/** One block of a span batch in derived form: no hashes yet (the batch carries only the last origin's prefix). */
export interface SpanBatchBlock {
  readonly timestamp: bigint;
  readonly epochNumber: bigint;
  readonly transactions: readonly Uint8Array[];
}

/**
 * Resolves the hash of the canonical L1 block with the given number, as the batch validation knows it;
 * `undefined` when the caller does not hold that block.
 */
export type L1OriginHashResolver = (l1BlockNumber: bigint) => Uint8Array | undefined;

/** A block the batcher puts into a span batch (a singular batch's fields; only the first parentHash is used). */
export interface SpanBatchSourceBlock {
  readonly parentHash: Uint8Array;
  readonly epochNumber: bigint;
  readonly epochHash: Uint8Array;
  readonly timestamp: bigint;
  readonly transactions: readonly Uint8Array[];
}
