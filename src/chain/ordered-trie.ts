/** Roots of index-keyed tries (transactions, receipts): key rlp(index), value the encoded item. */
import { RLP } from "@ethereumjs/rlp";
import { FastTrie, type TrieNodeStore } from "./fast-trie.js";
import { EMPTY_TRIE_ROOT } from "./header.js";

/** Nodes of a trie built from scratch are never read back: the store only has to accept them. */
const discard: TrieNodeStore = {
  getNode(): Uint8Array {
    throw new Error("ordered trie: unexpected node read");
  },
  putNode(): void {},
};

export function orderedTrieRoot(items: readonly Uint8Array[]): Uint8Array {
  const changes: [Uint8Array, Uint8Array][] = items.map((item, i) => [RLP.encode(i), item]);
  return new FastTrie(discard).update(EMPTY_TRIE_ROOT, changes);
}
