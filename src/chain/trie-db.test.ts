/**
 * PreimageTrieDB's written values: by default a value the execution writes is kept only when the source does not
 * hold it (one lookup in the source per new node); with `keepEveryWrite` every written value is kept and the source
 * is asked only for what the trie reads.
 */
import { describe, expect, it } from "vitest";
import { FastTrie } from "./fast-trie.js";
import { EMPTY_TRIE_ROOT } from "./header.js";
import { toHexRaw } from "./hex.js";
import { type PreimageSource, PreimageStore } from "./preimage-store.js";
import { PreimageTrieDB } from "./trie-db.js";

/** A preimage store that counts the lookups made in it. */
class CountingSource implements PreimageSource {
  lookups = 0;
  constructor(private readonly store: PreimageStore) {}
  get(key: Uint8Array): Uint8Array {
    this.lookups++;
    return this.store.get(key);
  }
  tryGet(key: Uint8Array): Uint8Array | undefined {
    this.lookups++;
    return this.store.tryGet(key);
  }
  tryGetByKeccak256(hash: Uint8Array): Uint8Array | undefined {
    this.lookups++;
    return this.store.tryGetByKeccak256(hash);
  }
  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    this.lookups++;
    return this.store.tryGetByKeccak256Hex(hashHex);
  }
}

const key = (i: number) => new Uint8Array(32).fill(i);
const value = (i: number) => new Uint8Array(40).fill(i + 1);

/** A source holding the nodes of a trie of 64 keys; its root. */
function storedTrie(): { store: PreimageStore; root: Uint8Array } {
  const db = new PreimageTrieDB(new PreimageStore());
  const root = new FastTrie(db).update(
    EMPTY_TRIE_ROOT,
    Array.from({ length: 64 }, (_, i): [Uint8Array, Uint8Array] => [key(i), value(i)]),
  );
  const store = new PreimageStore();
  for (const node of db.written.values()) store.putKeccak256(node);
  return { store, root };
}

describe("PreimageTrieDB", () => {
  it("keeps a written node the source holds only with keepEveryWrite, which asks the source for reads only", () => {
    const { store, root } = storedTrie();
    // Writing a key's own value again re-creates nodes the source holds (the root among them).
    const same: [Uint8Array, Uint8Array][] = [[key(7), value(7)]];

    const checking = new CountingSource(store);
    const checked = new PreimageTrieDB(checking);
    expect(new FastTrie(checked).update(root, same)).toEqual(root);
    expect(checked.written.has(toHexRaw(root))).toBe(false);
    expect(checked.written.size).toBe(0);

    const keeping = new CountingSource(store);
    const kept = new PreimageTrieDB(keeping, { keepEveryWrite: true });
    expect(new FastTrie(kept).update(root, same)).toEqual(root);
    expect(kept.written.get(toHexRaw(root))).toEqual(store.getByKeccak256(root));
    // The walk down to the key read the same nodes in both; only the default looked each written node up too.
    expect(keeping.lookups).toBe(checking.lookups - kept.written.size);

    // A shallow copy shares the written values and the option.
    const sharing = new CountingSource(store);
    const original = new PreimageTrieDB(sharing, { keepEveryWrite: true });
    expect(new FastTrie(original.shallowCopy()).update(root, same)).toEqual(root);
    expect(original.written.get(toHexRaw(root))).toEqual(store.getByKeccak256(root));
    expect(sharing.lookups).toBe(keeping.lookups);

    // New values: the nodes on their paths are kept either way, and give the same root.
    const changed: [Uint8Array, Uint8Array][] = [[key(3), value(99)]];
    const newRoot = new FastTrie(kept).update(root, changed);
    expect(kept.written.get(toHexRaw(newRoot))).toBeDefined();
    expect(new FastTrie(new PreimageTrieDB(store)).update(root, changed)).toEqual(newRoot);
  });
});
