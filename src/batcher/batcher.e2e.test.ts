/**
 * The batcher against real processes on 127.0.0.1: our L2 node (test/node/spawn-node.ts), anvil (src/devnet/l1)
 * and the batcher process itself. It posts calldata channels, is killed with SIGKILL right after sending a
 * transaction, restarts posting blobs, re-posts the channel an L1 reorg (anvil_reorg) dropped; then L1 is read back independently (viem reads, the beacon blob route,
 * src/derive's parseFrames, FrameQueue, ChannelAssembler, readChannel, decodeBatch) and every sealed L2 block up to
 * the last posted one must be there exactly once, in order, with its timestamp, L1 origin number and non-deposit
 * transactions byte for byte; every frame of every channel must be on L1 exactly once. A channel of several
 * transactions cut by kill -9 (abandoned whole, its blocks posted once in a new channel) is test/devnet/restart.test.ts,
 * which kills the node too and derives the result.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Hex,
  bytesToHex,
  createPublicClient,
  createWalletClient,
  defineChain,
  hexToBytes,
  http,
  parseEther,
  parseGwei,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBatcher } from "../../test/node/l1-chain.js";
import { type NodeProcess, startNodeProcess } from "../../test/node/spawn-node.js";
import {
  ChannelAssembler,
  FrameQueue,
  type SpanBatchBlock,
  decodeBatch,
  decodeBlob,
  decodeL1InfoCalldata,
  loadKzg,
  parseFrames,
  readChannel,
  spanBatchBlocks,
} from "../derive/index.js";
import { type Anvil, startAnvil } from "../devnet/l1/anvil.js";
import type { BatcherProcess, LogLine } from "./test/spawn-batcher.js";

// Anvil's development account 1 (public test mnemonic): the batcher key of this test.
const BATCHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const BATCHER = privateKeyToAccount(BATCHER_KEY).address;
const INBOX = "0xff00000000000000000000000000000000000901";
const L2_BLOCK_TIME = 1n;

let anvil: Anvil;
let node: NodeProcess;
let dir: string;
let stopTraffic = false;
let traffic: Promise<void> | undefined;
const running: BatcherProcess[] = [];

async function sendTraffic(): Promise<void> {
  const chain = defineChain({
    id: node.chainId,
    name: "dev L2",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  const wallets = node.accounts.slice(3, 5).map((a) =>
    createWalletClient({
      account: privateKeyToAccount(a.privateKey),
      chain,
      transport: http(node.url, { timeout: 60_000 }),
    }),
  );
  for (let i = 0; !stopTraffic; i++) {
    const w = wallets[i % wallets.length]!;
    const to = node.accounts[6 + (i % 3)]!.address;
    if (i % 3 === 0)
      await w.sendTransaction({ to, value: BigInt(i + 1), type: "legacy", gasPrice: parseGwei("2") });
    else if (i % 3 === 1)
      await w.sendTransaction({
        to,
        value: parseEther("0.001"),
        data: bytesToHex(new Uint8Array(40).fill(i % 256)),
      });
    else
      await w.sendTransaction({ to, value: 1n, type: "eip2930", gasPrice: parseGwei("2"), accessList: [] });
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The batcher for this file's anvil and node (no rollup.json: the inbox and block time are flags). */
function batcher(
  da: "calldata" | "blobs",
  extraArgs: readonly string[] = [],
  privateKey: Hex | null = BATCHER_KEY,
): BatcherProcess {
  const b = startBatcher({
    l1RpcUrl: anvil.rpcUrl,
    l2RpcUrl: node.url,
    dataAvailability: da,
    privateKey,
    extraArgs: [
      ...["--batch-inbox", INBOX, "--l2-block-time", String(L2_BLOCK_TIME)],
      ...["--resubmission-timeout", "10", "--log-level", "debug"],
      ...extraArgs,
    ],
  });
  running.push(b);
  return b;
}

const posted = (l: LogLine): boolean => l.msg === "channel posted";
const sent = (l: LogLine): boolean => l.msg === "batcher transaction sent";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "batcher-e2e-"));
  anvil = await startAnvil({ mining: { mode: "interval", blockTimeSeconds: 1 } });
  node = await startNodeProcess({ blockTimeMs: 1000, callWorkers: 0 });
  traffic = sendTraffic();
}, 120_000);

