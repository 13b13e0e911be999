/** L1 traversal: anchored in the L1 head by parent hashes, config updates from the receipts of each new block. */
import { describe, expect, it } from "vitest";
import type { Receipt } from "../../chain/index.js";
import { CriticalDeriveError, DataMissingError } from "../errors.js";
import { SyntheticL1, receipt, syntheticRollupConfig } from "../pipeline/synthetic.test-support.js";
import type { L1Provider } from "../providers.js";
import { type ConfigUpdater, L1Traversal } from "./l1-traversal.js";

/** A "config" that records the blocks whose receipts were applied, and how many receipts each had. */
const record: ConfigUpdater<string[]> = (config, receipts: readonly Receipt[], block) => [
  ...config,
  `${block.ref.number}:${receipts.length}`,
];

function chain(blocks = 6) {
  const l1 = new SyntheticL1(syntheticRollupConfig());
  for (let i = 0; i < blocks; i++) l1.addBlock({ receipts: Array.from({ length: i }, () => receipt([])) });
  return l1;
}

/** The chain's provider, except that block `n`'s header comes back changed (it no longer hashes to its hash). */
function lyingAbout(l1: SyntheticL1, n: number): L1Provider {
  return {
    headerByHash: async (hash) =>
      Buffer.from(hash).equals(Buffer.from(l1.hashes[n]!))
        ? { ...l1.headers[n]!, gasUsed: 1n }
        : l1.provider.headerByHash(hash),
    headerByNumber: (number) => l1.provider.headerByNumber(number),
    transactionsByHash: (h) => l1.provider.transactionsByHash(h),
    receiptsByHash: (h) => l1.provider.receiptsByHash(h),
  };
}

describe("L1 traversal", () => {
  it("walks from the start to the head, applying each new block's receipts (not the start block's)", async () => {
    const l1 = chain();
    const t = await L1Traversal.open(l1.provider, l1.head, 2n, [] as string[], record);
    expect(t.origin.ref.number).toBe(2n);
    expect(t.head.ref.hash).toEqual(l1.head);
    expect(t.block(1n)).toBeUndefined();
    expect(t.block(4n)?.ref.hash).toEqual(l1.hashes[4]);
    const seen: bigint[] = [];
    while (await t.advance()) seen.push(t.origin.ref.number);
    expect(seen).toEqual([3n, 4n, 5n]);
    expect(t.systemConfig).toEqual(["3:3", "4:4", "5:5"]);
    expect(await t.advance()).toBe(false);
  });

  it("refuses a header that does not hash to the hash it was asked by", async () => {
    const l1 = chain();
    const lying = lyingAbout(l1, 3);
    await expect(L1Traversal.open(lying, l1.head, 1n, [], record)).rejects.toBeInstanceOf(
      CriticalDeriveError,
    );
    // A range that does not reach the bad header is fine.
    await expect(L1Traversal.open(lying, l1.head, 4n, [], record)).resolves.toBeDefined();
  });

  it("reports a missing header as data missing", async () => {
    const l1 = chain();
    const partial: L1Provider = {
      headerByHash: async (hash) =>
        Buffer.from(hash).equals(Buffer.from(l1.hashes[2]!)) ? undefined : l1.provider.headerByHash(hash),
      headerByNumber: (n) => l1.provider.headerByNumber(n),
      transactionsByHash: (h) => l1.provider.transactionsByHash(h),
      receiptsByHash: (h) => l1.provider.receiptsByHash(h),
    };
    await expect(L1Traversal.open(partial, l1.head, 0n, [], record)).rejects.toBeInstanceOf(DataMissingError);
  });

  it("refuses a start after the L1 head", async () => {
    const l1 = chain();
    await expect(L1Traversal.open(l1.provider, l1.hashes[3]!, 4n, [], record)).rejects.toBeInstanceOf(
      CriticalDeriveError,
    );
  });

  it("treats withheld receipts as data missing and does not move", async () => {
    const l1 = chain();
    l1.provider.withholdReceipts(l1.hashes[4]!);
    const t = await L1Traversal.open(l1.provider, l1.head, 2n, [] as string[], record);
    expect(await t.advance()).toBe(true);
    await expect(t.advance()).rejects.toBeInstanceOf(DataMissingError);
    expect(t.origin.ref.number).toBe(3n);
    expect(t.systemConfig).toEqual(["3:3"]);
  });

  it("turns a rejected config update into a critical error", async () => {
    const l1 = chain();
    const t = await L1Traversal.open(l1.provider, l1.head, 2n, [] as string[], () => {
      throw new CriticalDeriveError("attributes", "malformed ConfigUpdate log");
    });
    const e = await t.advance().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CriticalDeriveError);
    expect((e as CriticalDeriveError).stage).toBe("traversal");
  });

  describe("extend", () => {
    it("moves the head to a descendant and goes on reading, forgetting blocks below keepFrom", async () => {
      const l1 = chain(8);
      const t = await L1Traversal.open(l1.provider, l1.hashes[4]!, 1n, [] as string[], record);
      while (await t.advance());
      expect(t.origin.ref.number).toBe(4n);
      expect(await t.extend(l1.hashes[4]!, 0n)).toBe(true); // the same head: nothing to do
      expect(await t.extend(l1.hashes[7]!, 3n)).toBe(true);
      expect(t.head.ref.hash).toEqual(l1.hashes[7]);
      expect(t.block(2n)).toBeUndefined();
      expect(t.block(3n)?.ref.hash).toEqual(l1.hashes[3]);
      expect(t.origin.ref.number).toBe(4n);
      const seen: bigint[] = [];
      while (await t.advance()) seen.push(t.origin.ref.number);
      expect(seen).toEqual([5n, 6n, 7n]);
      expect(t.systemConfig).toEqual(["2:2", "3:3", "4:4", "5:5", "6:6", "7:7"]);
      // Never forgets the block being read, whatever keepFrom says.
      expect(await t.extend(l1.head, 100n)).toBe(true);
      expect(t.origin.ref.number).toBe(7n);
      expect(t.block(7n)?.ref.hash).toEqual(l1.hashes[7]);
    });

    it("refuses an older head and one that does not descend from the head (an L1 reorg), changing nothing", async () => {
      const l1 = chain(6);
      const t = await L1Traversal.open(l1.provider, l1.hashes[4]!, 1n, [] as string[], record);
      expect(await t.extend(l1.hashes[3]!, 0n)).toBe(false);
      // A block 5 on another block 4 (same number, other contents).
      const fork4 = l1.provider.add({
        header: { ...l1.headers[4]!, mixHash: new Uint8Array(32).fill(0x77) },
        transactions: [],
        receipts: [],
      });
      const fork5 = l1.provider.add({
        header: { ...l1.headers[5]!, parentHash: fork4 },
        transactions: [],
        receipts: [],
      });
      expect(await t.extend(fork5, 0n)).toBe(false);
      expect(t.head.ref.hash).toEqual(l1.hashes[4]);
      expect(t.block(1n)?.ref.hash).toEqual(l1.hashes[1]);
      expect(await t.extend(l1.hashes[5]!, 0n)).toBe(true);
    });

    it("checks every new header against its hash", async () => {
      const l1 = chain(7);
      const lying = lyingAbout(l1, 5);
      const t = await L1Traversal.open(lying, l1.hashes[4]!, 1n, [] as string[], record);
      await expect(t.extend(l1.hashes[6]!, 0n)).rejects.toBeInstanceOf(CriticalDeriveError);
      expect(t.head.ref.hash).toEqual(l1.hashes[4]);
    });
  });
});
