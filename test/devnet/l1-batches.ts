/**
 * What a batcher posted to the devnet's L1, read back without the batcher's code: every inbox transaction from the
 * batcher (calldata, or blobs through the beacon route, KZG-checked), its frames (src/derive's parseFrames), the
 * channels they complete under Holocene's frame queue and channel assembler, and the L2 blocks of those channels'
 * span batches.
 */
import { type Hex, bytesToHex, hexToBytes, keccak256, type PublicClient } from "viem";
import {
  ChannelAssembler,
  FrameQueue,
  decodeBatch,
  decodeBlob,
  loadKzg,
  parseFrames,
  readChannel,
  spanBatchBlocks,
} from "../../src/derive/index.js";

export interface PostedBlock {
  readonly timestamp: bigint;
  readonly l1Origin: bigint;
  /** keccak256 of each non-deposit transaction: its L2 transaction hash. */
  readonly txHashes: Hex[];
}

export interface PostedBatches {
  /** The L1 blocks holding each frame (`<channel id>/<frame number>`): one entry per copy on L1. */
  readonly frames: Map<string, bigint[]>;
  /** Complete channels, in the order derivation completes them. */
  readonly channels: { id: string; da: "calldata" | "blobs"; blocks: number }[];
  /** The L2 blocks of the complete channels' span batches, in order. */
  readonly blocks: PostedBlock[];
}

/**
 * `get(0)` .. `get(count - 1)`, eight requests in flight at a time, in order (one at a time, reading 150 blocks
 * took half a minute on a loaded machine).
 */
export async function fetchAll<T>(count: number, get: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) results[i] = await get(i);
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return results;
}

export async function readPostedBatches(options: {
  readonly client: PublicClient;
  readonly beaconUrl: string;
  readonly inbox: string;
  readonly batcher: string;
  readonly fromBlock: bigint;
  readonly l2: { genesisTimestamp: bigint; blockTime: bigint; chainId: bigint };
}): Promise<PostedBatches> {
  const { client } = options;
  const kzg = await loadKzg();
  const head = await client.getBlockNumber();
  const queue = new FrameQueue();
  const assembler = new ChannelAssembler();
  const frames = new Map<string, bigint[]>();
  const daOf = new Map<string, "calldata" | "blobs">();
  const channels: PostedBatches["channels"] = [];
  const blocks: PostedBlock[] = [];
  const l1Blocks = await fetchAll(Number(head - options.fromBlock) + 1, (i) =>
    client.getBlock({ blockNumber: options.fromBlock + BigInt(i), includeTransactions: true }),
  );
  for (let n = options.fromBlock; n <= head; n++) {
    const block = l1Blocks[Number(n - options.fromBlock)]!;
    let blobIndex = 0;
    let sidecars: Hex[] | undefined;
    for (const tx of block.transactions) {
      const hashes = tx.blobVersionedHashes ?? [];
      const first = blobIndex;
      blobIndex += hashes.length;
      if (tx.to?.toLowerCase() !== options.inbox.toLowerCase()) continue;
      if (tx.from.toLowerCase() !== options.batcher.toLowerCase()) continue;
      const payloads: { data: Uint8Array; da: "calldata" | "blobs" }[] = [];
      if (tx.type === "eip4844") {
        sidecars ??= (
          (await (await fetch(`${options.beaconUrl}/eth/v1/beacon/blobs/${n}`)).json()) as { data: Hex[] }
        ).data;
        hashes.forEach((hash, i) => {
          const blob = hexToBytes(sidecars![first + i]!);
          kzg.verifyBlob(blob, hexToBytes(hash));
          payloads.push({ data: decodeBlob(blob), da: "blobs" });
        });
      } else payloads.push({ data: hexToBytes(tx.input), da: "calldata" });
      for (const payload of payloads) {
        const parsed = parseFrames(payload.data);
        for (const frame of parsed) {
          const key = `${bytesToHex(frame.channelId)}/${frame.number}`;
          frames.set(key, [...(frames.get(key) ?? []), n]);
          daOf.set(bytesToHex(frame.channelId), payload.da);
        }
        queue.push(parsed, n);
      }
    }
    for (let queued = queue.next(); queued !== undefined; queued = queue.next()) {
      const ready = assembler.addFrame(queued.frame, queued.l1BlockNumber);
      if (ready === undefined) continue;
      const id = bytesToHex(ready.channelId);
      let count = 0;
      for (const raw of readChannel(ready.data).batches) {
        const batch = decodeBatch(raw);
        if (batch.type !== "span") throw new Error(`channel ${id} holds a ${batch.type} batch`);
        for (const b of spanBatchBlocks(batch, options.l2)) {
          blocks.push({
            timestamp: b.timestamp,
            l1Origin: b.epochNumber,
            txHashes: b.transactions.map((t) => keccak256(t)),
          });
          count++;
        }
      }
      channels.push({ id, da: daOf.get(id)!, blocks: count });
    }
  }
  return { frames, channels, blocks };
}
