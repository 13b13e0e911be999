/**
 * The driver end to end over a synthetic L1 chain: an agreed L2 head plus L1 blocks with deposits, config
 * updates, calldata and blob batches, and a missed sequencing window yield exactly the expected attributes;
 * withheld receipts, transactions or blobs are "data missing", never an empty or deposit-only block.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  decodeDepositTransaction,
  encodeDepositTransaction,
  encodeL1InfoDeposit,
  fromHex,
  userDepositSourceHash,
} from "../chain/index.js";
import { decodeL1InfoDeposit } from "./attributes/l1-info.js";
import { loadKzg } from "./blob/kzg.js";
import {
  type DeriveInput,
  type DeriveResult,
  type DerivedBlock,
  Derivation,
  type ExecutedBlock,
  derive,
} from "./driver.js";
import { CriticalDeriveError, DataMissingError, type DroppedInputError } from "./errors.js";
import {
  L1_CHAIN,
  SyntheticL1,
  agreedL2Block,
  batcher,
  channelPayloads,
  configUpdateLog,
  depositLog,
  genesisSystemConfig,
  l2Provider,
  l2Transactions,
  other,
  receipt,
  singularBatch,
  spanBatch,
  syntheticRollupConfig,
} from "./pipeline/synthetic.test-support.js";
import type { SingularBatchData } from "./types.js";
import { fakeHash } from "./validation/chain.test-support.js";

/** The hash the test "engine" gives L2 block n (the agreed head keeps its real header hash). */
const executedHash = (n: bigint) => fakeHash(0x99, n);
const l2Time = (n: bigint) => 1_000n + 2n * n;

interface Run {
  blocks: DerivedBlock[];
  result?: DeriveResult;
  error?: unknown;
  drops: DroppedInputError[];
}

async function run(
  input: Omit<DeriveInput, "onDropped" | "l1ChainConfig">,
  depositOnly: ReadonlySet<bigint> = new Set(),
): Promise<Run> {
  const drops: DroppedInputError[] = [];
  const blocks: DerivedBlock[] = [];
  const gen = derive({ ...input, l1ChainConfig: L1_CHAIN, onDropped: (e) => drops.push(e) });
  try {
    return { blocks, result: await drive(gen, blocks, depositOnly), drops };
  } catch (error) {
    return { blocks, error, drops };
  }
}

/** Runs a derivation generator to its end, "executing" each block (`executedHash`), collecting them in `blocks`. */
async function drive(
  gen: AsyncGenerator<DerivedBlock, DeriveResult, ExecutedBlock | undefined>,
  blocks: DerivedBlock[],
  depositOnly: ReadonlySet<bigint>,
): Promise<DeriveResult> {
  let step = await gen.next();
  while (!step.done) {
    blocks.push(step.value);
    step = await gen.next({
      hash: executedHash(step.value.number),
      depositOnly: depositOnly.has(step.value.number),
    });
  }
  return step.value;
}

/** The batch for L2 block n on parent n-1 (the agreed head is block 20). */
function batchFor(
  l1: SyntheticL1,
  head: Uint8Array,
  n: bigint,
  origin: bigint,
  txs: Uint8Array[] = [],
): SingularBatchData {
  return {
    parentHash: n === 21n ? head : executedHash(n - 1n),
    epochNumber: origin,
    epochHash: l1.hashes[Number(origin)]!,
    timestamp: l2Time(n),
    transactions: txs,
  };
}

const userDeposit = {
  from: fromHex(other.address),
  to: fromHex(batcher.address),
  mint: 5n,
  value: 7n,
  gas: 50_000n,
};

/**
 * L1 blocks 0-3 empty; agreed head L2 block 20 (time 1040) on origin 3 (time 1036), sequence number 2.
 * L1 4 (1048): a user deposit and a gas limit update to 25M.
 */
function baseChain(seqWindowSize = 20n) {
  const rollup = syntheticRollupConfig(seqWindowSize);
  const l1 = new SyntheticL1(rollup);
  l1.fillTo(3n);
  const head = agreedL2Block(l1, 20n, 3n, 2n, genesisSystemConfig(rollup));
  l1.addBlock({ receipts: [receipt([depositLog(userDeposit), configUpdateLog(2, 25_000_000n)])] });
  return { rollup, l1, head };
}

