/**
 * The devnet's crash safety: the L1 and rollup config as `npm start` makes them (startDevnetL1 with the
 * devnet's SystemConfig, ensureDevnetRollupConfig), a node in L1 mode and the batcher as real processes, L2 traffic
 * throughout. The batcher is killed with SIGKILL in the middle of a three-transaction channel and the node with
 * SIGKILL right after; both restart (the batcher now posting blobs, the devnet's default). Then the node's safe head
 * must reach its sealed head, L1 must hold every frame once and every L2 block once in complete channels, in order,
 * equal to the node's blocks, and no block sealed before the kill may be lost or changed.
 */
import { mkdtempSync, rmSync } from "node:fs";
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
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BatcherProcess, LogLine } from "../../src/batcher/test/spawn-batcher.js";
import { devAccounts } from "../../src/chain/index.js";
import { decodeL1InfoCalldata } from "../../src/derive/index.js";
import { devnetAccount, devnetSystemConfig } from "../../src/devnet/accounts.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { type DevnetRollup, ensureDevnetRollupConfig } from "../../src/devnet/rollup-config.js";
import { startBatcher as spawnChainBatcher } from "../node/l1-chain.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { fetchAll, readPostedBatches } from "./l1-batches.js";

const dataDir = mkdtempSync(join(tmpdir(), "devnet-restart-"));
const nodeDir = join(dataDir, "node");
let l1: DevnetL1;
let rollup: DevnetRollup;
let node: NodeProcess | undefined;
const batchers: BatcherProcess[] = [];
let stopTraffic = false;
let traffic: Promise<void> | undefined;
let sent = 0;

const posted = (l: LogLine): boolean => l.msg === "channel posted";
const txSent = (l: LogLine): boolean => l.msg === "batcher transaction sent";

function startNode(): Promise<NodeProcess> {
  return startNodeProcess({
    dataDir: nodeDir,
    l1: { rpcUrl: l1.anvil.rpcUrl, rollupConfigPath: rollup.path, confirmations: 1 },
    startTimeoutMs: 90_000,
    callWorkers: 0, // seconds of CPU per start on a loaded machine; no eth_call here depends on where it runs
  });
}

function startBatcher(
  maxChannelDuration: number,
  dataAvailability: "calldata" | "blobs",
  extra: readonly string[] = [],
): BatcherProcess {
  const batcher = spawnChainBatcher({
    l1RpcUrl: l1.anvil.rpcUrl,
    l2RpcUrl: node!.url,
    rollupConfigPath: rollup.path,
    dataAvailability,
    maxChannelDuration,
    extraArgs: [
      "--l1-start-block",
      String(rollup.config.genesis.l1.number),
      "--log-level",
      "debug",
      ...extra,
    ],
  });
  batchers.push(batcher);
  return batcher;
}

/**
 * Transfers with 100 incompressible bytes of data from accounts 5-7, through whichever node is up: at most 3 a
 * second, so that an L2 block always fits in one phase-1 channel (3 frames of 1000 bytes) and a channel fills with
 * about 18 of them.
 */
