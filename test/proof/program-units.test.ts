/**
 * The proof program's preimage reads without a devnet (docs/proof.md "Key types read"): index-keyed tries read
 * back item by item with a proven end, receipts decoded from their consensus encoding, anvil's pooled blob
 * leaves, blobs stored as a commitment and 4096 field elements and checked by KZG on read, the roots of unity
 * the element keys use, and the oracle's fail-closed rules.
 */
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import {
  EMPTY_TRIE_ROOT,
  FastTrie,
  keccak256,
  keccak256Key,
  MissingPreimageError,
  PreimageStore,
  type Receipt,
  encodeReceipt,
  orderedTrieRoot,
  toHex,
  toHexRaw,
} from "../../src/chain/index.js";
import { encodeBlob, loadKzg, versionedHash } from "../../src/derive/index.js";
import { preimageKeyOf } from "../../src/proof/preimages/index.js";
import {
  blobElementKey,
  blobElementKeys,
  blobPreimages,
  canonicalTransaction,
  decodeReceipt,
  InvalidWitnessError,
  MissingWitnessError,
  OfflineOracle,
  readBlob,
  readOrderedTrie,
  readWithFetch,
  refusePrecompileKeys,
  RefusedPreimageKeyError,
  rootsOfUnity,
} from "../../src/proof/program/index.js";

const BLS_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

function storeTrie(items: readonly Uint8Array[]): { store: PreimageStore; root: Uint8Array } {
  const store = new PreimageStore();
  const root = new FastTrie({
    getNode: () => {
      throw new Error("no reads");
    },
    putNode: (_hash, node) => void store.putKeccak256(node),
  }).update(
    EMPTY_TRIE_ROOT,
    items.map((item, i): [Uint8Array, Uint8Array] => [RLP.encode(i), item]),
  );
  return { store, root };
}

function bytesOf(n: number, fill: number): Uint8Array {
  return new Uint8Array(n).fill(fill);
}

describe("index-keyed tries", () => {
  it("reads every item back in order, for 0, 1, 17 and 200 items, small and large leaves", () => {
    for (const count of [0, 1, 17, 200]) {
      const items = Array.from({ length: count }, (_, i) =>
        bytesOf(i % 3 === 0 ? 3 : 40 + (i % 50), i & 0xff),
      );
      const { store, root } = storeTrie(items);
      expect(toHex(root)).toBe(toHex(orderedTrieRoot(items)));
      const read = readOrderedTrie(store, root, "test");
      expect(read.map(toHex)).toEqual(items.map(toHex));
    }
  });

  it("a missing node is a MissingPreimageError, never a shorter list", () => {
    const items = Array.from({ length: 30 }, (_, i) => bytesOf(60, i));
    const { store, root } = storeTrie(items);
    for (const [key] of store.entries()) {
      const partial = new PreimageStore();
      for (const [k, v] of store.entries()) if (toHex(k) !== toHex(key)) partial.put(k, v);
      expect(() => readOrderedTrie(partial, root, "test")).toThrow(MissingPreimageError);
    }
  });
});

describe("receipts and transactions", () => {
  it("decodes what encodeReceipt encodes (legacy, typed, deposit fields)", () => {
    const receipts: Receipt[] = [
      { type: 0, status: 1, cumulativeGasUsed: 21000n, logsBloom: bytesOf(256, 0), logs: [] },
      {
        type: 2,
        status: 0,
        cumulativeGasUsed: 90000n,
        logsBloom: bytesOf(256, 1),
        logs: [{ address: bytesOf(20, 9), topics: [bytesOf(32, 1), bytesOf(32, 2)], data: bytesOf(5, 7) }],
      },
      {
        type: 0x7e,
        status: 1,
        cumulativeGasUsed: 5n,
        logsBloom: bytesOf(256, 0),
        logs: [],
        depositNonce: 3n,
        depositReceiptVersion: 1n,
      },
    ];
    for (const r of receipts)
      expect(encodeReceipt(decodeReceipt(encodeReceipt(r), "t"))).toEqual(encodeReceipt(r));
    expect(() => decodeReceipt(new Uint8Array([0x02, 0xc0]), "t")).toThrow(InvalidWitnessError);
    expect(() => decodeReceipt(new Uint8Array(0), "t")).toThrow(InvalidWitnessError);
  });

  it("takes the canonical blob transaction out of anvil's pooled leaf, and leaves others alone", () => {
    const body = [bytesOf(1, 1), bytesOf(2, 2), [bytesOf(32, 3)]];
    const canonical = new Uint8Array([0x03, ...RLP.encode(body)]);
    const pooled = new Uint8Array([
      0x03,
      ...RLP.encode([body, [bytesOf(64, 4)], [bytesOf(48, 5)], [bytesOf(48, 6)]]),
    ]);
    expect(canonicalTransaction(pooled, "t")).toEqual(canonical);
    expect(canonicalTransaction(canonical, "t")).toEqual(canonical);
    const legacy = RLP.encode([bytesOf(1, 1)]);
    expect(canonicalTransaction(legacy, "t")).toBe(legacy);
  });
});

