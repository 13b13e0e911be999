/**
 * The safe head tracker (src/node/safe-head) over a real L1 before the node's L1-mode sequencer exists: anvil with
 * the devnet's contracts and rollup.json, two node stores (src/node's BlockStore) holding L2 blocks sealed over real
 * L1 origins with src/derive's attributes builder and src/chain's engine, and the batcher's channel code
 * (src/batcher buildChannel / channelTransactions) posting store A's blocks to the batch inbox, as calldata and as a
 * blob. Store B holds the same chain except block 7, which carries one transaction L1 never saw.
 *
 * - over store A the safe head reaches the sealed head, each safe block is the sealed one, and finalized follows
 *   anvil's finalized block (two epochs of two slots), persisted for a restart;
 * - over store B the safe head stops at 6 with a DerivedBlockMismatchError naming block 7 and the first differing
 *   field, and does not move again while L1 goes on, until an L1 reorg removes the batch it came from: store B's own
 *   blocks posted on the new L1 are then derived;
 * - the pieces: the store-backed L2 provider, the first-difference report, the lazily loaded, verifying blob cache.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Hex, bytesToHex, createWalletClient, http, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BatcherSettings,
  type L2BlockData,
  buildChannel,
  channelShape,
  channelTransactions,
} from "../../src/batcher/index.js";
import {
  type RollupConfig,
  buildRollupGenesis,
  bytesEqual,
  devAccounts,
  devL1ChainConfig,
  executeBlock,
  toHex,
} from "../../src/chain/index.js";
import { RpcL1Provider, BeaconBlobProvider } from "../../src/chain-rpc/index.js";
import {
  BlobMismatchError,
  type L1BlockRef,
  type L1OriginInfo,
  type L1Provider,
  buildPayloadAttributes,
  decodeL1InfoDeposit,
  l1OriginFromHeader,
  loadKzg,
  systemConfigFromGenesis,
  viemKzg,
} from "../../src/derive/index.js";
import { devnetAccount, devnetSystemConfig } from "../../src/devnet/accounts.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { ensureDevnetRollupConfig } from "../../src/devnet/rollup-config.js";
import { createLogger } from "../../src/log/index.js";
import {
  DerivedBlockMismatchError,
  FINALIZED_META_KEY,
  SafeHeadTracker,
  StoreL2Provider,
  VerifyingBlobCache,
  inThreadBlobVerifier,
  sharedBlobVerifier,
  firstDifference,
  rpcL1Sources,
} from "../../src/node/safe-head/index.js";
import { commitSealedInSteps } from "../../src/node/block-in-progress.js";
import { BlockStore, type StoredBlock } from "../../src/node/store/block-store.js";

const BLOCKS = 12;
const DIVERGES_AT = 7;
const logger = createLogger({ name: "safe-head-test", level: "warn" });

let dir: string;
let l1: DevnetL1;
let config: RollupConfig;
let storeA: BlockStore;
let storeB: BlockStore;
let genesisOrigin: L1OriginInfo;
let postedBlob: { ref: L1BlockRef; versioned: Uint8Array } | undefined;
/** The L1 block holding store A's blocks 7..BLOCKS (posted as a blob in beforeAll). */
let blobBatchL1Block: bigint;
const trackers: SafeHeadTracker[] = [];

/** Resolves when `check` holds, re-checked on every change of the tracker and every 100 ms of L1 polling. */
function until<T>(what: string, check: () => T | undefined, timeoutMs = 200_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      clearInterval(timer);
      const states = trackers.map((t) => ({
        safe: String(t.safe.number),
        finalized: String(t.finalized.number),
        l1Head: String(t.status.l1Head?.number),
        l1Finalized: String(t.status.l1Finalized?.number),
        lastError: t.status.lastError?.message,
      }));
      reject(new Error(`timed out waiting for ${what}; trackers ${JSON.stringify(states)}`));
    }, timeoutMs);
    const timer = setInterval(() => {
      const value = check();
      if (value !== undefined) {
        clearTimeout(deadline);
        clearInterval(timer);
        resolve(value);
      }
    }, 100);
  });
}

function signer(index: number) {
  return privateKeyToAccount(devAccounts(index + 1)[index]!.privateKey);
}

