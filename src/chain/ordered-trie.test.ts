import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMPTY_TRIE_ROOT } from "./header.js";
import { orderedTrieRoot } from "./ordered-trie.js";

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