afterAll(async () => {
  stopTraffic = true;
  await traffic?.catch(() => undefined);
  for (const b of running) await b.kill();
  await node?.stop();
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Everything the batcher account sent to the inbox, read back from L1 without the batcher's code. */
async function readL1(): Promise<{
  blocks: SpanBatchBlock[];
  frameCounts: Map<string, number>;
  channels: { id: string; da: string; blocks: number }[];
  incompleteFrames: number;
}> {
  const l1 = anvil.client;
  const kzg = await loadKzg();
  const head = await l1.getBlockNumber();
  const queue = new FrameQueue();
  const assembler = new ChannelAssembler();
  const frameCounts = new Map<string, number>();
  const daOf = new Map<string, string>();
  const channels: { id: string; da: string; blocks: number }[] = [];
  const blocks: SpanBatchBlock[] = [];
  const ctx = { genesisTimestamp: (await nodeBlock(0n)).timestamp, blockTime: L2_BLOCK_TIME, chainId: 901n };
  let framesQueued = 0;
  let framesInChannels = 0;
  for (let n = 0n; n <= head; n++) {
    const block = await l1.getBlock({ blockNumber: n, includeTransactions: true });
    let blobIndex = 0;
    let beacon: Hex[] | undefined;
    for (const tx of block.transactions) {
      const hashes = tx.blobVersionedHashes ?? [];
      const first = blobIndex;
      blobIndex += hashes.length;
      if (tx.to?.toLowerCase() !== INBOX || tx.from.toLowerCase() !== BATCHER.toLowerCase()) continue;
      const items: { data: Uint8Array; da: string }[] = [];
      if (tx.type === "eip4844") {
        beacon ??= (
          (await (await fetch(`${anvil.beaconUrl}/eth/v1/beacon/blobs/${n}`)).json()) as { data: Hex[] }
        ).data;
        hashes.forEach((h, i) => {
          const blob = hexToBytes(beacon![first + i]!);
          kzg.verifyBlob(blob, hexToBytes(h));
          items.push({ data: decodeBlob(blob), da: "blobs" });
        });
      } else items.push({ data: hexToBytes(tx.input), da: "calldata" });
      for (const item of items) {
        const frames = parseFrames(item.data);
        for (const f of frames) {
          const key = `${bytesToHex(f.channelId)}/${f.number}`;
          frameCounts.set(key, (frameCounts.get(key) ?? 0) + 1);
          daOf.set(bytesToHex(f.channelId), item.da);
        }
        framesQueued += frames.length;
        queue.push(frames, n);
      }
    }
    for (let q = queue.next(); q !== undefined; q = queue.next()) {
      const ready = assembler.addFrame(q.frame, q.l1BlockNumber);
      if (ready === undefined) continue;
      const id = bytesToHex(ready.channelId);
      let count = 0;
      for (const raw of readChannel(ready.data).batches) {
        const batch = decodeBatch(raw);
        if (batch.type !== "span") throw new Error("the batcher posts span batches only");
        const expanded = spanBatchBlocks(batch, ctx);
        blocks.push(...expanded);
        count += expanded.length;
      }
      framesInChannels += [...frameCounts.keys()].filter((k) => k.startsWith(`${id}/`)).length;
      channels.push({ id, da: daOf.get(id)!, blocks: count });
    }
  }
  return { blocks, frameCounts, channels, incompleteFrames: framesQueued - framesInChannels };
}

async function nodeBlock(n: bigint): Promise<{
  timestamp: bigint;
  l1Origin: bigint;
  transactions: Hex[];
}> {
  const client = createPublicClient({ transport: http(node.url, { timeout: 60_000 }) });
  const block = (await client.request({
    method: "eth_getBlockByNumber",
    params: [`0x${n.toString(16)}`, true],
  } as never)) as { timestamp: Hex; transactions: { type: Hex; input: Hex; hash: Hex }[] };
  const transactions: Hex[] = [];
  for (const tx of block.transactions.filter((t) => t.type !== "0x7e"))
    transactions.push(
      (await client.request({ method: "debug_getRawTransaction", params: [tx.hash] } as never)) as Hex,
    );
  const first = block.transactions[0];
  return {
    timestamp: BigInt(block.timestamp),
    l1Origin: first === undefined ? 0n : decodeL1InfoCalldata(hexToBytes(first.input)).number,
    transactions,
  };
}

/** `blocks` are L2 blocks 1..N in order: timestamps, L1 origins, non-deposit transactions. Returns how many had any. */
async function expectSealedBlocks(blocks: readonly SpanBatchBlock[]): Promise<number> {
  expect(blocks.length).toBeGreaterThan(4);
  let withTxs = 0;
  for (let i = 0; i < blocks.length; i++) {
    const expected = await nodeBlock(BigInt(i + 1));
    const got = blocks[i]!;
    expect(got.timestamp, `block ${i + 1}`).toBe(expected.timestamp);
    expect(got.epochNumber, `block ${i + 1}`).toBe(expected.l1Origin);
    expect(
      got.transactions.map((t) => bytesToHex(t)),
      `block ${i + 1}`,
    ).toEqual(expected.transactions);
    if (expected.transactions.length > 0) withTxs++;
  }
  return withTxs;
}

describe("batcher on anvil and the L2 node", () => {
  it("posts calldata, survives kill -9, posts blobs, and L1 holds every sealed block exactly once", async () => {
    // Phase 1: calldata. Killed right after it sends the transaction of its third channel.
    const first = batcher("calldata");
    await first.waitFor(posted, 2);
    await first.waitFor(sent, 3);
    await first.kill();

    // Phase 2: blobs, from a key file. It must resume exactly after what L1 holds.
    const keyFile = join(dir, "batcher.key");
    writeFileSync(keyFile, `${BATCHER_KEY}\n`, { mode: 0o600 });
    const second = batcher("blobs", ["--private-key-file", keyFile, "--metrics-listen", "127.0.0.1:0"], null);
    const started = await second.waitFor((l) => l.msg === "batcher started");
    const resumed = await second.waitFor((l) => l.msg === "resuming after L2 block");
    const firstBlob = await second.waitFor(posted, 1, 180_000);
    expect(BigInt(firstBlob.from as string | number)).toBe(
      BigInt(resumed.lastPosted as string | number) + 1n,
    );
    const secondChannel = await second.waitFor(posted, 2, 180_000);
    // An L1 reorg drops the block holding the last channel: the batcher sees its transaction leave the chain,
    // resumes from what L1 holds and posts those blocks again.
    const lostAt = BigInt((secondChannel.l1Blocks as number[])[0]!);
    const depth = (await anvil.client.getBlockNumber()) - lostAt + 1n;
    await anvil.request("anvil_reorg", [Number(depth), []]);
    const noticed = await second.waitFor((l) => l.msg === "batcher resumes from what L1 holds", 1, 180_000);
    // The reorg (a recent transaction left the chain) or its symptom: the reorg returned an earlier transaction to
    // anvil's pool, where it took the nonce of the one in flight ("nonce used by another transaction"). The batcher
    // names the reorg when it can see it; either way it resumes from what L1 holds, which is what is checked below.
    const trigger = (noticed.err as { type: string }).type;
    expect(["L1ReorgError", "TransactionFailedError"]).toContain(trigger);
    // It resumes after what L1 holds once its sender has settled the nonce: either the lost channel's transaction
    // (dropped: blocks from secondChannel.from are posted again) or, when the reorg returned it to anvil's pool or the
    // sender sent it again and it was mined once more, after that channel. Either way L1 holds each block once (below).
    const resumedAfterReorg = await second.waitFor((l) => l.msg === "resuming after L2 block", 2, 180_000);
    const lastHeld = BigInt(resumedAfterReorg.lastPosted as string | number);
    expect([
      BigInt(secondChannel.from as string | number) - 1n,
      BigInt(secondChannel.to as string | number),
    ]).toContain(lastHeld);
    const reposted = await second.waitFor(posted, 3, 180_000);
    expect(BigInt(reposted.from as string | number)).toBe(lastHeld + 1n);
    const metrics = await (await fetch(started.metricsUrl as string)).text();
    const value = (name: string): number => {
      const line = metrics.split("\n").find((l) => l.startsWith(name));
      return line === undefined ? NaN : Number(line.split(" ").at(-1));
    };
    expect(value('batcher_channels_total{da="blobs"')).toBeGreaterThanOrEqual(3);
    const recoveries = (reason: string) => value(`batcher_recoveries_total{reason="${reason}"`) || 0;
    // The one reorg makes one recovery or two: the reorg itself or its symptom (above), and possibly the symptom
    // again once the batcher resumed, when the transaction the reorg returned to anvil's pool is mined at the nonce
    // of the one in flight (a clean-clone run counted two). Each resumes from what L1 holds; that L1 holds every
    // block once is checked below.
    const recovered = recoveries("l1-reorg") + recoveries("tx-failed");
    expect(recovered).toBeGreaterThanOrEqual(1);
    expect(recovered).toBeLessThanOrEqual(2);
    expect(value("batcher_l1_blob_gas_used_total")).toBeGreaterThanOrEqual(2 * 131_072);
    expect(value("batcher_l1_blob_gas_spent_wei_total")).toBeGreaterThan(0);
    expect(value("batcher_l1_gas_spent_wei_total")).toBeGreaterThan(0);
    expect(value("batcher_compression_ratio")).toBeGreaterThan(0);
    expect(value("batcher_compression_ratio")).toBeLessThan(1);
    expect(value("batcher_pending_blocks")).toBeGreaterThanOrEqual(0);
    expect(metrics).toContain("batcher_channel_compressed_bytes_bucket");
    await second.stop();

    const { blocks, frameCounts, channels, incompleteFrames } = await readL1();
    try {
      expect(channels.some((c) => c.da === "calldata")).toBe(true);
      expect(channels.some((c) => c.da === "blobs")).toBe(true);
      // Every frame once; every frame belongs to a complete channel (the kill left no half-posted channel).
      for (const [key, count] of frameCounts) expect(count, key).toBe(1);
      expect(incompleteFrames).toBe(0);
      // The blocks of the channels are L2 blocks 1..N, in order, no gap, no duplicate.
      const withTxs = await expectSealedBlocks(blocks);
      expect(withTxs).toBeGreaterThan(2);
      // The last channel posted ends at the last block found on L1.
      const lastPosted = second.lines.filter(posted).at(-1)!;
      expect(BigInt(lastPosted.to as string | number)).toBe(BigInt(blocks.length));
    } catch (e) {
      // What each batcher did, for the failure report.
      const log = (b: BatcherProcess): string =>
        b.lines
          .filter((l) => !sent(l))
          .map((l) => JSON.stringify(l))
          .join("\n");
      console.error(`${log(first)}\n${log(second)}\n${JSON.stringify(channels)}`);
      throw e;
    }
  }, 600_000);
});