/** A transfer on L2 from development account `from`, signed (the same bytes every time: RFC 6979). */
function transfer(from: number, nonce: number, value: bigint): Promise<Hex> {
  return signer(from).signTransaction({
    type: "eip1559",
    chainId: Number(config.l2ChainId),
    nonce,
    to: devAccounts(7)[6]!.address,
    value,
    gas: 21_000n,
    maxFeePerGas: parseGwei("100"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
}

/** Seals one block over `parent` in `store` with L1 origin `origin` (the genesis epoch) and `txs`. */
async function seal(
  store: BlockStore,
  parent: StoredBlock,
  origin: L1OriginInfo,
  txs: Hex[],
): Promise<StoredBlock> {
  const parentSeq =
    parent.header.number === 0n ? 0n : decodeL1InfoDeposit(parent.transactions[0]!).sequenceNumber;
  const attributes = buildPayloadAttributes({
    rollupConfig: config,
    systemConfig: systemConfigFromGenesis(config.genesis!.systemConfig),
    l2Parent: {
      hash: parent.hash,
      number: parent.header.number,
      timestamp: parent.header.timestamp,
      l1OriginNumber: origin.number,
      l1OriginHash: origin.hash,
      sequenceNumber: parentSeq,
    },
    l1Origin: origin,
    batchTransactions: txs.map((t) => Uint8Array.from(Buffer.from(t.slice(2), "hex"))),
  });
  const sealed = await executeBlock({
    config,
    parent: parent.header,
    attributes,
    transactions: attributes.transactions,
    source: store,
  });
  return commitSealedInSteps(store, sealed, undefined);
}

function blockData(block: StoredBlock): L2BlockData {
  const info = decodeL1InfoDeposit(block.transactions[0]!);
  const deposits = block.transactions.filter((t) => t[0] === 0x7e).length;
  return {
    number: block.header.number,
    hash: bytesToHex(block.hash),
    parentHash: bytesToHex(block.header.parentHash),
    timestamp: block.header.timestamp,
    l1OriginNumber: info.number,
    l1OriginHash: info.blockHash,
    sequenceNumber: info.sequenceNumber,
    transactions: block.transactions.slice(deposits),
    depositCount: deposits,
  };
}

/**
 * Posts blocks `from..to` of `store` (default A) in one channel with the batcher's encoder; resolves once mined (by
 * this function when `mine`: anvil in manual mining), with the L1 block of the last transaction.
 */
async function post(
  from: number,
  to: number,
  dataAvailability: "calldata" | "blobs",
  mine = false,
  store: BlockStore = storeA,
): Promise<bigint> {
  const settings: BatcherSettings = {
    dataAvailability,
    compression: "zlib",
    targetNumFrames: 1,
    maxBlobsPerTx: 6,
    maxChannelDuration: 0,
    subSafetyMargin: 10n,
    seqWindowSize: config.seqWindowSize!,
    channelTimeout: 50n,
    l1StartBlock: 0n,
    maxCalldataTxBytes: 120_000,
    pollIntervalMs: 200,
    resubmitAfterBlocks: 10,
  };
  const blocks: L2BlockData[] = [];
  for (let n = from; n <= to; n++) blocks.push(blockData(store.blockByNumber(BigInt(n))!));
  const channel = buildChannel(
    blocks,
    { genesisTimestamp: config.genesisL2Time, blockTime: config.blockTime, chainId: config.l2ChainId },
    channelShape(settings),
  );
  expect(channel.blocks).toHaveLength(blocks.length);
  const wallet = createWalletClient({
    account: privateKeyToAccount(devnetAccount("batcher").privateKey),
    chain: l1.anvil.chain,
    transport: http(l1.anvil.rpcUrl, { timeout: 60_000 }),
  });
  let l1Block = 0n;
  for (const tx of channelTransactions(channel, settings)) {
    const hash =
      tx.kind === "calldata"
        ? await wallet.sendTransaction({ to: l1.deployment.batchInbox, data: bytesToHex(tx.data) })
        : await wallet.sendTransaction({
            to: l1.deployment.batchInbox,
            blobs: tx.blobs.map((b) => bytesToHex(b)),
            kzg: viemKzg(await loadKzg()),
            maxFeePerBlobGas: parseGwei("30"),
          });
    if (mine) await l1.anvil.mine();
    const receipt = await l1.anvil.client.waitForTransactionReceipt({
      hash,
      pollingInterval: 100,
      timeout: 120_000,
    });
    expect(receipt.status).toBe("success");
    l1Block = receipt.blockNumber;
  }
  return l1Block;
}

/** Counts the L1 blocks whose transactions derivation asks for (each block it reads asks once). */
class CountingL1 implements L1Provider {
  transactionReads = 0;
  constructor(private readonly l1: L1Provider) {}
  headerByHash(hash: Uint8Array) {
    return this.l1.headerByHash(hash);
  }
  headerByNumber(number: bigint) {
    return this.l1.headerByNumber(number);
  }
  transactionsByHash(hash: Uint8Array) {
    this.transactionReads++;
    return this.l1.transactionsByHash(hash);
  }
  receiptsByHash(hash: Uint8Array) {
    return this.l1.receiptsByHash(hash);
  }
}

function tracker(
  store: BlockStore,
  sealed: bigint,
  counting?: (l1: L1Provider) => L1Provider,
): SafeHeadTracker {
  const sources = rpcL1Sources({ l1RpcUrl: l1.anvil.rpcUrl, l1BeaconUrl: l1.anvil.beaconUrl });
  const t = new SafeHeadTracker({
    rollupConfig: config,
    l1ChainConfig: devL1ChainConfig(BigInt(l1.anvil.chainId)),
    store,
    l1: counting === undefined ? sources.l1 : counting(sources.l1),
    l1Heads: sources.heads,
    blobs: sources.blobs,
    sealedHead: () => sealed,
    logger,
    pollIntervalMs: 200,
  });
  trackers.push(t);
  return t;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "safe-head-"));
  l1 = await startDevnetL1({
    systemConfig: devnetSystemConfig(),
    mining: { mode: "interval", blockTimeSeconds: 1 },
    slotsInAnEpoch: 2,
  });
  const rollup = await ensureDevnetRollupConfig(l1, { dataDir: dir, blockTime: 1 });
  // The L2 genesis the node builds for a rollup config (src/chain buildRollupGenesis), anchored in that config.
  const genesis = await buildRollupGenesis(rollup.config, 10);
  config = {
    ...rollup.config,
    genesis: { ...rollup.config.genesis!, l2: { number: 0n, hash: genesis.hash } },
  };
  const origin = (genesisOrigin = l1OriginFromHeader(
    (await new RpcL1Provider(l1.anvil.rpcUrl, { pooledBlobTransactionsRoot: true }).headerByHash(
      config.genesis!.l1.hash,
    ))!,
    config,
    devL1ChainConfig(BigInt(l1.anvil.chainId)),
  ));
  storeA = new BlockStore(join(dir, "a.sqlite"));
  storeB = new BlockStore(join(dir, "b.sqlite"));
  const genesisBlock = {
    header: genesis.header,
    hash: genesis.hash,
    transactions: [],
    transactionHashes: [],
    receipts: [],
    details: [],
  };
  let a = storeA.commitBlock(genesisBlock, genesis.nodes);
  let b = storeB.commitBlock(genesisBlock, genesis.nodes);
  // Every block in the genesis epoch (the L1 block rollup.json anchors the L2 in), one transfer each.
  for (let n = 1; n <= BLOCKS; n++) {
    const txs = [await transfer(5, n - 1, BigInt(n))];
    a = await seal(storeA, a, origin, txs);
    b = await seal(storeB, b, origin, n === DIVERGES_AT ? [...txs, await transfer(8, 0, 1n)] : txs);
  }
  await post(1, 6, "calldata");
  blobBatchL1Block = await post(7, BLOCKS, "blobs");
}, 240_000);

