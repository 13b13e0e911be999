import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMPTY_TRIE_ROOT } from "./header.js";
import { AppendOnlyOrderedTrie, OrderedTrieShrunkError, orderedTrieRoot } from "./ordered-trie.js";

describe("orderedTrieRoot", () => {
  it("equals @ethereumjs/mpt's root for rlp(index) keys (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 80 }), { maxLength: 150 }),
        async (items) => {
          const reference = new MerklePatriciaTrie();
          for (let i = 0; i < items.length; i++) await reference.put(RLP.encode(i), items[i]!);
          expect(orderedTrieRoot(items)).toEqual(reference.root());
        },
      ),
      { numRuns: 40 },
    );
    expect(orderedTrieRoot([])).toEqual(EMPTY_TRIE_ROOT);
  });
});

describe("AppendOnlyOrderedTrie", () => {
  it("gives orderedTrieRoot's root after every append, whatever the batch sizes (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 80 }), { maxLength: 300 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 30 }),
        (items, batches) => {
          const trie = new AppendOnlyOrderedTrie<Uint8Array>((item) => item);
          let end = 0;
          for (const size of [...batches, items.length]) {
            end = Math.min(items.length, end + size);
            const prefix = items.slice(0, end);
            expect(trie.rootOf(prefix)).toEqual(orderedTrieRoot(prefix));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("encodes each item once and refuses a list that shrank", () => {
    let encoded = 0;
    const trie = new AppendOnlyOrderedTrie<number>((n) => {
      encoded++;
      return RLP.encode(n);
    });
    const items = Array.from({ length: 200 }, (_, i) => i + 1);
    trie.rootOf(items.slice(0, 150));
    trie.rootOf(items);
    trie.rootOf(items);
    expect(encoded).toBe(200);
    expect(() => trie.rootOf(items.slice(0, 10))).toThrow(OrderedTrieShrunkError);
  });
});
