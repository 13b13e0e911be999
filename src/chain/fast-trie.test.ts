import { MerklePatriciaTrie, createMerkleProof, verifyMerkleProof } from "@ethereumjs/mpt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FastTrie, type TrieNodeStore } from "./fast-trie.js";
import { EMPTY_TRIE_ROOT } from "./header.js";
import { toHex, toHexRaw } from "./hex.js";

class MapStore implements TrieNodeStore {
  readonly nodes = new Map<string, Uint8Array>();
  getNode(hash: Uint8Array): Uint8Array {
    const n = this.nodes.get(toHexRaw(hash));
    if (n === undefined) throw new Error(`missing node ${toHex(hash)}`);
    return n;
  }
  putNode(hash: Uint8Array, node: Uint8Array): void {
    this.nodes.set(toHexRaw(hash), node);
  }
}

// Short keys with a small alphabet make shared prefixes, extensions and branch values likely.
const key = fc.uint8Array({ minLength: 1, maxLength: 4 }).map((k) => k.map((b) => b & 0x13));
const value = fc.uint8Array({ minLength: 1, maxLength: 40 });
const batch = fc.array(fc.tuple(key, fc.option(value, { nil: undefined })), { maxLength: 30 });

describe("FastTrie against @ethereumjs/mpt", () => {
  it("deleting a key that leaves a branch with a value and one child (found by the property below)", () => {
    // Expected root: a fresh @ethereumjs/mpt holding only 0x1100 -> 0x00 and 0x11 -> 0x00.
    const fast = new FastTrie(new MapStore());
    const one = Uint8Array.of(0);
    const first = fast.update(EMPTY_TRIE_ROOT, [[Uint8Array.of(0x11, 0x11), one]]);
    const root = fast.update(first, [
      [Uint8Array.of(0x11, 0x11), undefined],
      [Uint8Array.of(0x11, 0x00), one],
      [Uint8Array.of(0x11), one],
    ]);
    expect(toHex(root)).toBe("0x60e80d30ea5cc92e61ae4c88e72b5abb2bea7397680127e1e634f7168602a7d5");
  });

  it("same roots and values after batches of updates and deletions (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 4 }), async (batches) => {
        const store = new MapStore();
        const fast = new FastTrie(store);
        let root = EMPTY_TRIE_ROOT;
        const model = new Map<string, Uint8Array>();
        for (const b of batches) {
          // last write per key wins within a batch; updates are applied before deletions
          const last = new Map<string, [Uint8Array, Uint8Array | undefined]>();
          for (const [k, v] of b) last.set(toHexRaw(k), [k, v]);
          const changes = [...last.values()];
          root = fast.update(root, changes);
          for (const [k, v] of changes) {
            if (v === undefined) model.delete(toHexRaw(k));
            else model.set(toHexRaw(k), v);
          }
          // The root is a function of the key set alone, so the reference is a fresh trie of the model's
          // entries: @ethereumjs/mpt's incremental del() can leave a non-canonical root when a deletion
          // leaves a branch holding a value and one child (e.g. keys 0x1111 -> deleted, 0x1100 and 0x11 kept).
          const reference = new MerklePatriciaTrie();
          for (const [k, v] of model) await reference.put(Uint8Array.from(Buffer.from(k, "hex")), v);
          expect(toHex(root)).toBe(toHex(reference.root()));
        }
        for (const [k, v] of model) expect(fast.get(root, Uint8Array.from(Buffer.from(k, "hex")))).toEqual(v);
        expect(fast.get(root, Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff))).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  });

  it("32-byte keys (secure-trie shape)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), value), { maxLength: 60 }),
        async (entries) => {
          const reference = new MerklePatriciaTrie();
          const fast = new FastTrie(new MapStore());
          for (const [k, v] of entries) await reference.put(k, v);
          const dedup = new Map(entries.map(([k, v]) => [toHexRaw(k), [k, v] as [Uint8Array, Uint8Array]]));
          const root = fast.update(EMPTY_TRIE_ROOT, dedup.values());
          expect(toHex(root)).toBe(toHex(reference.root()));
        },
      ),
      { numRuns: 50 },
    );
  });

  it("proofs are @ethereumjs/mpt's proofs and verify, for present and absent keys (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), value), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        async (entries, absent) => {
          const reference = new MerklePatriciaTrie();
          const fast = new FastTrie(new MapStore());
          for (const [k, v] of entries) await reference.put(k, v);
          const dedup = new Map(entries.map(([k, v]) => [toHexRaw(k), [k, v] as [Uint8Array, Uint8Array]]));
          const root = fast.update(EMPTY_TRIE_ROOT, dedup.values());
          for (const [k, v] of [...dedup.values(), [absent, undefined] as const]) {
            const proof = fast.proof(root, k);
            expect(proof.map(toHex)).toEqual((await createMerkleProof(reference, k)).map(toHex));
            const proven = await verifyMerkleProof(k, proof, { root });
            if (v === undefined && !dedup.has(toHexRaw(k))) expect(proven).toBeNull();
            else expect(proven).toEqual(dedup.get(toHexRaw(k))![1]);
          }
        },
      ),
      { numRuns: 50 },
    );
    expect(new FastTrie(new MapStore()).proof(EMPTY_TRIE_ROOT, new Uint8Array(32))).toEqual([]);
  });
});
