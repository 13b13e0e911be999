import { readFileSync } from "node:fs";
import fc from "fast-check";
import { type Hex, bytesToHex, hexToBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { BLOB_SIZE, InvalidBlobError, encodeBlob } from "../blob/codec.js";
import { DERIVE_FIXTURES_DIR } from "../blob/fixture-paths.test-support.js";
import { BlobMismatchError, type Kzg, loadKzg, versionedHash } from "../blob/kzg.js";
import { DataMissingError, DeriveError, type DroppedInputError } from "../errors.js";
import type { BlobProvider } from "../providers.js";
import type { L1BlockRef } from "../types.js";
import { findBatcherData, retrieveBatcherData } from "./retrieval.js";
import type { BatcherDataRef, L1Transaction } from "./types.js";

const batcher = privateKeyToAccount(`0x${"11".repeat(32)}`);
const stranger = privateKeyToAccount(`0x${"22".repeat(32)}`);
const inbox = "0xff00000000000000000000000000000000000010" as const;
const elsewhere = "0x4200000000000000000000000000000000000016" as const;
const filter = { batchInbox: hexToBytes(inbox), batcher: hexToBytes(batcher.address), l1ChainId: 1n };
const block: L1BlockRef = {
  number: 100n,
  hash: new Uint8Array(32).fill(0xbb),
  parentHash: new Uint8Array(32).fill(0xaa),
  timestamp: 1_700_000_000n,
};
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const fakeHash = (n: number): Hex => `0x01${n.toString(16).padStart(62, "0")}`;

type Account = typeof batcher;
function calldataTx(from: Account, to: Hex, data: Hex, type: "legacy" | "eip2930" | "eip1559" = "eip1559") {
  const base = { nonce: 0, to, data, gas: 100_000n, chainId: 1 };
  if (type === "legacy") return from.signTransaction({ ...base, type, gasPrice: 5n });
  if (type === "eip2930") return from.signTransaction({ ...base, type, gasPrice: 5n, accessList: [] });
  return from.signTransaction({ ...base, type, maxFeePerGas: 5n, maxPriorityFeePerGas: 1n });
}
function blobTx(from: Account, to: Hex, hashes: Hex[], data: Hex = "0x", chainId = 1) {
  return from.signTransaction({
    type: "eip4844",
    chainId,
    nonce: 0,
    to,
    data,
    gas: 21_000n,
    maxFeePerGas: 5n,
    maxPriorityFeePerGas: 1n,
    maxFeePerBlobGas: 2n,
    blobVersionedHashes: hashes,
  });
}

/** A blob provider over a map, recording what it was asked. */
class TestBlobs implements BlobProvider {
  readonly asked: { index: number; hash: string; block: L1BlockRef }[] = [];
  readonly blobs = new Map<string, Uint8Array>();
  failWith: unknown = undefined;
  constructor(readonly verified: boolean) {}
  async blob(b: L1BlockRef, index: number, hash: Uint8Array): Promise<Uint8Array | undefined> {
    this.asked.push({ index, hash: bytesToHex(hash), block: b });
    if (this.failWith !== undefined) throw this.failWith;
    return this.blobs.get(bytesToHex(hash));
  }
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

describe("findBatcherData", () => {
  it("keeps batcher transactions to the inbox in order and numbers blobs across the whole block", async () => {
    const txs = [
      await blobTx(stranger, elsewhere, [fakeHash(1), fakeHash(2)]), // blobs 0, 1: not to the inbox
      await calldataTx(batcher, inbox, "0x00aa"), // item
      await blobTx(batcher, inbox, [fakeHash(3), fakeHash(4)], "0xdeadbeef"), // blobs 2, 3; calldata ignored
      await blobTx(stranger, inbox, [fakeHash(5)]), // blob 4: to the inbox, wrong sender
      await calldataTx(stranger, inbox, "0x00bb"), // wrong sender
      await calldataTx(batcher, elsewhere, "0x00cc"), // batcher, but not to the inbox
      await calldataTx(batcher, inbox, "0x00dd", "legacy"), // item
      await calldataTx(batcher, inbox, "0x00ee", "eip2930"), // item
      await blobTx(batcher, inbox, [fakeHash(6)], "0x", 5), // blob 5, signed for another chain: ignored
      await blobTx(batcher, inbox, [fakeHash(7)]), // blob 6
    ].map((h) => hexToBytes(h));
    const refs = findBatcherData(txs, filter);
    const summary = refs.map((r) =>
      r.kind === "calldata"
        ? [r.txIndex, bytesToHex(r.data)]
        : [r.txIndex, r.blobIndex, bytesToHex(r.versionedHash)],
    );
    expect(summary).toEqual([
      [1, "0x00aa"],
      [2, 2, fakeHash(3)],
      [2, 3, fakeHash(4)],
      [6, "0x00dd"],
      [7, "0x00ee"],
      [9, 6, fakeHash(7)],
    ]);
    // Without the chain id guard the transaction signed for chain 5 counts (its blob index stays 5).
    const noGuard = findBatcherData(txs, { batchInbox: filter.batchInbox, batcher: filter.batcher });
    expect(
      noGuard.filter((r) => r.kind === "blob").map((r) => (r as { blobIndex: number }).blobIndex),
    ).toEqual([2, 3, 5, 6]);
  });

  it("ignores EIP-7702 transactions even from the batcher to the inbox", async () => {
    const authorization = await batcher.signAuthorization({ chainId: 1, nonce: 1, address: elsewhere });
    const setCode = await batcher.signTransaction({
      type: "eip7702",
      chainId: 1,
      nonce: 0,
      to: inbox,
      data: "0x00ff",
      gas: 100_000n,
      maxFeePerGas: 5n,
      maxPriorityFeePerGas: 1n,
      authorizationList: [authorization],
    });
    expect(hexToBytes(setCode)[0]).toBe(4);
    const txs = [hexToBytes(setCode), hexToBytes(await calldataTx(batcher, inbox, "0x0011"))];
    expect(findBatcherData(txs, filter).map((r) => r.txIndex)).toEqual([1]);
  });

  it("finds kona's real OP Mainnet batcher transaction, for its batcher only", () => {
    // crates/protocol/derive/testdata/raw_batcher_tx.hex of op-rs/kona @ cdb9be247e41 (see the fixtures README)
    const raw = new Uint8Array(readFileSync(`${DERIVE_FIXTURES_DIR}/op-mainnet-batcher-tx.bin`));
    const opMainnet = {
      batchInbox: hexToBytes(inbox),
      batcher: hexToBytes("0x6887246668a3b87f54deb3b94ba47a6f63f32985"),
      l1ChainId: 1n,
    };
    const refs = findBatcherData([raw], opMainnet);
    expect(refs.length).toBe(1);
    expect(refs[0]!.kind).toBe("calldata");
    expect((refs[0] as { data: Uint8Array }).data.length).toBe(119_823);
    expect(findBatcherData([raw], { ...opMainnet, batcher: hexToBytes(batcher.address) })).toEqual([]);
    expect(findBatcherData([raw], { ...opMainnet, l1ChainId: 11155111n })).toEqual([]);
  });

  it("recovers senders only for transactions sent to the inbox", () => {
    let recovered = 0;
    const tx = (to: string | undefined, hashes = 0): L1Transaction => ({
      type: hashes > 0 ? 3 : 2,
      to: to === undefined ? undefined : hexToBytes(to as Hex),
      input: Uint8Array.of(0),
      blobVersionedHashes: Array.from({ length: hashes }, (_, i) => hexToBytes(fakeHash(i))),
      chainId: 1n,
      sender: () => {
        recovered++;
        return hexToBytes(batcher.address);
      },
    });
    const refs = findBatcherData([tx(elsewhere, 3), tx(undefined), tx(inbox, 2), tx(elsewhere)], filter);
    expect(recovered).toBe(1);
    expect(refs.map((r) => (r.kind === "blob" ? r.blobIndex : -1))).toEqual([3, 4]);
  });

  it("matches a model of the rule on random blocks (fast-check)", () => {
    const entry = fc.record({
      type: fc.constantFrom(0, 1, 2, 3, 4),
      toInbox: fc.boolean(),
      byBatcher: fc.boolean(),
      blobs: fc.nat(6),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), (entries) => {
        const txs: L1Transaction[] = entries.map((e, i) => ({
          type: e.type,
          to: hexToBytes(e.toInbox ? inbox : elsewhere),
          input: Uint8Array.of(i),
          blobVersionedHashes:
            e.type === 3 ? Array.from({ length: e.blobs }, (_, j) => hexToBytes(fakeHash(i * 10 + j))) : [],
          chainId: 1n,
          sender: () => hexToBytes(e.byBatcher ? batcher.address : stranger.address),
        }));
        const expected: BatcherDataRef[] = [];
        let blobIndex = 0;
        entries.forEach((e, i) => {
          const hashes = txs[i]!.blobVersionedHashes;
          const ok = e.type <= 3 && e.toInbox && e.byBatcher;
          if (ok && e.type !== 3) expected.push({ kind: "calldata", txIndex: i, data: txs[i]!.input });
          for (const h of hashes) {
            if (ok) expected.push({ kind: "blob", txIndex: i, blobIndex, versionedHash: h });
            blobIndex++;
          }
        });
        expect(findBatcherData(txs, filter)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("retrieveBatcherData", () => {
  let kzg: Kzg;
  const payloads = [text("\x00first blob"), text("\x00second blob"), text("\x00third blob")];
  let blobs: Uint8Array[];
  let hashes: Hex[];
  let txs: Uint8Array[];

  beforeAll(async () => {
    kzg = await loadKzg();
    blobs = payloads.map((p) => encodeBlob(p));
    hashes = blobs.map((b) => bytesToHex(versionedHash(kzg.commitment(b))));
    txs = [
      await blobTx(stranger, elsewhere, [fakeHash(9)]), // blob index 0, not ours
      await calldataTx(batcher, inbox, "0x00ca11da7a"),
      await blobTx(batcher, inbox, [hashes[0]!, hashes[1]!]), // blob indices 1, 2
      await blobTx(batcher, inbox, [hashes[2]!]), // blob index 3
    ].map((h) => hexToBytes(h));
  }, 180_000);

  function provider(verified: boolean): TestBlobs {
    const p = new TestBlobs(verified);
    blobs.forEach((b, i) => p.blobs.set(hashes[i]!, b));
    return p;
  }

  it("yields calldata and decoded blobs in transaction order, verified by KZG", async () => {
    const p = provider(false);
    const items = await retrieveBatcherData(block, txs, filter, p);
    expect(items.map((i) => bytesToHex(i.data))).toEqual([
      "0x00ca11da7a",
      ...payloads.map((p) => bytesToHex(p)),
    ]);
    expect(items.map((i) => i.ref.kind)).toEqual(["calldata", "blob", "blob", "blob"]);
    expect(p.asked.map((a) => [a.index, a.hash])).toEqual([
      [1, hashes[0]],
      [2, hashes[1]],
      [3, hashes[2]],
    ]);
    expect(p.asked.every((a) => a.block === block)).toBe(true);
  });

  it("refuses a forged blob when the provider cannot vouch, and trusts a provider that does", async () => {
    const forged = encodeBlob(text("\x00a blob the batcher never posted"));
    const untrusted = provider(false);
    untrusted.blobs.set(hashes[1]!, forged);
    const err = await caught(retrieveBatcherData(block, txs, filter, untrusted));
    expect(err).toBeInstanceOf(BlobMismatchError);
    expect((err as BlobMismatchError).kind).toBe("critical");
    expect((err as BlobMismatchError).details).toMatchObject({ blobIndex: 2, versionedHash: hashes[1] });
    // Forcing verification overrides a provider's claim.
    const claims = provider(true);
    claims.blobs.set(hashes[1]!, forged);
    expect(await caught(retrieveBatcherData(block, txs, filter, claims, { verify: true }))).toBeInstanceOf(
      BlobMismatchError,
    );
    // A provider that vouches for its blobs is believed (the RPC host checks them itself).
    const items = await retrieveBatcherData(block, txs, filter, claims);
    expect(new TextDecoder().decode(items[2]!.data)).toBe("\x00a blob the batcher never posted");
  });

  it("fails closed when a blob is missing or the provider fails", async () => {
    const p = provider(false);
    p.blobs.delete(hashes[2]!);
    const missing = await caught(retrieveBatcherData(block, txs, filter, p));
    expect(missing).toBeInstanceOf(DataMissingError);
    expect((missing as DataMissingError).kind).toBe("data-missing");
    expect((missing as DataMissingError).details).toMatchObject({ blobIndex: 3, versionedHash: hashes[2] });

    const failing = provider(true);
    failing.failWith = new Error("connection reset");
    const failed = await caught(retrieveBatcherData(block, txs, filter, failing));
    expect(failed).toBeInstanceOf(DataMissingError);
    expect((failed as DataMissingError).cause).toBe(failing.failWith);

    const own = new DataMissingError("retrieval", "the preimage oracle has no such key");
    failing.failWith = own;
    expect(await caught(retrieveBatcherData(block, txs, filter, failing))).toBe(own);
  });

  it("refuses a blob of the wrong size even from a provider that vouches", async () => {
    const p = provider(true);
    p.blobs.set(hashes[0]!, blobs[0]!.subarray(0, BLOB_SIZE - 1));
    const err = await caught(retrieveBatcherData(block, txs, filter, p));
    expect(err).toBeInstanceOf(BlobMismatchError);
    expect(err).toBeInstanceOf(DeriveError);
  });

  it("drops a blob that matches its hash but is not valid rollup data, and keeps the rest", async () => {
    const invalid = encodeBlob(text("\x00will be corrupted"));
    invalid[1] = 1; // encoding version 1: a valid polynomial, but not a version-0 blob
    const invalidHash = bytesToHex(versionedHash(kzg.commitment(invalid)));
    const withInvalid = [...txs, hexToBytes(await blobTx(batcher, inbox, [invalidHash]))];
    const p = provider(false);
    p.blobs.set(invalidHash, invalid);
    const dropped: DroppedInputError[] = [];
    const items = await retrieveBatcherData(block, withInvalid, filter, p, {
      onDrop: (e) => dropped.push(e),
    });
    expect(items.length).toBe(4);
    expect(dropped.length).toBe(1);
    expect(dropped[0]).toBeInstanceOf(InvalidBlobError);
    expect((dropped[0] as InvalidBlobError).reason).toBe("version");
    expect(dropped[0]!.details).toMatchObject({ blobIndex: 4, versionedHash: invalidHash });
  });

  it("neither verifies nor asks for blobs when the block has none of the batcher's", async () => {
    const p = provider(false);
    const calldataOnly = [txs[0]!, txs[1]!];
    const poisoned = {} as Kzg; // any use would throw
    const items = await retrieveBatcherData(block, calldataOnly, filter, p, { kzg: poisoned });
    expect(items.map((i) => bytesToHex(i.data))).toEqual(["0x00ca11da7a"]);
    expect(p.asked).toEqual([]);
  });
});
