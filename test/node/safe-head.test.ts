/**
 * The L1-backed node derives its own safe and finalized heads (docs/node/l1.md "Safe and finalized
 * heads"): anvil with the devnet's contracts (1 s blocks, 2-slot epochs so `finalized` moves quickly), the devnet's
 * rollup.json (1 s L2 blocks), our node in L1 mode with its SafeHeadTracker (in this process, so every change of
 * the heads is seen), the batcher as a process posting calldata channels, then a second one posting blobs.
 * Meanwhile L2 transfers, two deposits through the portal, and SystemConfig changes (gas limit, EIP-1559
 * parameters, operator fee). Over more than 24 L2 blocks the safe head reaches the sealed head (it advances only
 * on blocks whose derived hash equals the sealed one) and finalized follows anvil's finalized block. Then the node
 * and its batcher restart: the new tracker starts from the persisted finalized head and reaches the sealed head again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Hash, createWalletClient, defineChain, http, parseEther, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositPortalAbi, systemConfigAbi } from "../../contracts/index.js";
import type { BatcherProcess, LogLine } from "../../src/batcher/test/spawn-batcher.js";
import { decodeOpExtraData, devAccounts, toHex } from "../../src/chain/index.js";
import { decodeL1InfoDeposit, type L2BlockRef } from "../../src/derive/index.js";
import { devnetSystemConfig } from "../../src/devnet/accounts.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { type DevnetRollup, ensureDevnetRollupConfig } from "../../src/devnet/rollup-config.js";
import { createLogger } from "../../src/log/index.js";
import { ChainNode } from "../../src/node/chain-node.js";
import {
  type SafeHeadTracker,
  derivedSyncStatus,
  nodeSafeHeadTracker,
} from "../../src/node/safe-head/index.js";
import { createNodeServer } from "../../src/node/server.js";
import type { RpcServer } from "../../src/rpc/index.js";
import { startBatcher as spawnChainBatcher } from "./l1-chain.js";

// Enough for two calldata channels, the blob batcher's first channels and five L1 changes to be adopted (on 1 s L1
// blocks all of them land within the first 20 or so L2 blocks; the target also waits for the block that adopted the
// last change), and for several 2-slot L1 epochs to finalize.
const MIN_BLOCKS = 24n;
const NEW_GAS_LIMIT = 45_000_000n;
const NEW_EIP1559 = { denominator: 100n, elasticity: 4n };
const NEW_OPERATOR_FEE = { scalar: 1_000, constant: 50n };
const logger = createLogger({ name: "safe-head-e2e", level: "warn" });

let dir: string;
let l1: DevnetL1;
let rollup: DevnetRollup;
let node: ChainNode;
let server: RpcServer;
let url: string;
let tracker: SafeHeadTracker;
const batchers: BatcherProcess[] = [];
let stopTraffic = false;
let traffic: Promise<void> | undefined;
const changes: { safe: L2BlockRef; finalized: L2BlockRef }[] = [];

/** Resolves when `check` gives a value, re-checked every 200 ms. */
function until<T>(what: string, check: () => T | undefined, timeoutMs = 240_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      clearInterval(timer);
      reject(new Error(`timed out waiting for ${what}; tracker status ${JSON.stringify(status())}`));
    }, timeoutMs);
    const timer = setInterval(() => {
      const value = check();
      if (value !== undefined) {
        clearTimeout(deadline);
        clearInterval(timer);
        resolve(value);
      }
    }, 200);
  });
}

function status(): unknown {
  const s = tracker?.status;
  return {
    head: node?.head.header.number.toString(),
    safe: s?.safe.number.toString(),
    finalized: s?.finalized.number.toString(),
    l1Head: s?.l1Head?.number.toString(),
    l1Finalized: s?.l1Finalized?.number.toString(),
    lastError: s?.lastError?.message,
    halted: s?.halted?.message,
  };
}