describe("blobs", () => {
  it("roots of unity: kona's generator (the 2^32 root to the power 2^20), bit-reversed", () => {
    // Origin: op-rs/kona crates/proof/proof/src/l1/blob_provider.rs (generate_roots_of_unity), the generator of
    // the largest 2-adic subgroup of the BLS12-381 scalar field, from go-kzg-4844's domain.go.
    const root32 = 10238227357739495823651030575849232062558860180284477541189508159991286009131n;
    let generator = root32;
    for (let i = 0; i < 20; i++) generator = (generator * generator) % BLS_MODULUS;
    const roots = rootsOfUnity();
    expect(roots).toHaveLength(4096);
    const value = (i: number) => BigInt(`0x${toHexRaw(roots[i]!)}`);
    expect(value(0)).toBe(1n);
    // Bit reversal of 12 bits: index 1 holds ω^2048 = −1, index 2048 holds ω^1.
    expect(value(1)).toBe(BLS_MODULUS - 1n);
    expect(value(2048)).toBe(generator);
    expect(new Set(roots.map(toHexRaw)).size).toBe(4096);
  });

  it("the element keys of a commitment are blobElementKey's, the same array when asked again", () => {
    const commitment = new Uint8Array(48).fill(7);
    const keys = blobElementKeys(commitment);
    expect(keys).toHaveLength(4096);
    for (const i of [0, 1, 2048, 4095]) expect(keys[i]).toEqual(blobElementKey(commitment, i));
    expect(blobElementKeys(commitment.slice())).toBe(keys);
    expect(blobElementKeys(new Uint8Array(48).fill(8))[0]).toEqual(
      blobElementKey(new Uint8Array(48).fill(8), 0),
    );
  });

  it("a blob stored as commitment and elements reads back; a changed element or commitment is refused", async () => {
    const kzg = await loadKzg();
    const blob = encodeBlob(new TextEncoder().encode("op-enclave-suite blob witness ".repeat(200)));
    const commitment = kzg.commitment(blob);
    const hash = versionedHash(commitment);
    const store = new PreimageStore();
    const entries = blobPreimages(hash, commitment, blob);
    for (const [k, v] of entries) store.put(k, v);
    expect(readBlob(store, hash, kzg)).toEqual(blob);

    const tampered = new PreimageStore();
    for (const [k, v] of entries) tampered.put(k, v);
    const [elementKey, element] = entries[1 + 1000]!;
    const changed = element.slice();
    changed[31]! ^= 1;
    tampered.put(elementKey, changed);
    expect(() => readBlob(tampered, hash, kzg)).toThrow(InvalidWitnessError);

    const missing = new PreimageStore();
    for (const [k, v] of entries.slice(0, 4000)) missing.put(k, v);
    expect(() => readBlob(missing, hash, kzg)).toThrow(MissingPreimageError);
  }, 600_000); // loading the KZG trusted setup takes a minute on a loaded 2-core machine
});

describe("the offline oracle fails closed", () => {
  it("a miss is a MissingWitnessError naming the key; fetchMissing never invents data", async () => {
    const oracle = new OfflineOracle(new PreimageStore());
    const key = keccak256Key(keccak256(new Uint8Array([1])));
    expect(await oracle.fetchMissing()).toBe(false);
    const error = await readWithFetch(oracle, "a test read", () => oracle.get(key)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingWitnessError);
    expect((error as MissingWitnessError).kind).toBe("missing-preimage");
    expect((error as MissingWitnessError).details.what).toBe("a test read");
  });

  it("precompile-result keys are refused", () => {
    expect(() =>
      refusePrecompileKeys([[preimageKeyOf("Precompile", new Uint8Array(31)), new Uint8Array([1])]]),
    ).toThrow(RefusedPreimageKeyError);
    expect(() =>
      refusePrecompileKeys([[preimageKeyOf("Keccak256", new Uint8Array(31)), new Uint8Array(0)]]),
    ).not.toThrow();
  });
});