async function sendTraffic(): Promise<void> {
  const keys = devAccounts(8).slice(5, 8);
  for (let i = 0; !stopTraffic; i++) {
    const current = node;
    if (current === undefined || current.process.exitCode !== null || current.process.signalCode !== null) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const chain = defineChain({
      id: 901,
      name: "devnet L2",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [current.url] } },
    });
    const account = privateKeyToAccount(keys[i % keys.length]!.privateKey);
    const wallet = createWalletClient({ account, chain, transport: http(current.url, { retryCount: 0 }) });
    const data = bytesToHex(crypto.getRandomValues(new Uint8Array(100)));
    try {
      await wallet.sendTransaction({ to: devnetAccount("buyer").address, value: 1n, data, gas: 60_000n });
      sent++;
    } catch {
      // The node is being killed or restarted: try again shortly.
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function l2Block(url: string, tag: bigint | "latest" | "safe"): Promise<{ number: bigint; hash: Hex }> {
  const client = createPublicClient({ transport: http(url, { timeout: 60_000 }) });
  const block =
    typeof tag === "bigint"
      ? await client.getBlock({ blockNumber: tag })
      : await client.getBlock({ blockTag: tag });
  return { number: block.number, hash: block.hash };
}

beforeAll(async () => {
  l1 = await startDevnetL1({
    systemConfig: devnetSystemConfig(),
    mining: { mode: "interval", blockTimeSeconds: 1 },
    stateDir: join(dataDir, "l1"),
    stateIntervalSeconds: 5,
  });
  rollup = await ensureDevnetRollupConfig(l1, { dataDir, blockTime: 1 });
  node = await startNode();
  traffic = sendTraffic();
}, 180_000);

afterAll(async () => {
  stopTraffic = true;
  await traffic?.catch(() => undefined);
  for (const b of batchers) await b.kill();
  await node?.kill();
  await l1?.anvil.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the devnet after kill -9 of the batcher mid-channel and of the node", () => {
  it("derives its safe head up to the sealed head; L1 holds every frame and every sealed block once", async () => {
    // Phase 1: small calldata frames, three per channel (closed when full), four L1 confirmations before the next
    // frame: a channel spans many L1 blocks. The batcher is killed as it starts on frame 1 of a channel: frame 0 is on L1, frame 1
    // may be in the pool, frame 2 can never be sent (it waits for frame 1's confirmations).
    const first = startBatcher(30, "calldata", [
      "--max-l1-tx-size-bytes",
      "1000",
      "--target-num-frames",
      "3",
      "--num-confirmations",
      "4",
    ]);
    await first.waitFor(posted, 1, 240_000);
    const secondTx = (l: LogLine): boolean =>
      l.msg === "posting channel transaction" && l.tx === 1 && l.txs === 3;
    // A channel that starts after the first one was posted (the first may have had three transactions too).
    const cutAt = await first.waitFor(secondTx, first.lines.filter(secondTx).length + 1, 240_000);
    await first.kill();
    const cut = cutAt.channelId as string;

    // The node dies too. Every block it sealed and served before must survive.
    const sealed = await l2Block(node!.url, "latest");
    const sealedHashes = await fetchAll(
      Number(sealed.number) + 1,
      async (n) => (await l2Block(node!.url, BigInt(n))).hash,
    );
    await node!.kill();

    // Phase 2: both restart; the batcher posts blobs.
    node = await startNode();
    const restartedNode = node;
    const hashesAfter = await fetchAll(
      sealedHashes.length,
      async (n) => (await l2Block(restartedNode.url, BigInt(n))).hash,
    );
    for (let n = 0; n < sealedHashes.length; n++)
      expect(hashesAfter[n], `L2 block ${n}`).toBe(sealedHashes[n]);
    const restarted = startBatcher(2, "blobs");
    const resumed = await restarted.waitFor((l) => l.msg === "resuming after L2 block", 1, 240_000);
    await restarted.waitFor(posted, 2, 240_000);
    stopTraffic = true;
    await traffic;
    expect(sent).toBeGreaterThan(20);

    // The safe head reaches the sealed head (the node checks every derived block against the sealed one).
    const target = await l2Block(node.url, "latest");
    const deadline = Date.now() + 240_000;
    let safe = await l2Block(node.url, "safe");
    while (safe.number < target.number && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      safe = await l2Block(node.url, "safe");
    }
    expect(safe.number, node.output().slice(-3000)).toBeGreaterThanOrEqual(target.number);
    expect(safe.hash).toBe((await l2Block(node.url, safe.number)).hash);
    await restarted.stop();

    const { frames, channels, blocks } = await readPostedBatches({
      client: l1.anvil.client,
      beaconUrl: l1.anvil.beaconUrl,
      inbox: l1.deployment.batchInbox,
      batcher: devnetAccount("batcher").address,
      fromBlock: rollup.config.genesis.l1.number,
      l2: { genesisTimestamp: rollup.config.genesisL2Time, blockTime: 1n, chainId: 901n },
    });
    try {
      // Nothing posted twice: every frame once.
      for (const [key, copies] of frames) expect(copies.length, key).toBe(1);
      // The cut channel's first frame is on L1 (its second may be), never its third; it never completes.
      expect(frames.has(`${cut}/0`)).toBe(true);
      expect(frames.has(`${cut}/2`)).toBe(false);
      expect(channels.some((c) => c.id === cut)).toBe(false);
    } catch (e) {
      // For the failure report: what the first batcher did around the cut, and where the frames landed.
      const report = (b: BatcherProcess): string =>
        b.lines
          .filter((l) => !txSent(l) || b === first)
          .map((l) => JSON.stringify(l))
          .join("\n");
      console.error(
        `${report(first)}\n---\n${report(restarted)}\n---\n${JSON.stringify(
          [...frames].map(([k, v]) => [k, v.map(Number)]),
        )}`,
      );
      throw e;
    }
    expect(channels.some((c) => c.da === "calldata" && c.blocks > 0)).toBe(true);
    expect(channels.some((c) => c.da === "blobs" && c.blocks > 0)).toBe(true);
    expect(BigInt(resumed.lastPosted as number)).toBeLessThan(sealed.number);
    // No block lost or doubled: the complete channels hold L2 blocks 1..N in order, each equal to the node's.
    expect(BigInt(blocks.length)).toBeGreaterThanOrEqual(target.number);
    const client = createPublicClient({ transport: http(node.url, { timeout: 60_000 }) });
    let withTxs = 0;
    const nodeBlocks = await fetchAll(blocks.length, (i) =>
      client.getBlock({ blockNumber: BigInt(i + 1), includeTransactions: true }),
    );
    for (let i = 0; i < blocks.length; i++) {
      const expected = nodeBlocks[i]!;
      const got = blocks[i]!;
      expect(got.timestamp, `L2 block ${i + 1}`).toBe(expected.timestamp);
      const [info, ...rest] = expected.transactions;
      expect(got.l1Origin, `L2 block ${i + 1}`).toBe(decodeL1InfoCalldata(hexToBytes(info!.input)).number);
      const userTxs = rest.filter((t) => t.typeHex !== "0x7e").map((t) => t.hash);
      expect(got.txHashes, `L2 block ${i + 1}`).toEqual(userTxs);
      if (userTxs.length > 0) withTxs++;
    }
    expect(withTxs).toBeGreaterThan(10);
    // The blocks sealed before the kill are still the node's blocks (hashes checked after the restart above).
    expect(toHex(rollup.config.genesis.l2.hash)).toBe(sealedHashes[0]);
  }, 600_000);
});
