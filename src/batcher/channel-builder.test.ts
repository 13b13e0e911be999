import { randomBytes } from "node:crypto";
import { type Hex, bytesToHex, hexToBytes, keccak256, parseGwei, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  FRAME_HEADER_OVERHEAD,
  MAX_BLOB_DATA_SIZE,
  type SpanBatchContext,
  decodeBlob,
  encodeFrames,
  parseFrames,
} from "../derive/index.js";
import { type BatcherSettings, channelShape, channelTransactions } from "./batcher.js";
import { FullnessTracker, buildChannel, compressBlocks, spanRuns } from "./channel-builder.js";
import { ChannelTooLargeError } from "./errors.js";
import { channelBlocks } from "./l1-posted.js";
import type { L2BlockData } from "./l2-source.js";

// Anvil's development account 2 (public test mnemonic).
const account = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdad365a");
const ctx: SpanBatchContext = { genesisTimestamp: 1_000n, blockTime: 2n, chainId: 901n };
let nonce = 0;

async function signedTx(kind: number, dataBytes: number): Promise<Uint8Array> {
  const common = { to: account.address, value: 1n, nonce: nonce++, gas: 100_000n, chainId: 901 } as const;
  const data = bytesToHex(new Uint8Array(randomBytes(dataBytes)));
  const raw =
    kind === 0
      ? await account.signTransaction({ ...common, type: "legacy", gasPrice: parseGwei("1"), data })
      : kind === 1
        ? await account.signTransaction({
            ...common,
            type: "eip2930",
            gasPrice: parseGwei("1"),
            accessList: [],
            data,
          })
        : await account.signTransaction({
            ...common,
            type: "eip1559",
            maxFeePerGas: parseGwei("2"),
            maxPriorityFeePerGas: 1n,
            data,
          });
  return hexToBytes(raw);
}

function hashOf(n: number): Hex {
  return keccak256(toHex(`block ${n}`));
}

/** Blocks 1..count from `start`: timestamps `step` apart, origins from `origin`, a new epoch every 6 blocks. */
async function chain(
  count: number,
  opts: { txs?: number; dataBytes?: number; step?: bigint; first?: number } = {},
): Promise<L2BlockData[]> {
  const first = opts.first ?? 1;
  const out: L2BlockData[] = [];
  for (let i = 0; i < count; i++) {
    const n = first + i;
    const transactions: Uint8Array[] = [];
    for (let t = 0; t < (opts.txs ?? 2); t++)
      transactions.push(await signedTx((n + t) % 3, opts.dataBytes ?? 50));
    out.push({
      number: BigInt(n),
      hash: hashOf(n),
      parentHash: hashOf(n - 1),
      timestamp: ctx.genesisTimestamp + BigInt(n) * (opts.step ?? ctx.blockTime),
      l1OriginNumber: 100n + BigInt(Math.floor(n / 6)),
      l1OriginHash: hexToBytes(keccak256(toHex(`l1 ${Math.floor(n / 6)}`))),
      sequenceNumber: BigInt(n % 6),
      transactions,
      depositCount: 1,
    });
  }
  return out;
}

function expectSameBlocks(decoded: ReturnType<typeof channelBlocks>, blocks: readonly L2BlockData[]): void {
  expect(decoded.length).toBe(blocks.length);
  decoded.forEach((d, i) => {
    expect(d.timestamp).toBe(blocks[i]!.timestamp);
    expect(d.epochNumber).toBe(blocks[i]!.l1OriginNumber);
    expect(d.transactions.map((t) => bytesToHex(t))).toEqual(
      blocks[i]!.transactions.map((t) => bytesToHex(t)),
    );
  });
}

const settings = (over: Partial<BatcherSettings>): BatcherSettings => ({
  dataAvailability: "calldata",
  compression: "zlib",
  targetNumFrames: 1,
  maxBlobsPerTx: 6,
  maxChannelDuration: 0,
  subSafetyMargin: 10n,
  seqWindowSize: 3600n,
  channelTimeout: 50n,
  l1StartBlock: 0n,
  maxCalldataTxBytes: 120_000,
  pollIntervalMs: 100,
  resubmitAfterBlocks: 5,
  ...over,
});

describe("span runs", () => {
  it("keeps regular blocks in one span batch and splits at a timestamp gap or an origin jump", async () => {
    const blocks = await chain(12, { txs: 1 });
    expect(spanRuns(blocks, ctx).map((r) => r.length)).toEqual([12]);
    const gap = [
      ...blocks.slice(0, 5),
      ...blocks.slice(5).map((b) => ({ ...b, timestamp: b.timestamp + 1n })),
    ];
    expect(spanRuns(gap, ctx).map((r) => r.length)).toEqual([5, 7]);
    const jump = blocks.map((b, i) => (i >= 8 ? { ...b, l1OriginNumber: b.l1OriginNumber + 5n } : b));
    expect(spanRuns(jump, ctx).map((r) => r.length)).toEqual([8, 4]);
  });

  it("a channel of irregular blocks decodes to the same timestamps, origins and transactions", async () => {
    const blocks = (await chain(9)).map((b, i) => ({ ...b, timestamp: b.timestamp + BigInt(i * i) }));
    for (const compression of ["zlib", "brotli"] as const) {
      const channel = buildChannel(blocks, ctx, { compression, maxFrameDataLength: 100_000, maxFrames: 1 });
      expect(channel.batchCount).toBeGreaterThan(1);
      expect(channel.blocks.length).toBe(9);
      expectSameBlocks(channelBlocks(channel.frames[0]!.data, ctx), blocks);
    }
  });
});