afterAll(async () => {
  for (const t of trackers) await t.stop();
  await sharedBlobVerifier().close();
  storeA?.close();
  storeB?.close();
  await l1?.anvil.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("SafeHeadTracker over a real L1", () => {
  it("derives every posted block, equal to the sealed one, and finalizes with L1", async () => {
    const t = tracker(storeA, BigInt(BLOCKS));
    const seen: bigint[] = [];
    const hashes = new Map<bigint, Uint8Array>();
    // op-node's current_l1 is never behind the L1 data the safe head came from, also in the middle of a round (a
    // proposer proves the safe head from L1 up to current_l1): checked at every move of the safe head.
    const currentL1Behind: bigint[] = [];
    t.onChange(({ safe }) => {
      if (seen[seen.length - 1] !== safe.number) seen.push(safe.number);
      hashes.set(safe.number, safe.hash);
      const { currentL1 } = t.status;
      if (currentL1 === undefined || currentL1.number < safe.l1Origin.number)
        currentL1Behind.push(safe.number);
    });
    expect(t.safe.number).toBe(0n);
    // The first blob starts the process's KZG worker, which loads KZG and recomputes each blob's commitment (over a
    // second of blocking work a blob): this thread's timers keep firing meanwhile.
    let gap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
    }, 20);
    t.start();
    try {
      // The safe head moves during a round; the round's record is written when it ends: wait for both.
      await until("the safe head to reach the sealed head", () =>
        t.safe.number === BigInt(BLOCKS) && t.status.lastRound?.to === BigInt(BLOCKS) ? true : undefined,
      );
    } finally {
      clearInterval(timer);
    }
    expect(gap).toBeLessThan(5_000);
    expect(seen).toEqual(Array.from({ length: BLOCKS }, (_, i) => BigInt(i + 1)));
    expect(currentL1Behind).toEqual([]);
    for (let n = 1n; n <= BigInt(BLOCKS); n++) {
      expect(bytesEqual(hashes.get(n)!, storeA.blockByNumber(n)!.hash)).toBe(true);
    }
    expect(t.safe.l1Origin.number).toBe(config.genesis!.l1.number);
    expect(t.status.halted).toBeUndefined();
    expect(t.status.lastRound?.ms).toBeGreaterThan(0);

    await until("finalized to reach the sealed head", () =>
      t.finalized.number === BigInt(BLOCKS) ? true : undefined,
    );
    const l1Finalized = t.status.l1Finalized!;
    expect(l1Finalized.number).toBeGreaterThan(0n);
    expect(JSON.parse(storeA.getMeta(FINALIZED_META_KEY)!)).toEqual({
      number: String(BLOCKS),
      hash: toHex(storeA.blockByNumber(BigInt(BLOCKS))!.hash),
    });
    await t.stop();

    // A restart starts from the persisted finalized head.
    const restarted = tracker(storeA, BigInt(BLOCKS));
    expect(restarted.safe.number).toBe(BigInt(BLOCKS));
    expect(restarted.finalized.number).toBe(BigInt(BLOCKS));
  }, 300_000);

  it("stops the safe head before a sealed block L1 does not derive, with the differing field, until an L1 reorg removes that batch", async () => {
    const t = tracker(storeB, BigInt(BLOCKS));
    t.start();
    const halted = await until("the mismatch", () => t.status.halted);
    expect(halted).toBeInstanceOf(DerivedBlockMismatchError);
    expect(halted.kind).toBe("derived-block-mismatch");
    expect(halted.number).toBe(BigInt(DIVERGES_AT));
    expect(halted.difference).toEqual({ field: "transactionCount", sealed: "3", derived: "2" });
    expect(halted.details).toMatchObject({
      number: BigInt(DIVERGES_AT),
      sealedHash: toHex(storeB.blockByNumber(BigInt(DIVERGES_AT))!.hash),
      derivedHash: toHex(storeA.blockByNumber(BigInt(DIVERGES_AT))!.hash),
      depositOnly: false,
    });
    expect(t.safe.number).toBe(BigInt(DIVERGES_AT - 1));
    expect(t.status.lastError?.kind).toBe("derived-block-mismatch");

    // L1 goes on (new heads, finality): the safe head never passes the mismatch.
    const at = t.status.l1Head!.number;
    await until("three more L1 blocks", () => (t.status.l1Head!.number >= at + 3n ? true : undefined));
    expect(t.safe.number).toBe(BigInt(DIVERGES_AT - 1));
    expect(t.finalized.number).toBeLessThanOrEqual(BigInt(DIVERGES_AT - 1));
    expect(t.status.halted).toBe(halted);

    // Until an L1 reorg removes the batch the mismatch came from: then derivation runs again over the new L1, where
    // store B's own blocks 7..BLOCKS are posted, and the safe head passes the block it stopped before.
    await l1.anvil.setMining({ mode: "manual" });
    try {
      const depth = (await l1.anvil.client.getBlockNumber()) - blobBatchL1Block + 1n;
      await l1.anvil.request("anvil_reorg", [Number(depth), []]);
      await until("the halt to be lifted", () => (t.status.halted === undefined ? true : undefined));
      expect(t.safe.number).toBe(BigInt(DIVERGES_AT - 1));
      await post(DIVERGES_AT, BLOCKS, "blobs", true, storeB);
      await l1.anvil.mine();
      await until("the safe head to reach store B's head", () =>
        t.safe.number === BigInt(BLOCKS) ? true : undefined,
      );
      expect(bytesEqual(t.safe.hash, storeB.blockByNumber(BigInt(BLOCKS))!.hash)).toBe(true);
      expect(t.status.halted).toBeUndefined();
      await t.stop();
    } finally {
      await l1.anvil.setMining({ mode: "interval", blockTimeSeconds: 1 });
    }
  }, 300_000);
});