/** The happy path: L1 5 has a calldata channel for 21-24, L1 6 a blob tx with a span batch for 25-30. */
async function happyChain() {
  const { rollup, l1, head } = baseChain();
  const txs = await l2Transactions(1, 8);
  const singular = [
    batchFor(l1, head.hash, 21n, 3n, [txs[0]!]),
    batchFor(l1, head.hash, 22n, 3n, [txs[1]!, txs[2]!]),
    batchFor(l1, head.hash, 23n, 3n),
    batchFor(l1, head.hash, 24n, 4n, [txs[3]!]),
  ];
  const calldata = channelPayloads(1, singular.map(singularBatch));
  l1.addBlock({ transactions: await Promise.all(calldata.map((p) => l1.calldataTx(p))) }); // L1 5
  const spanBlocks = [25n, 26n, 27n, 28n, 29n, 30n].map((n) =>
    batchFor(
      l1,
      head.hash,
      n,
      n === 30n ? 5n : 4n,
      n === 26n ? [txs[4]!, txs[5]!] : n === 30n ? [txs[6]!] : [],
    ),
  );
  const blob = await l1.blobTx(channelPayloads(2, [spanBatch(spanBlocks, false)], { algo: "brotli" }));
  l1.addBlock({ transactions: [blob.raw] }); // L1 6
  l1.addBlock(); // L1 7
  return { rollup, l1, head, txs, singular, spanBlocks, blob };
}

/** Window 4: epoch 3 expires once L1 block 7 is read; the batch for 21 comes in L1 block `lateBatchIn`; L1 up to 12. */
async function missedWindowChain(lateBatchIn: 7 | 8) {
  const { rollup, l1, head } = baseChain(4n);
  const txs = await l2Transactions(3, 1);
  const payload = channelPayloads(1, [singularBatch(batchFor(l1, head.hash, 21n, 3n, txs))]);
  l1.fillTo(BigInt(lateBatchIn - 1));
  l1.addBlock({ transactions: [await l1.calldataTx(payload[0]!)] });
  l1.fillTo(12n);
  return { rollup, l1, head, txs };
}

function inputOf(
  c: {
    rollup: ReturnType<typeof syntheticRollupConfig>;
    l1: SyntheticL1;
    head: ReturnType<typeof agreedL2Block>;
  },
  target: bigint,
) {
  return {
    rollupConfig: c.rollup,
    l1: c.l1.provider,
    l2: l2Provider([c.head]),
    blobs: c.l1.blobs,
    agreedL2Head: 20n,
    agreedL2HeadHash: c.head.hash,
    l1Head: c.l1.head,
    target,
  };
}

/**
 * Derives as the node's safe head tracker does: one Derivation opened at L1 head `firstHead`, run towards each
 * target of `targets` (the sealed head growing) at every L1 head from `firstHead` to the chain's last, the L1
 * head moved on with followL1 between heads.
 */
async function runFollowing(
  c: Parameters<typeof inputOf>[0],
  firstHead: number,
  targets: readonly bigint[],
  depositOnly: ReadonlySet<bigint> = new Set(),
): Promise<Run & { runs: number }> {
  const drops: DroppedInputError[] = [];
  const blocks: DerivedBlock[] = [];
  const { target: _, ...input } = inputOf(c, 0n);
  const derivation = await Derivation.open({
    ...input,
    l1Head: c.l1.hashes[firstHead]!,
    l1ChainConfig: L1_CHAIN,
    onDropped: (e) => drops.push(e),
  });
  let result: DeriveResult | undefined;
  let runs = 0;
  for (let head = firstHead; head < c.l1.hashes.length; head++) {
    if (head > firstHead) expect(await derivation.followL1(c.l1.hashes[head]!)).toBe(true);
    for (const target of targets) {
      if (target <= derivation.safeHead.number) continue;
      runs++;
      result = await drive(derivation.run(target), blocks, depositOnly);
      expect(derivation.resumable).toBe(true);
      if (!result.reachedTarget) break;
    }
  }
  expect(derivation.derivedBlocks).toBe(blocks.length);
  return { blocks, result, drops, runs };
}

function info(block: DerivedBlock) {
  return decodeL1InfoDeposit(block.transactions[0]!);
}