function startBatcher(da: "calldata" | "blobs"): BatcherProcess {
  const b = spawnChainBatcher({
    l1RpcUrl: l1.anvil.rpcUrl,
    l2RpcUrl: url,
    rollupConfigPath: rollup.path,
    dataAvailability: da,
  });
  batchers.push(b);
  return b;
}

const posted = (l: LogLine): boolean => l.msg === "channel posted";

async function l1Send(
  index: number,
  send: (w: ReturnType<typeof l1Wallet>) => Promise<Hash>,
): Promise<bigint> {
  const hash = await send(l1Wallet(index));
  const receipt = await l1.anvil.client.waitForTransactionReceipt({
    hash,
    pollingInterval: 100,
    timeout: 120_000,
  });
  expect(receipt.status).toBe("success");
  return receipt.blockNumber;
}

function l1Wallet(index: number) {
  return createWalletClient({
    account: privateKeyToAccount(devAccounts(index + 1)[index]!.privateKey),
    chain: l1.anvil.chain,
    transport: http(l1.anvil.rpcUrl, { timeout: 60_000 }),
  });
}

async function sendTraffic(): Promise<void> {
  const chain = defineChain({
    id: Number(rollup.config.l2ChainId),
    name: "L2",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const wallet = createWalletClient({
    account: privateKeyToAccount(devAccounts(8)[7]!.privateKey),
    chain,
    transport: http(url, { timeout: 60_000 }),
  });
  for (let i = 0; !stopTraffic; i++) {
    // While the node restarts (second test) sends fail: the traffic goes on once it is back.
    await wallet
      .sendTransaction({
        to: devAccounts(10)[9]!.address,
        value: BigInt(i + 1),
        maxFeePerGas: parseGwei("50"),
        maxPriorityFeePerGas: parseGwei("1"),
      })
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 400));
  }
}

/** Opens the node (its data directory kept across calls), its tracker and its server (on any free port). */
async function startL2(): Promise<void> {
  node = await ChainNode.open({
    dataDir: join(dir, "node"),
    chainId: rollup.config.l2ChainId,
    blockTimeMs: 1000,
    flashblockIntervalMs: 200,
    devAccountCount: 10,
    preconfirmedReceipts: true,
    l1: {
      rollupConfig: rollup.config,
      l1RpcUrl: l1.anvil.rpcUrl,
      l1BeaconUrl: l1.anvil.beaconUrl,
      confirmations: 1,
      pollIntervalMs: 200,
    },
    callWorkers: 0,
    callTimeoutMs: 5_000,
    logger,
  });
  tracker = nodeSafeHeadTracker(node, {
    l1RpcUrl: l1.anvil.rpcUrl,
    l1BeaconUrl: l1.anvil.beaconUrl,
    pollIntervalMs: 200,
    logger,
  });
  server = createNodeServer(node, {
    host: "127.0.0.1",
    port: 0,
    logger,
    syncStatus: derivedSyncStatus(node, tracker),
  });
  url = `http://127.0.0.1:${await server.listen()}`;
  tracker.onChange((heads) => changes.push(heads));
  node.start();
  tracker.start();
}

async function stopL2(): Promise<void> {
  await tracker.stop();
  await server.close({ drainMs: 0 });
  await node.close();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "safe-head-e2e-"));
  l1 = await startDevnetL1({
    systemConfig: devnetSystemConfig(),
    mining: { mode: "interval", blockTimeSeconds: 1 },
    slotsInAnEpoch: 2,
  });
  rollup = await ensureDevnetRollupConfig(l1, { dataDir: dir, blockTime: 1 });
  await startL2();
  traffic = sendTraffic();
}, 180_000);