describe("an L1 reorg under the safe head", () => {
  it("drops the safe blocks whose batch the reorg removed and derives them again once re-posted", async () => {
    // Manual mining: the test decides when L1 blocks come, so the batch cannot become final before the reorg.
    await l1.anvil.setMining({ mode: "manual" });
    try {
      let a = storeA.blockByNumber(BigInt(BLOCKS))!;
      const last = BLOCKS + 4;
      for (let n = BLOCKS + 1; n <= last; n++)
        a = await seal(storeA, a, genesisOrigin, [await transfer(5, n - 1, BigInt(n))]);
      const lostAt = await post(BLOCKS + 1, last, "calldata", true);
      await l1.anvil.mine();
      let reads: CountingL1 | undefined;
      const t = tracker(storeA, BigInt(last), (l1) => (reads = new CountingL1(l1)));
      t.start();
      await until("the safe head to reach the new blocks", () =>
        t.safe.number === BigInt(last) ? true : undefined,
      );
      expect(t.finalized.number).toBe(BigInt(BLOCKS));

      // The reorg replaces the L1 blocks from the batch's on, without it.
      const depth = (await l1.anvil.client.getBlockNumber()) - lostAt + 1n;
      // No round runs while the safe head is the sealed head: the next round recorded is the first after the reorg.
      const roundBefore = t.status.lastRound;
      await l1.anvil.request("anvil_reorg", [Number(depth), []]);
      await until("the safe head to drop back", () => (t.safe.number === BigInt(BLOCKS) ? true : undefined));
      const at = t.status.l1Head!.number;
      // The round after the reorg opens a derivation from the safe head again (it reads the L1 window back to the
      // safe head's origin − channel timeout); the rounds after it continue that one, reading only new L1 blocks.
      await until("a round on the reorged L1", () =>
        t.status.lastRound !== roundBefore && t.status.lastRound!.l1Head.number >= at ? true : undefined,
      );
      expect(t.status.lastRound).toMatchObject({
        from: BigInt(BLOCKS),
        continued: false,
        reachedTarget: false,
      });
      const readsBefore = reads!.transactionReads;
      await l1.anvil.mine();
      await l1.anvil.mine();
      await until("two more L1 blocks", () => (t.status.l1Head!.number >= at + 2n ? true : undefined));
      await until("a round on them", () => (t.status.lastRound!.l1Head.number >= at + 2n ? true : undefined));
      expect(t.status.lastRound).toMatchObject({
        from: BigInt(BLOCKS),
        continued: true,
        reachedTarget: false,
      });
      expect(reads!.transactionReads - readsBefore).toBe(2);
      expect(t.safe.number).toBe(BigInt(BLOCKS));
      expect(t.status.halted).toBeUndefined();

      // The same blocks posted again on the new L1 chain are derived again.
      await post(BLOCKS + 1, last, "calldata", true);
      await l1.anvil.mine();
      await until("the safe head to reach the new blocks again", () =>
        t.safe.number === BigInt(last) ? true : undefined,
      );
      expect(bytesEqual(t.safe.hash, storeA.blockByNumber(BigInt(last))!.hash)).toBe(true);
      await t.stop();
    } finally {
      await l1.anvil.setMining({ mode: "interval", blockTimeSeconds: 1 });
    }
  }, 300_000);
});