describe("buildChannel", () => {
  it("cuts the longest prefix that fits, frames within the frame size, fresh ids", async () => {
    // Incompressible transactions: ~2.1 kB per block, 40 blocks do not fit in 3 frames of 10,000 bytes.
    const blocks = await chain(40, { txs: 2, dataBytes: 1000 });
    const shape = { compression: "zlib" as const, maxFrameDataLength: 10_000, maxFrames: 3 };
    const channel = buildChannel(blocks, ctx, shape);
    expect(channel.blocks.length).toBeLessThan(40);
    expect(channel.compressedSize).toBeLessThanOrEqual(30_000);
    expect(channel.frames.length).toBeLessThanOrEqual(3);
    channel.frames.forEach((f, i) => {
      expect(f.data.length).toBeLessThanOrEqual(10_000);
      expect(f.number).toBe(i);
      expect(f.isLast).toBe(i === channel.frames.length - 1);
    });
    // Maximal: one block more does not fit.
    const more = compressBlocks(blocks.slice(0, channel.blocks.length + 1), ctx, "zlib");
    expect(more.compressed.length).toBeGreaterThan(30_000);
    const data = new Uint8Array(channel.frames.reduce((n, f) => n + f.data.length, 0));
    let pos = 0;
    for (const f of channel.frames) {
      data.set(f.data, pos);
      pos += f.data.length;
    }
    expectSameBlocks(channelBlocks(data, ctx), channel.blocks);
    const other = buildChannel(blocks, ctx, shape);
    expect(bytesToHex(other.id)).not.toBe(bytesToHex(channel.id));
  });

  it("refuses a block that alone exceeds the channel (ChannelTooLargeError, kind channel-too-large)", async () => {
    const blocks = await chain(2, { txs: 3, dataBytes: 2000 });
    const error = (() => {
      try {
        buildChannel(blocks, ctx, { compression: "zlib", maxFrameDataLength: 1000, maxFrames: 2 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ChannelTooLargeError);
    expect((error as ChannelTooLargeError).kind).toBe("channel-too-large");
    expect((error as ChannelTooLargeError).details.block).toBe(1n);
  });

  it("FullnessTracker says full exactly when the blocks no longer fit", async () => {
    const blocks = await chain(30, { txs: 2, dataBytes: 600 });
    const shape = { compression: "zlib" as const, maxFrameDataLength: 8_000, maxFrames: 2 };
    const tracker = new FullnessTracker(ctx, shape);
    let firstFull: number | undefined;
    for (let n = 1; n <= blocks.length; n++) {
      if (tracker.isFull(blocks.slice(0, n))) {
        firstFull = n;
        break;
      }
    }
    expect(firstFull).toBeDefined();
    const size = (n: number): number => compressBlocks(blocks.slice(0, n), ctx, "zlib").compressed.length;
    expect(size(firstFull!)).toBeGreaterThan(16_000);
    expect(size(firstFull! - 1)).toBeLessThanOrEqual(16_000);
  });
});

describe("channel transactions", () => {
  it("calldata: one frame per transaction, at most 120,000 bytes with the version byte", async () => {
    const s = settings({ dataAvailability: "calldata", targetNumFrames: 3 });
    const shape = channelShape(s);
    expect(shape.maxFrameDataLength).toBe(120_000 - 1 - FRAME_HEADER_OVERHEAD);
    const blocks = await chain(150, { txs: 2, dataBytes: 1400 });
    const channel = buildChannel(blocks, ctx, shape);
    expect(channel.frames.length).toBe(3);
    const txs = channelTransactions(channel, s);
    expect(txs.length).toBe(3);
    for (const tx of txs) {
      if (tx.kind !== "calldata") throw new Error("calldata expected");
      expect(tx.data.length).toBeLessThanOrEqual(120_000);
      expect(parseFrames(tx.data).length).toBe(1);
    }
    expect(txs[0]!.kind === "calldata" && txs[0]!.data.length).toBe(120_000);
  });

  it("blobs: one frame per blob (130,043 bytes at most), at most 6 blobs per transaction", async () => {
    const s = settings({ dataAvailability: "blobs", targetNumFrames: 8, maxBlobsPerTx: 6 });
    const shape = channelShape(s);
    expect(shape.maxFrameDataLength + FRAME_HEADER_OVERHEAD).toBe(MAX_BLOB_DATA_SIZE - 1);
    // 8 frames of 130,020 bytes: about 1 MB of incompressible blocks (~9 kB each).
    const blocks = await chain(125, { txs: 3, dataBytes: 3000 });
    const channel = buildChannel(blocks, ctx, shape);
    expect(channel.frames.length).toBe(8);
    const txs = channelTransactions(channel, s);
    expect(txs.map((t) => (t.kind === "blobs" ? t.blobs.length : 0))).toEqual([6, 2]);
    let frame = 0;
    for (const tx of txs) {
      if (tx.kind !== "blobs") throw new Error("blobs expected");
      for (const blob of tx.blobs) {
        const payload = decodeBlob(blob);
        expect(payload).toEqual(encodeFrames([channel.frames[frame++]!]));
      }
    }
  }, 60_000);
});
