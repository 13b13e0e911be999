/**
 * Re-reads what the batcher posted: the transactions of the batcher account to the batch inbox in a range of L1
 * blocks (calldata, or blobs fetched from the L1 beacon API's `/eth/v1/beacon/blobs/{block}` route and matched to
 * the transaction's versioned hashes by position and checked by their KZG commitment), through src/derive's frame parser, Holocene frame
 * queue, channel assembler (channel timeout included), lenient channel reader and batch decoder: exactly the
 * channels derivation would read, each with the L2 blocks its span batches carry.
 */
import { type Address, type Hex, type PublicClient, bytesToHex, hexToBytes } from "viem";
import {
  ChannelAssembler,
  DroppedInputError,
  FrameQueue,
  type Kzg,
  type SpanBatchBlock,
  type SpanBatchContext,
  decodeBatch,
  decodeBlob,
  parseFrames,
  readChannel,
  spanBatchBlocks,
} from "../derive/index.js";
import { L1ReadError } from "./errors.js";

/** One batcher transaction's data items (its calldata, or each of its blobs decoded). */
export interface BatcherTxData {
  readonly l1Block: bigint;
  readonly hash: Hex;
  readonly items: readonly Uint8Array[];
}

/** A complete channel found on L1. */
export interface PostedChannel {
  readonly channelId: Hex;
  readonly openL1Block: bigint;
  readonly closeL1Block: bigint;
  /** The L2 blocks of its batches, in order (timestamps, L1 origin numbers, transactions). */
  readonly blocks: readonly SpanBatchBlock[];
}

export interface L1PostedReaderOptions {
  readonly client: PublicClient;
  /** Base URL of the L1 beacon API (anvil serves it on its JSON-RPC port). */
  readonly beaconUrl: string;
  readonly batchInbox: Address;
  readonly batcher: Address;
  readonly kzg: () => Promise<Kzg>;
}

interface BeaconBlobs {
  data?: unknown;
}

export class L1PostedReader {
  constructor(private readonly options: L1PostedReaderOptions) {}

  /** The batcher's transactions to the inbox in L1 block `number`, with their data items. */
  async batcherTransactions(number: bigint): Promise<BatcherTxData[]> {
    const { client, batchInbox, batcher } = this.options;
    let block;
    try {
      block = await client.getBlock({ blockNumber: number, includeTransactions: true });
    } catch (e) {
      throw new L1ReadError(`cannot read L1 block ${number}`, { number }, { cause: e });
    }
    const out: BatcherTxData[] = [];
    let blobs: Uint8Array[] | undefined;
    let blobIndex = 0;
    for (const tx of block.transactions) {
      const hashes = tx.blobVersionedHashes ?? [];
      const first = blobIndex;
      blobIndex += hashes.length;
      if (
        tx.to?.toLowerCase() !== batchInbox.toLowerCase() ||
        tx.from.toLowerCase() !== batcher.toLowerCase()
      )
        continue;
      if (tx.type !== "eip4844") {
        out.push({ l1Block: number, hash: tx.hash, items: [hexToBytes(tx.input)] });
        continue;
      }
      blobs ??= await this.blobsOf(number);
      const kzg = await this.options.kzg();
      const items = hashes.map((h, i) => {
        const blob = blobs![first + i];
        if (blob === undefined)
          throw new L1ReadError(`the beacon API lacks blob ${first + i} of L1 block ${number}`, {
            number,
            hash: h,
          });
        try {
          kzg.verifyBlob(blob, hexToBytes(h));
        } catch (e) {
          throw new L1ReadError(
            `blob ${first + i} of L1 block ${number} does not match ${h}`,
            { number },
            { cause: e },
          );
        }
        return decodeBlob(blob);
      });
      out.push({ l1Block: number, hash: tx.hash, items });
    }
    return out;
  }

  /**
   * The complete channels whose last frame is in L1 blocks `from`..`to`, read as derivation reads them (frames from
   * before `from` are not seen: a channel opened earlier is not complete here). Frames and channels derivation
   * drops are dropped here too.
   */
  async channels(
    from: bigint,
    to: bigint,
    ctx: SpanBatchContext,
    channelTimeout: bigint,
  ): Promise<PostedChannel[]> {
    const queue = new FrameQueue();
    const assembler = new ChannelAssembler({ channelTimeout });
    const out: PostedChannel[] = [];
    for (let n = from; n <= to; n++) {
      assembler.checkTimeout(n);
      for (const tx of await this.batcherTransactions(n)) {
        for (const item of tx.items) {
          try {
            queue.push(parseFrames(item), n);
          } catch (e) {
            if (!(e instanceof DroppedInputError)) throw e;
          }
        }
      }
      for (let q = queue.next(); q !== undefined; q = queue.next()) {
        const ready = assembler.addFrame(q.frame, q.l1BlockNumber);
        if (ready === undefined) continue;
        out.push({
          channelId: bytesToHex(ready.channelId),
          openL1Block: ready.openBlockNumber,
          closeL1Block: ready.closeBlockNumber,
          blocks: channelBlocks(ready.data, ctx),
        });
      }
    }
    return out;
  }

  /** Every blob of L1 block `number`, in block order (the beacon API's `blobs` route, no filter). */
  private async blobsOf(number: bigint): Promise<Uint8Array[]> {
    const url = `${this.options.beaconUrl.replace(/\/$/, "")}/eth/v1/beacon/blobs/${number}`;
    let body: BeaconBlobs;
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = (await res.json()) as BeaconBlobs;
    } catch (e) {
      throw new L1ReadError(`cannot read the blobs of L1 block ${number}`, { number, url }, { cause: e });
    }
    if (!Array.isArray(body.data) || body.data.some((b) => typeof b !== "string"))
      throw new L1ReadError(`the beacon API answered no blob list for L1 block ${number}`, { number, url });
    return (body.data as Hex[]).map((b) => hexToBytes(b));
  }
}

/** The L2 blocks of a channel's batches, up to the first batch that does not decode (as derivation reads it). */
export function channelBlocks(channel: Uint8Array, ctx: SpanBatchContext): SpanBatchBlock[] {
  const blocks: SpanBatchBlock[] = [];
  let read;
  try {
    read = readChannel(channel);
  } catch (e) {
    if (e instanceof DroppedInputError) return blocks;
    throw e;
  }
  for (const raw of read.batches) {
    let batch;
    try {
      batch = decodeBatch(raw);
      if (batch.type === "singular")
        blocks.push({
          timestamp: batch.timestamp,
          epochNumber: batch.epochNumber,
          transactions: batch.transactions,
        });
      else blocks.push(...spanBatchBlocks(batch, ctx));
    } catch (e) {
      if (e instanceof DroppedInputError) break;
      throw e;
    }
  }
  return blocks;
}