describe("the tracker's pieces", () => {
  it("StoreL2Provider serves the sealed blocks up to its limit", async () => {
    let limit = 3n;
    const provider = new StoreL2Provider(storeA, () => limit);
    const block = (await provider.blockByNumber(3n))!;
    const stored = storeA.blockByNumber(3n)!;
    expect(block.hash).toEqual(stored.hash);
    expect(block.header).toEqual(stored.header);
    expect(block.transactions).toEqual(stored.transactions);
    expect(await provider.blockByNumber(4n)).toBeUndefined();
    limit = 100n;
    expect((await provider.blockByNumber(4n))?.hash).toEqual(storeA.blockByNumber(4n)!.hash);
    expect(await provider.blockByNumber(storeA.headNumber()! + 1n)).toBeUndefined();
  });

  it("firstDifference names the first field that differs", () => {
    const a = storeA.blockByNumber(BigInt(DIVERGES_AT))!;
    const b = storeB.blockByNumber(BigInt(DIVERGES_AT))!;
    expect(firstDifference(a, a)).toBeUndefined();
    expect(firstDifference(b, a)).toEqual({ field: "transactionCount", sealed: "3", derived: "2" });
    const later = {
      header: { ...a.header, timestamp: a.header.timestamp + 1n },
      transactions: a.transactions,
    };
    expect(firstDifference(a, later)).toEqual({
      field: "timestamp",
      sealed: String(a.header.timestamp),
      derived: String(a.header.timestamp + 1n),
    });
    const swapped = { header: a.header, transactions: [a.transactions[0]!, b.transactions[2]!] };
    expect(firstDifference(a, swapped)?.field).toBe("transactions[1]");
    const root = { header: { ...a.header, stateRoot: new Uint8Array(32) }, transactions: a.transactions };
    expect(firstDifference(a, root)?.field).toBe("stateRoot");
  });

  it("VerifyingBlobCache loads KZG on the first blob only and refuses a blob under another hash", async () => {
    const beacon = new BeaconBlobProvider(l1.anvil.beaconUrl);
    let loads = 0;
    const cache = new VerifyingBlobCache(
      beacon,
      inThreadBlobVerifier(() => {
        loads++;
        return loadKzg();
      }),
    );
    expect(cache.verified).toBe(true);
    expect(loads).toBe(0);
    // The blob posted above: the only blob transaction the batcher sent.
    const head = await l1.anvil.client.getBlockNumber();
    let found: { block: { number: bigint; hash: Hex }; hash: Hex } | undefined;
    for (let n = head; n > 0n && found === undefined; n--) {
      const block = await l1.anvil.client.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        const hashes = tx.blobVersionedHashes ?? [];
        if (hashes.length > 0)
          found = { block: { number: block.number, hash: block.hash }, hash: hashes[0]! };
      }
    }
    expect(found).toBeDefined();
    const ref = {
      number: found!.block.number,
      hash: Uint8Array.from(Buffer.from(found!.block.hash.slice(2), "hex")),
      parentHash: new Uint8Array(32),
      timestamp: 0n,
    };
    const versioned = Uint8Array.from(Buffer.from(found!.hash.slice(2), "hex"));
    postedBlob = { ref, versioned };
    const blob = await cache.blob(ref, 0, versioned);
    expect(blob).toHaveLength(131_072);
    expect(loads).toBe(1);
    expect(await cache.blob(ref, 0, versioned)).toBe(blob);
    expect(loads).toBe(1);

    // A server that answers another blob under this versioned hash is refused (fail closed).
    const lying = new VerifyingBlobCache({
      verified: false,
      blob: () => Promise.resolve(new Uint8Array(131_072)),
    });
    await expect(lying.blob(ref, 0, versioned)).rejects.toBeInstanceOf(BlobMismatchError);
  });

  it("the process's WorkerBlobVerifier accepts the posted blob and refuses a changed one", async () => {
    const { ref, versioned } = postedBlob!;
    const blob = (await new BeaconBlobProvider(l1.anvil.beaconUrl).blob(ref, 0, versioned))!;
    // The trackers above used it (rpcL1Sources' default): its KZG is loaded.
    const verifier = sharedBlobVerifier();
    try {
      await verifier.verify(blob, versioned);

      const other = new Uint8Array(blob);
      other[100] = other[100]! ^ 1;
      const refused = await verifier.verify(other, versioned).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(BlobMismatchError);
      expect((refused as BlobMismatchError).details).toHaveProperty("expected");
      // Through the cache, as the node uses it.
      const cache = new VerifyingBlobCache(new BeaconBlobProvider(l1.anvil.beaconUrl), (b, h) =>
        verifier.verify(b, h),
      );
      expect(await cache.blob(ref, 0, versioned)).toEqual(blob);
    } finally {
      await verifier.close();
    }
  }, 300_000);
});
