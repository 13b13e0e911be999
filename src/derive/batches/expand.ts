/**
 * Span batches in derived form (delta/span-batches.md "How derivation works with span batches") and the
 * batcher's reverse: building a span batch from consecutive blocks.
 *   timestamp(i) = genesis.l2_time + rel_timestamp + i * block_time
 *   epoch(last)  = l1_origin_num; epoch(i - 1) = epoch(i) - origin_bits[i] for i > 0
 * (origin_bits[0] says whether the first block starts a new epoch relative to its parent; it does not move
 * the epoch numbers within the span.)
 */
import { DataMissingError, DroppedInputError } from "../errors.js";
import { BatchEncodeError } from "./errors.js";
import { signedToSpanTx, spanTxsToSigned } from "./span-tx.js";
import {
  type BlockBatch,
  type L1OriginHashResolver,
  MAX_SPAN_BATCH_ELEMENT_COUNT,
  type SpanBatch,
  type SpanBatchBlock,
  type SpanBatchContext,
  type SpanBatchSourceBlock,
  type SpanBatchTransaction,
} from "./types.js";

/** Timestamp of the span's first block. */
export function spanBatchStartTimestamp(batch: SpanBatch, genesisTimestamp: bigint): bigint {
  return genesisTimestamp + batch.relTimestamp;
}

/**
 * L1 origin number of each block of the span. Refuses (dropped) a span whose origin bits would take the
 * first epoch below zero.
 */
export function spanBatchEpochNumbers(batch: SpanBatch): bigint[] {
  const n = batch.originBits.length;
  const out = new Array<bigint>(n);
  let epoch = firstEpochNumber(batch);
  out[0] = epoch;
  for (let i = 1; i < n; i++) {
    if (batch.originBits[i] === 1) epoch += 1n;
    out[i] = epoch;
  }
  return out;
}

/**
 * The L1 origin number of the span's first block, from the last block's and the origin bits, without
 * allocating. Refuses (dropped) a span whose origin bits would take it below zero.
 */
function firstEpochNumber(batch: SpanBatch): bigint {
  const bits = batch.originBits;
  let epoch = batch.l1OriginNumber;
  for (let i = bits.length - 1; i > 0; i--) {
    if (bits[i] !== 1) continue;
    if (epoch === 0n)
      throw new DroppedInputError("batches", "span batch origin bits go below L1 block 0", {
        field: "span.origin_bits",
        block: i,
      });
    epoch -= 1n;
  }
  return epoch;
}

/**
 * The blocks of a span batch, computed one at a time when asked for: a span may declare millions of empty
 * blocks in a few bytes of a channel, and validation looks at its first and last blocks before anything else.
 * Holds the batch, its transactions rebuilt as signed EIP-2718 bytes (bounded by the batch's own bytes) and a
 * cursor, so reading the blocks in order costs O(1) each and allocates only the block asked for. Refuses
 * (dropped) a span whose origin bits go below L1 block 0, as spanBatchEpochNumbers.
 */
export class SpanBatchBlockList {
  readonly length: number;
  private readonly start: bigint;
  private readonly firstEpoch: bigint;
  private readonly signed: readonly Uint8Array[];
  /** The block the cursor is on, its L1 origin number and the index of its first transaction. */
  private cursor = 0;
  private cursorEpoch: bigint;
  private cursorTx = 0;

  constructor(
    private readonly batch: SpanBatch,
    private readonly ctx: SpanBatchContext,
  ) {
    this.length = batch.originBits.length;
    this.firstEpoch = firstEpochNumber(batch);
    this.cursorEpoch = this.firstEpoch;
    this.start = spanBatchStartTimestamp(batch, ctx.genesisTimestamp);
    this.signed = spanTxsToSigned(batch.transactions, ctx.chainId);
  }

  /** Block `index` (negative counts from the end, as Array.prototype.at); undefined out of range. */
  at(index: number): SpanBatchBlock | undefined {
    const i = index < 0 ? this.length + index : index;
    if (!Number.isInteger(i) || i < 0 || i >= this.length) return undefined;
    if (i < this.cursor) {
      this.cursor = 0;
      this.cursorEpoch = this.firstEpoch;
      this.cursorTx = 0;
    }
    const { originBits, blockTxCounts } = this.batch;
    let steps = 0;
    let tx = this.cursorTx;
    for (let k = this.cursor; k < i; k++) {
      tx += blockTxCounts[k]!;
      steps += originBits[k + 1]!;
    }
    this.cursor = i;
    this.cursorTx = tx;
    if (steps > 0) this.cursorEpoch += BigInt(steps);
    const count = blockTxCounts[i]!;
    return {
      timestamp: this.start + BigInt(i) * this.ctx.blockTime,
      epochNumber: this.cursorEpoch,
      transactions: this.signed.slice(tx, tx + count),
    };
  }
}