describe("derive()", () => {
  // KZG (WebAssembly and the trusted setup) loads once per process and takes seconds, more on a loaded machine.
  beforeAll(() => loadKzg(), 600_000);

  it("yields exactly the expected attributes from calldata and blob batches, deposits and config updates", async () => {
    const c = await happyChain();
    const r = await run(inputOf(c, 30n));
    expect(r.error).toBeUndefined();
    expect(r.drops).toEqual([]);
    expect(r.result).toMatchObject({ reachedTarget: true, safeHead: { number: 30n } });
    expect(r.blocks.map((b) => b.number)).toEqual([21n, 22n, 23n, 24n, 25n, 26n, 27n, 28n, 29n, 30n]);

    const batches = [...c.singular, ...c.spanBlocks];
    for (const [i, b] of r.blocks.entries()) {
      const n = b.number;
      const origin = n >= 30n ? 5n : n >= 24n ? 4n : 3n;
      const seq = n >= 30n ? 0n : n >= 24n ? n - 24n : n - 18n;
      expect(b.attributes.timestamp).toBe(l2Time(n));
      expect(b.l1Origin.number).toBe(origin);
      expect(b.sequenceNumber).toBe(seq);
      expect(b.attributes.prevRandao).toEqual(c.l1.headers[Number(origin)]!.mixHash);
      expect(b.attributes.parentBeaconBlockRoot).toEqual(c.l1.headers[Number(origin)]!.parentBeaconBlockRoot);
      expect(b.parent.hash).toEqual(n === 21n ? c.head.hash : executedHash(n - 1n));
      // The gas limit update of L1 block 4 applies from the first block of epoch 4.
      expect(b.attributes.gasLimit).toBe(origin >= 4n ? 25_000_000n : 30_000_000n);
      const l1Info = info(b);
      expect([l1Info.number, l1Info.sequenceNumber]).toEqual([origin, seq]);
      expect(l1Info.blockHash).toEqual(c.l1.hashes[Number(origin)]);
      expect(l1Info.batcherAddress).toEqual(fromHex(batcher.address));
      // Deposits: the L1 info deposit, then L1 block 4's user deposit on block 24 only; then the batch's txs.
      const deposits = n === 24n ? 2 : 1;
      expect(b.attributes.depositCount).toBe(deposits);
      expect(b.transactions.slice(deposits)).toEqual(batches[i]!.transactions);
      expect(b.depositOnlyTransactions).toEqual(b.transactions.slice(0, deposits));
    }
    // Block 24, the first of epoch 4, field by field from the L1 data (not from the code under test).
    const b24 = r.blocks[3]!;
    const expectedInfo = encodeL1InfoDeposit({
      format: "isthmus",
      number: 4n,
      timestamp: 1_048n,
      baseFee: 1_000_000_004n,
      blockHash: c.l1.hashes[4]!,
      sequenceNumber: 0n,
      batcherAddress: fromHex(batcher.address),
      blobBaseFee: 1n, // excessBlobGas 0
      blobBaseFeeScalar: 810949,
      baseFeeScalar: 1368,
      operatorFeeScalar: 0,
      operatorFeeConstant: 0n,
      daFootprintGasScalar: 0,
    });
    const expectedDeposit = encodeDepositTransaction({
      sourceHash: userDepositSourceHash(c.l1.hashes[4]!, 0n),
      from: userDeposit.from,
      to: userDeposit.to,
      mint: 5n,
      value: 7n,
      gasLimit: 50_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    expect(b24.attributes).toMatchObject({
      number: 24n,
      parentHash: executedHash(23n),
      timestamp: 1_048n,
      prevRandao: c.l1.headers[4]!.mixHash,
      suggestedFeeRecipient: fromHex("0x4200000000000000000000000000000000000011"),
      parentBeaconBlockRoot: c.l1.headers[4]!.parentBeaconBlockRoot,
      gasLimit: 25_000_000n,
      eip1559Params: Uint8Array.of(0, 0, 0, 250, 0, 0, 0, 6),
      transactions: [expectedInfo, expectedDeposit, c.txs[3]],
      depositCount: 2,
      noTxPool: true,
      withdrawals: [],
    });
    expect(b24.attributes.minBaseFee).toBeUndefined(); // Jovian is not active
    const deposit = decodeDepositTransaction(r.blocks[3]!.transactions[1]!);
    expect(deposit).toMatchObject({ mint: 5n, value: 7n, gasLimit: 50_000n, isSystemTx: false });
    expect(deposit.from).toEqual(userDeposit.from);
    expect(deposit.to).toEqual(userDeposit.to);
  });

  it("stops at the target and reports an L1 head reached too early", async () => {
    const c = await happyChain();
    const short = await run(inputOf(c, 23n));
    expect(short.blocks.map((b) => b.number)).toEqual([21n, 22n, 23n]);
    expect(short.result).toMatchObject({ reachedTarget: true, safeHead: { number: 23n } });
    const far = await run(inputOf(c, 40n));
    expect(far.blocks.length).toBe(10);
    expect(far.result).toMatchObject({ reachedTarget: false, safeHead: { number: 30n } });
  });

  it("ignores transactions to the inbox not signed by the batcher", async () => {
    const { rollup, l1, head } = baseChain();
    const payload = channelPayloads(1, [
      singularBatch(batchFor(l1, head.hash, 21n, 3n, await l2Transactions(2, 1))),
    ]);
    l1.addBlock({ transactions: [await l1.calldataTx(payload[0]!, other)] });
    l1.addBlock();
    const r = await run(inputOf({ rollup, l1, head }, 21n));
    expect(r.blocks).toEqual([]);
    expect(r.result).toMatchObject({ reachedTarget: false });
  });

  it("reads batches from the batcher the system config names at each L1 block", async () => {
    const fromOld = await l2Transactions(7, 1);
    const fromNew = await l2Transactions(8, 1);
    async function chainWith(batcherUpdate: boolean) {
      const { rollup, l1, head } = baseChain();
      const a = channelPayloads(1, [singularBatch(batchFor(l1, head.hash, 21n, 3n, fromOld))]);
      const b = channelPayloads(2, [singularBatch(batchFor(l1, head.hash, 21n, 3n, fromNew))]);
      // L1 5: a batcher change to `other` (applied before the block's own batcher transactions are read), a
      // channel from the old batcher, then one from the new.
      l1.addBlock({
        transactions: [await l1.calldataTx(a[0]!), await l1.calldataTx(b[0]!, other)],
        receipts: batcherUpdate ? [receipt([configUpdateLog(0, fromHex(other.address))])] : [],
      });
      l1.addBlock();
      return run(inputOf({ rollup, l1, head }, 21n));
    }
    expect((await chainWith(false)).blocks[0]!.transactions.slice(1)).toEqual(fromOld);
    expect((await chainWith(true)).blocks[0]!.transactions.slice(1)).toEqual(fromNew);
  });

  it("checks a span batch overlapping the agreed chain against the L2 provider's blocks", async () => {
    const [agreedTx, otherTx, newTx] = await l2Transactions(9, 3);
    /** Agreed blocks 19 and 20 (20 holds `agreedTx`); L1 5 carries a span for 20-22 whose block 20 holds `tx20`. */
    async function runWith(tx20: Uint8Array, withhold19 = false) {
      const { rollup, l1 } = baseChain();
      const sc = genesisSystemConfig(rollup);
      const b19 = agreedL2Block(l1, 19n, 3n, 1n, sc);
      const b20 = agreedL2Block(l1, 20n, 3n, 2n, sc, [agreedTx!]);
      const block = (n: bigint, parentHash: Uint8Array, transactions: Uint8Array[]) => ({
        parentHash,
        epochNumber: 3n,
        epochHash: l1.hashes[3]!,
        timestamp: l2Time(n),
        transactions,
      });
      const span = spanBatch(
        [block(20n, b19.hash, [tx20]), block(21n, b20.hash, [newTx!]), block(22n, executedHash(21n), [])],
        false,
      );
      l1.addBlock({ transactions: [await l1.calldataTx(channelPayloads(1, [span])[0]!)] });
      l1.addBlock();
      return run({
        rollupConfig: rollup,
        l1: l1.provider,
        l2: l2Provider(withhold19 ? [b20] : [b19, b20]),
        blobs: l1.blobs,
        agreedL2Head: 20n,
        l1Head: l1.head,
        target: 22n,
      });
    }
    const ok = await runWith(agreedTx!);
    expect(ok.error).toBeUndefined();
    expect(ok.blocks.map((b) => b.number)).toEqual([21n, 22n]);
    expect(ok.blocks[0]!.transactions.slice(1)).toEqual([newTx]);
    const bad = await runWith(otherTx!);
    expect(bad.blocks).toEqual([]);
    expect(bad.drops.map((d) => d.details.reason)).toEqual(["overlap-tx-mismatch"]);
    // Block 19 (the span's parent) withheld by the L2 provider: data missing, not a dropped span.
    const withheld = await runWith(agreedTx!, true);
    expect(withheld.error).toBeInstanceOf(DataMissingError);
    expect(withheld.blocks).toEqual([]);
  });

  it("derives from the L2 genesis block (origin: the genesis L1 block, the rollup config's system config)", async () => {
    const rollup = syntheticRollupConfig();
    const l1 = new SyntheticL1(rollup);
    l1.addBlock(); // L1 genesis, time 1000
    const genesisBlock = { ...agreedL2Block(l1, 0n, 0n, 0n, genesisSystemConfig(rollup)), transactions: [] };
    rollup.genesis!.l2 = { number: 0n, hash: genesisBlock.hash };
    const txs = await l2Transactions(12, 2);
    const batch = (n: bigint, t: Uint8Array[]) => ({
      parentHash: n === 1n ? genesisBlock.hash : executedHash(n - 1n),
      epochNumber: 0n,
      epochHash: l1.hashes[0]!,
      timestamp: l2Time(n),
      transactions: t,
    });
    const payload = channelPayloads(1, [
      singularBatch(batch(1n, [txs[0]!])),
      singularBatch(batch(2n, [txs[1]!])),
    ]);
    l1.addBlock({ transactions: [await l1.calldataTx(payload[0]!)] });
    const r = await run({
      rollupConfig: rollup,
      l1: l1.provider,
      l2: l2Provider([genesisBlock]),
      blobs: l1.blobs,
      agreedL2Head: 0n,
      l1Head: l1.head,
      target: 2n,
    });
    expect(r.error).toBeUndefined();
    expect(r.blocks.map((b) => [b.number, b.l1Origin.number, b.sequenceNumber])).toEqual([
      [1n, 0n, 1n],
      [2n, 0n, 2n],
    ]);
    expect(r.blocks.map((b) => b.transactions.slice(1))).toEqual([[txs[0]], [txs[1]]]);
    expect(r.blocks[0]!.attributes.gasLimit).toBe(30_000_000n);
    // A genesis block that is not the rollup config's is refused.
    const other = await run({
      rollupConfig: { ...rollup, genesis: { ...rollup.genesis!, l2: { number: 0n, hash: fakeHash(7, 7) } } },
      l1: l1.provider,
      l2: l2Provider([genesisBlock]),
      blobs: l1.blobs,
      agreedL2Head: 0n,
      l1Head: l1.head,
      target: 2n,
    });
    expect(other.error).toBeInstanceOf(CriticalDeriveError);
  });

  it("after a deposit-only block, drops the rest of its channel", async () => {
    const c = await happyChain();
    const r = await run(inputOf(c, 30n), new Set([22n]));
    // 23 and 24 were in 22's channel; the span batch for 25-30 is then in the future and dropped too.
    expect(r.blocks.map((b) => b.number)).toEqual([21n, 22n]);
    expect(r.result).toMatchObject({
      reachedTarget: false,
      safeHead: { number: 22n, hash: executedHash(22n) },
    });
    expect(r.drops.map((d) => d.details.reason)).toContain("future-timestamp");
  });

  describe("a missed sequencing window", () => {
    // Window 4: epoch 3 expires once L1 block 7 is read.
    async function missed(lateBatchIn: 7 | 8) {
      const c = await missedWindowChain(lateBatchIn);
      return { r: await run(inputOf(c, 31n)), txs: c.txs, l1: c.l1 };
    }

    it("derives empty batches (deposits only) once the window has run out", async () => {
      const { r, l1 } = await missed(8);
      expect(r.error).toBeUndefined();
      expect(r.blocks.map((b) => b.number)).toEqual([21n, 22n, 23n, 24n, 25n, 26n, 27n, 28n, 29n, 30n, 31n]);
      for (const b of r.blocks) {
        const origin = b.number >= 30n ? 5n : b.number >= 24n ? 4n : 3n;
        expect([b.number, b.l1Origin.number]).toEqual([b.number, origin]);
        expect(b.batch.transactions).toEqual([]);
        expect(b.transactions.length).toBe(b.attributes.depositCount);
        expect(info(b).blockHash).toEqual(l1.hashes[Number(origin)]);
      }
      // The epoch's user deposit still goes into its first block.
      expect(r.blocks[3]!.attributes.depositCount).toBe(2);
      // The batch for 21 came after the window: it is past by then.
      expect(r.blocks[0]!.derivedFrom.number).toBe(7n);
    });

    it("uses a batch in the last L1 block of the window instead of an empty one", async () => {
      const { r, txs } = await missed(7);
      expect(r.blocks[0]!.transactions.slice(1)).toEqual(txs);
      expect(r.blocks.slice(1).every((b) => b.batch.transactions.length === 0)).toBe(true);
    });
  });

  describe("fails closed on withheld data", () => {
    it("a withheld L1 receipt list is data missing, never an empty block", async () => {
      const c = await happyChain();
      c.l1.provider.withholdReceipts(c.l1.hashes[4]!);
      const r = await run(inputOf(c, 30n));
      expect(r.error).toBeInstanceOf(DataMissingError);
      expect((r.error as DataMissingError).stage).toBe("traversal");
      expect(r.blocks).toEqual([]);
    });

    it("a withheld blob is data missing, never a deposit-only block", async () => {
      const c = await happyChain();
      c.l1.blobs.withhold(c.blob.hashes[0]!);
      const r = await run(inputOf(c, 30n));
      expect(r.error).toBeInstanceOf(DataMissingError);
      // The calldata channel's blocks came before the blob was needed; nothing after it was derived.
      expect(r.blocks.map((b) => b.number)).toEqual([21n, 22n, 23n, 24n]);
      expect(
        r.blocks.every((b) => b.transactions.length > b.attributes.depositCount || b.number === 23n),
      ).toBe(true);
    });

    it("withheld L1 transactions are data missing", async () => {
      const c = await happyChain();
      c.l1.provider.withholdTransactions(c.l1.hashes[5]!);
      const r = await run(inputOf(c, 30n));
      expect(r.error).toBeInstanceOf(DataMissingError);
      expect(r.blocks).toEqual([]);
    });

    it("a missing agreed L2 block is data missing", async () => {
      const c = await happyChain();
      const r = await run({ ...inputOf(c, 30n), l2: l2Provider([]) });
      expect(r.error).toBeInstanceOf(DataMissingError);
    });
  });

  describe("refusals", () => {
    it("refuses a derivation start before Holocene", async () => {
      const c = await happyChain();
      c.rollup.forkTimes[7] = 2_000n; // Holocene after every block here
      const r = await run(inputOf(c, 30n));
      expect(r.error).toBeInstanceOf(CriticalDeriveError);
      expect((r.error as CriticalDeriveError).details).toMatchObject({ start: 0n });
    });

    it("refuses an agreed head hash the L2 provider does not have", async () => {
      const c = await happyChain();
      const r = await run({ ...inputOf(c, 30n), agreedL2HeadHash: fakeHash(1, 1) });
      expect(r.error).toBeInstanceOf(CriticalDeriveError);
    });

    it("refuses an L1 head that does not contain the agreed head's origin", async () => {
      const c = await happyChain();
      const r = await run({ ...inputOf(c, 30n), l1Head: c.l1.hashes[2]! });
      expect(r.error).toBeInstanceOf(CriticalDeriveError);
    });

    it("requires the executed block from the caller", async () => {
      const c = await happyChain();
      const gen = derive({ ...inputOf(c, 30n), l1ChainConfig: L1_CHAIN });
      await gen.next();
      await expect(gen.next()).rejects.toBeInstanceOf(CriticalDeriveError);
    });
  });

  describe("a derivation that follows the L1 head (Derivation)", () => {
    /** What a derivation following every L1 head yields must be what one derive() over the last head yields. */
    async function expectSameAsOneRun(
      c: Parameters<typeof inputOf>[0],
      firstHead: number,
      targets: readonly bigint[],
      depositOnly: ReadonlySet<bigint> = new Set(),
    ) {
      const once = await run(inputOf(c, targets[targets.length - 1]!), depositOnly);
      expect(once.error).toBeUndefined();
      const following = await runFollowing(c, firstHead, targets, depositOnly);
      expect(following.error).toBeUndefined();
      expect(following.blocks.length).toBeGreaterThan(0);
      expect(following.blocks).toEqual(once.blocks);
      expect(following.result).toEqual(once.result);
      expect(following.drops.map((d) => d.details.reason)).toEqual(once.drops.map((d) => d.details.reason));
      return following;
    }

    it("yields the same blocks as one run over the last L1 head: calldata and blob channels, deposits, config updates", async () => {
      const c = await happyChain();
      const following = await expectSameAsOneRun(c, 3, [30n]);
      // One run per L1 head until the target was reached at L1 block 6 (blocks 3-6).
      expect(following.runs).toBe(4);
      // The target growing between runs at one L1 head (the node's sealed head moving on) changes nothing either.
      await expectSameAsOneRun(await happyChain(), 3, [22n, 23n, 27n, 30n]);
    });

    it("yields the same blocks across a missed sequencing window (empty batches, an epoch advanced at eof)", async () => {
      for (const lateBatchIn of [7, 8] as const) {
        const c = await missedWindowChain(lateBatchIn);
        for (const firstHead of [3, 5, 6, 7, 8, 9, 10, 12]) {
          await expectSameAsOneRun(c, firstHead, [31n]);
          await expectSameAsOneRun(c, firstHead, [22n, 24n, 25n, 29n, 31n]);
        }
      }
    });

    it("yields the same blocks after a deposit-only block drops the rest of its channel", async () => {
      await expectSameAsOneRun(await happyChain(), 4, [30n], new Set([22n]));
    });

    it("cannot go on after an unfinished run or onto an L1 head that does not descend from its own", async () => {
      const c = await happyChain();
      const { target: _, ...input } = inputOf(c, 0n);
      const open = () => Derivation.open({ ...input, l1Head: c.l1.hashes[5]!, l1ChainConfig: L1_CHAIN });
      // A reorged L1 block 6 (other contents on the same parent) is not a descendant of block 5's successor 6.
      const derivation = await open();
      expect(await derivation.followL1(c.l1.hashes[6]!)).toBe(true);
      const fork6 = c.l1.provider.add({
        header: { ...c.l1.headers[6]!, mixHash: new Uint8Array(32).fill(0x66) },
        transactions: [],
        receipts: [],
      });
      const fork7 = c.l1.provider.add({
        header: { ...c.l1.headers[7]!, parentHash: fork6 },
        transactions: [],
        receipts: [],
      });
      expect(await derivation.followL1(fork7)).toBe(false);
      expect(derivation.l1Head.hash).toEqual(c.l1.hashes[6]);
      expect(await derivation.followL1(c.l1.hashes[7]!)).toBe(true);

      // A run left at a yielded block (its execution never reported) leaves the derivation unusable.
      const gen = derivation.run(30n);
      const first = await gen.next();
      expect(first.done).toBe(false);
      expect(derivation.resumable).toBe(false);
      expect(() => derivation.run(30n).next()).rejects.toBeInstanceOf(CriticalDeriveError);
      await expect(derivation.followL1(c.l1.hashes[7]!)).rejects.toBeInstanceOf(CriticalDeriveError);
      await gen.return(undefined as never);
      expect(derivation.resumable).toBe(false);
      await expect(derivation.run(30n).next()).rejects.toThrow(/did not finish/);

      // So does a run that failed (a withheld blob).
      const failing = await open();
      expect(await failing.followL1(c.l1.hashes[7]!)).toBe(true);
      c.l1.blobs.withhold(c.blob.hashes[0]!);
      const r = failing.run(30n);
      let step = await r.next();
      while (!step.done)
        step = await r
          .next({ hash: executedHash(step.value.number), depositOnly: false })
          .catch((e: unknown) => {
            expect(e).toBeInstanceOf(DataMissingError);
            return { done: true, value: undefined } as never;
          });
      expect(failing.resumable).toBe(false);
      // A target before the safe head is refused.
      const fresh = await open();
      await expect(fresh.run(19n).next()).rejects.toBeInstanceOf(CriticalDeriveError);
      expect(fresh.resumable).toBe(true);
    });
  });
});
