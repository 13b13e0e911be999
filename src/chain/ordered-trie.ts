/** Roots of index-keyed tries (transactions, receipts): key rlp(index), value the encoded item. */
import { RLP } from "@ethereumjs/rlp";
import { Bytes32Map } from "./bytes32-map.js";
import { FastTrie, type TrieNodeStore } from "./fast-trie.js";
import { EMPTY_TRIE_ROOT } from "./header.js";
import { ChainError } from "./errors.js";

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

/** An append-only list's ordered trie was asked for a root of fewer items than it already holds. */
export class OrderedTrieShrunkError extends ChainError {
  override readonly name = "OrderedTrieShrunkError";
  constructor(
    readonly held: number,
    readonly given: number,
  ) {
    super(
      `ordered trie holds ${held} items; asked for the root of ${given} (the list must only grow)`,
      "ordered-trie-shrunk",
      {
        details: { held, given },
      },
    );
  }
}

/**
 * The ordered trie of a list that only grows (a block's transactions and receipts while it is built): each root
 * inserts only the items appended since the last one, so a block's snapshots every 200 ms cost its new items'
 * paths rather than the whole trie again. Keeps every node it wrote (superseded ones too) for the builder's life.
 */
export class AppendOnlyOrderedTrie<T> {
  private readonly nodes = new Bytes32Map<Uint8Array>();
  private readonly trie = new FastTrie({
    getNode: (hash) => {
      const node = this.nodes.get(hash);
      if (node === undefined) throw new Error("ordered trie: a node it wrote is missing");
      return node;
    },
    putNode: (hash, node) => this.nodes.set(hash, node),
  });
  private root: Uint8Array = EMPTY_TRIE_ROOT;
  private count = 0;

  /** `encode` turns an item into the trie's value (identity for raw transactions). */
  constructor(private readonly encode: (item: T) => Uint8Array) {}

  /** The root of `items`, whose first items are those of the previous call, unchanged. */
  rootOf(items: readonly T[]): Uint8Array {
    if (items.length < this.count) throw new OrderedTrieShrunkError(this.count, items.length);
    if (items.length === this.count) return this.root;
    const changes: [Uint8Array, Uint8Array][] = [];
    for (let i = this.count; i < items.length; i++) changes.push([RLP.encode(i), this.encode(items[i]!)]);
    this.root = this.trie.update(this.root, changes);
    this.count = items.length;
    return this.root;
  }
}