/**
 * The blocks of a span batch: timestamps, L1 origin numbers and each transaction rebuilt as its signed
 * EIP-2718 bytes for chain `ctx.chainId` (views of one buffer). Expands every block: derivation reads them
 * through SpanBatchBlockList instead.
 */
export function spanBatchBlocks(batch: SpanBatch, ctx: SpanBatchContext): SpanBatchBlock[] {
  const list = new SpanBatchBlockList(batch, ctx);
  return Array.from({ length: list.length }, (_, i) => list.at(i)!);
}

/**
 * The blocks of a span batch with timestamps after `afterTimestamp` (e.g. the safe head's; all blocks when
 * omitted), each with its L1 origin hash from `resolveL1OriginHash`. A number the resolver cannot answer is
 * a DataMissingError: the caller must supply every origin the span refers to.
 */
export function spanBatchToBlockBatches(
  batch: SpanBatch,
  ctx: SpanBatchContext,
  resolveL1OriginHash: L1OriginHashResolver,
  afterTimestamp?: bigint,
): BlockBatch[] {
  const out: BlockBatch[] = [];
  for (const block of spanBatchBlocks(batch, ctx)) {
    if (afterTimestamp !== undefined && block.timestamp <= afterTimestamp) continue;
    const epochHash = resolveL1OriginHash(block.epochNumber);
    if (epochHash === undefined)
      throw new DataMissingError("batches", `no hash for L1 origin ${block.epochNumber}`, {
        l1BlockNumber: block.epochNumber,
      });
    out.push({ ...block, epochHash });
  }
  return out;
}

/**
 * Builds the span batch of consecutive L2 blocks (the batcher's side). `firstBlockStartsEpoch` is the first
 * block's origin bit (true when its L1 origin differs from its parent's, i.e. its sequence number is 0).
 * Refuses (BatchEncodeError) blocks that a span batch cannot express: none or too many, timestamps not
 * `blockTime` apart or before genesis, an L1 origin that moves by more than one per block, and
 * transactions a span batch cannot carry (see signedToSpanTx).
 */
export function buildSpanBatch(
  blocks: readonly SpanBatchSourceBlock[],
  ctx: SpanBatchContext,
  firstBlockStartsEpoch: boolean,
): SpanBatch {
  if (blocks.length === 0) throw new BatchEncodeError("blocks", "a span batch has at least one block");
  if (blocks.length > MAX_SPAN_BATCH_ELEMENT_COUNT)
    throw new BatchEncodeError("blocks", "too many blocks", { blocks: blocks.length });
  const first = blocks[0]!;
  const last = blocks[blocks.length - 1]!;
  if (first.parentHash.length !== 32) throw new BatchEncodeError("parentHash", "must be 32 bytes");
  if (last.epochHash.length !== 32) throw new BatchEncodeError("epochHash", "must be 32 bytes");
  if (first.timestamp < ctx.genesisTimestamp)
    throw new BatchEncodeError("timestamp", "first block is before genesis", { timestamp: first.timestamp });
  const originBits = new Uint8Array(blocks.length);
  originBits[0] = firstBlockStartsEpoch ? 1 : 0;
  const blockTxCounts = new Array<number>(blocks.length);
  const transactions: SpanBatchTransaction[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    if (block.timestamp !== first.timestamp + BigInt(i) * ctx.blockTime)
      throw new BatchEncodeError("timestamp", "blocks are not consecutive", {
        block: i,
        timestamp: block.timestamp,
      });
    if (i > 0) {
      const step = block.epochNumber - blocks[i - 1]!.epochNumber;
      if (step !== 0n && step !== 1n)
        throw new BatchEncodeError("epochNumber", "L1 origin must stay or advance by one", {
          block: i,
          step,
        });
      originBits[i] = Number(step);
    }
    blockTxCounts[i] = block.transactions.length;
    for (let j = 0; j < block.transactions.length; j++)
      transactions.push(signedToSpanTx(block.transactions[j]!, ctx.chainId, { block: i, tx: j }));
    if (transactions.length > MAX_SPAN_BATCH_ELEMENT_COUNT)
      throw new BatchEncodeError("transactions", "too many transactions", {
        max: MAX_SPAN_BATCH_ELEMENT_COUNT,
      });
  }
  return {
    type: "span",
    relTimestamp: first.timestamp - ctx.genesisTimestamp,
    l1OriginNumber: last.epochNumber,
    parentCheck: first.parentHash.slice(0, 20),
    l1OriginCheck: last.epochHash.slice(0, 20),
    originBits,
    blockTxCounts,
    transactions,
  };
}