afterAll(async () => {
  stopTraffic = true;
  await traffic?.catch(() => undefined);
  for (const b of batchers) await b.stop().catch(() => undefined);
  if (node !== undefined) await stopL2();
  await l1?.anvil.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the L1-backed node's derived safe and finalized heads", () => {
  it("reach the sealed head over 24+ blocks with transfers, deposits, calldata and blob channels and SystemConfig changes", async () => {
    const portal = l1.deployment.depositPortal;
    const systemConfig = l1.deployment.systemConfig;
    const depositor = devAccounts(7)[6]!.address;
    const calldata = startBatcher("calldata");

    // Two senders (accounts 6 and 0): their transactions go side by side.
    await Promise.all([
      l1Send(6, (w) =>
        w.writeContract({
          address: portal,
          abi: depositPortalAbi,
          functionName: "depositTransaction",
          args: [depositor, parseEther("0.5"), 100_000n, false, "0x"],
          value: parseEther("1"),
        }),
      ),
      l1Send(0, (w) =>
        w.writeContract({
          address: systemConfig,
          abi: systemConfigAbi,
          functionName: "setGasLimit",
          args: [NEW_GAS_LIMIT],
        }),
      ),
    ]);
    // The calldata batcher posts at least two channels, the second one after the first changes.
    await calldata.waitFor(posted, 2, 180_000);
    await calldata.stop();
    const lastCalldata = BigInt(calldata.lines.filter(posted).at(-1)!.to as number);
    const blobs = startBatcher("blobs");

    // Account 0's two changes one after the other (one nonce each), the second deposit beside them.
    const systemConfigChanges = async (): Promise<bigint> => {
      await l1Send(0, (w) =>
        w.writeContract({
          address: systemConfig,
          abi: systemConfigAbi,
          functionName: "setEIP1559Params",
          args: [Number(NEW_EIP1559.denominator), Number(NEW_EIP1559.elasticity)],
        }),
      );
      return l1Send(0, (w) =>
        w.writeContract({
          address: systemConfig,
          abi: systemConfigAbi,
          functionName: "setOperatorFeeScalars",
          args: [NEW_OPERATOR_FEE.scalar, NEW_OPERATOR_FEE.constant],
        }),
      );
    };
    const landed = await Promise.all([
      systemConfigChanges(),
      l1Send(6, (w) =>
        w.writeContract({
          address: portal,
          abi: depositPortalAbi,
          functionName: "depositTransaction",
          args: [depositor, 0n, 100_000n, false, "0x"],
          value: parseEther("0.25"),
        }),
      ),
    ]);
    // The L1 block of the last change to land.
    const lastChange = landed.reduce((a, b) => (a > b ? a : b));

    // The sealed head the safe head must reach: past MIN_BLOCKS blocks and past the block that adopted the last change.
    const target = await until(`${MIN_BLOCKS} L2 blocks including every L1 change`, () => {
      const head = node.head;
      if (head.header.number < MIN_BLOCKS) return undefined;
      const origin = decodeL1InfoDeposit(head.transactions[0]!).number;
      return origin > lastChange ? head.header.number : undefined;
    });
    await blobs.waitFor((l) => posted(l) && BigInt(l.to as number) >= target, 1, 240_000);
    expect(blobs.lines.filter(posted).every((l) => l.da === "blobs")).toBe(true);
    expect(calldata.lines.filter(posted).every((l) => l.da === "calldata")).toBe(true);

    await until("the safe head to reach the target", () =>
      tracker.safe.number >= target ? true : undefined,
    );
    expect(tracker.status.halted).toBeUndefined();
    expect(lastCalldata).toBeLessThan(target);
    // The node's `safe` tag is the derived head (clamped to its head).
    const safeTag = node.resolveTag("safe");
    expect(safeTag?.kind === "sealed" && safeTag.block.header.number >= target).toBe(true);

    // Every step of the safe head was a sealed block, in order, and finalized never passed it.
    let previous = 0n;
    for (const { safe, finalized } of changes) {
      expect(finalized.number).toBeLessThanOrEqual(safe.number);
      const sealed = node.store.blockByNumber(safe.number)!;
      expect(toHex(safe.hash)).toBe(toHex(sealed.hash));
      if (safe.number > previous) expect(safe.number).toBe(previous + 1n);
      previous = safe.number;
    }

    // What derivation reproduced includes the deposits and the SystemConfig changes.
    let userDeposits = 0;
    let gasLimitSeen = false;
    for (let n = 1n; n <= target; n++) {
      const block = node.store.blockByNumber(n)!;
      userDeposits += block.transactions.slice(1).filter((t) => t[0] === 0x7e).length;
      if (block.header.gasLimit === NEW_GAS_LIMIT) gasLimitSeen = true;
    }
    expect(userDeposits).toBe(2);
    expect(gasLimitSeen).toBe(true);
    const last = node.store.blockByNumber(target)!;
    expect(last.header.gasLimit).toBe(NEW_GAS_LIMIT);
    expect(decodeOpExtraData(last.header.extraData)).toMatchObject(NEW_EIP1559);
    const info = decodeL1InfoDeposit(last.transactions[0]!);
    expect(info.operatorFeeScalar).toBe(NEW_OPERATOR_FEE.scalar);
    expect(info.operatorFeeConstant).toBe(NEW_OPERATOR_FEE.constant);

    // Finalized follows anvil's finalized block up to the target.
    await until("finalized to reach the target", () =>
      tracker.finalized.number >= target ? true : undefined,
    );
    expect(tracker.status.l1Finalized!.number).toBeGreaterThan(0n);
    const finalizedTag = node.resolveTag("finalized");
    expect(finalizedTag?.kind === "sealed" && finalizedTag.block.header.number >= target).toBe(true);

    // optimism_syncStatus reports the derived heads and the L1 the tracker sees.
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "optimism_syncStatus", params: [] }),
    });
    const sync = ((await response.json()) as { result: Record<string, { number: number; hash: string }> })
      .result;
    expect(BigInt(sync.safe_l2!.number)).toBeGreaterThanOrEqual(target);
    expect(BigInt(sync.finalized_l2!.number)).toBeGreaterThanOrEqual(target);
    expect(sync.unsafe_l2!.number).toBeGreaterThanOrEqual(sync.safe_l2!.number);
    expect(sync.safe_l2!.number).toBeGreaterThanOrEqual(sync.finalized_l2!.number);
    expect(sync.safe_l2!.hash).toBe(toHex(node.store.blockByNumber(BigInt(sync.safe_l2!.number))!.hash));
    expect(sync.head_l1!.number).toBeGreaterThanOrEqual(sync.finalized_l1!.number);
    expect(sync.finalized_l1!.number).toBeGreaterThan(0);
    const round = tracker.status.lastRound!;
    logger.warn(
      {
        round: {
          ...round,
          l1Head: Number(round.l1Head.number),
          from: Number(round.from),
          to: Number(round.to),
          target: Number(round.target),
        },
      },
      "last derivation round",
    );
  }, 420_000);

  it("after a restart starts from the persisted finalized head and reaches the sealed head again", async () => {
    // The batcher goes down with the node and is started again on its new URL (it resumes from what L1 holds).
    for (const b of batchers) await b.stop();
    await stopL2();
    const before = { safe: tracker.safe.number, finalized: tracker.finalized.number };
    expect(before.finalized).toBeGreaterThan(0n);
    await startL2();
    const blobs = startBatcher("blobs");
    // The new tracker starts where the old one had finalized (a restart derives from there).
    expect(tracker.finalized.number).toBe(before.finalized);
    expect(tracker.safe.number).toBe(before.finalized);
    const restartedAt = node.head.header.number;
    const target = await until("six blocks after the restart", () =>
      node.head.header.number >= restartedAt + 6n ? node.head.header.number : undefined,
    );
    await blobs.waitFor((l) => posted(l) && BigInt(l.to as number) >= target, 1, 240_000);
    await until("the safe head to reach the sealed head after the restart", () =>
      tracker.safe.number >= target ? true : undefined,
    );
    expect(tracker.status.halted).toBeUndefined();
    expect(toHex(tracker.safe.hash)).toBe(toHex(node.store.blockByNumber(tracker.safe.number)!.hash));
    await until("finalized to follow", () => (tracker.finalized.number >= target ? true : undefined));
  }, 420_000);
});
