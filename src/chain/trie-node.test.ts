/**
 * The in-place trie node decoder against @ethereumjs/rlp's decoder followed by the node rules: the same
 * node for every node of random tries, and, for corrupted nodes (bytes changed, cut, appended), either
 * the same node or an error from both.
 */
import { RLP } from "@ethereumjs/rlp";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FastTrie, type TrieNodeStore } from "./fast-trie.js";
import { EMPTY_TRIE_ROOT } from "./header.js";
import {
  MalformedTrieNodeError,
  type Ref,
  type TrieNode,
  decodeHexPrefix,
  decodeTrieNode,
} from "./trie-node.js";

type Item = Uint8Array | Item[];

/** The reference: the library's RLP decoder, then the node rules the decoder applies. */
function referenceRef(item: Item): Ref {
  if (Array.isArray(item)) return referenceNode(item);
  if (item.length === 0) return null;
  if (item.length === 32) return item;
  throw new Error("bad reference");
}
function referenceNode(item: Item): TrieNode {
  if (!Array.isArray(item)) throw new Error("not a list");
  if (item.length === 17) {
    const children = item.slice(0, 16).map(referenceRef);
    const v = item[16]!;
    if (Array.isArray(v)) throw new Error("branch value is a list");
    return { t: 2, children, value: v.length === 0 ? null : v };
  }
  if (item.length !== 2) throw new Error("item count");
  if (Array.isArray(item[0])) throw new Error("path is a list");
  const { path, leaf } = decodeHexPrefix(item[0]!);
  if (!leaf) return { t: 1, path, child: referenceRef(item[1]!) };
  if (Array.isArray(item[1])) throw new Error("leaf value is a list");
  return { t: 0, path, value: item[1]! };
}
function reference(rlp: Uint8Array): TrieNode {
  return referenceNode(RLP.decode(rlp) as Item);
}

class CollectingStore implements TrieNodeStore {
  readonly nodes = new Map<string, Uint8Array>();
  getNode(hash: Uint8Array): Uint8Array {
    const n = this.nodes.get(Buffer.from(hash).toString("hex"));
    if (n === undefined) throw new Error("missing node");
    return n;
  }
  putNode(hash: Uint8Array, node: Uint8Array): void {
    this.nodes.set(Buffer.from(hash).toString("hex"), node);
  }
}

/** Nodes of a trie with keys sharing prefixes (extensions, embedded nodes, branch values) and long values. */
const trieNodes = fc
  .array(
    fc.tuple(
      fc
        .oneof(
          fc.uint8Array({ minLength: 1, maxLength: 4 }),
          fc.uint8Array({ minLength: 28, maxLength: 33, size: "max" }),
        )
        .map((k) => k.map((b) => b & 0x31)),
      fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 4 }),
        fc.uint8Array({ minLength: 20, maxLength: 90, size: "max" }),
      ),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((entries) => {
    const store = new CollectingStore();
    new FastTrie(store).update(EMPTY_TRIE_ROOT, entries);
    return [...store.nodes.values()];
  });

function outcome(decode: (rlp: Uint8Array) => TrieNode, rlp: Uint8Array): TrieNode | "error" {
  try {
    return decode(rlp);
  } catch {
    return "error";
  }
}

describe("decodeTrieNode", () => {
  it("decodes every node of random tries as the RLP library and the node rules do", () => {
    fc.assert(
      fc.property(trieNodes, (nodes) => {
        for (const node of nodes) expect(decodeTrieNode(node)).toEqual(reference(node));
      }),
      { numRuns: 150 },
    );
  });

  it("accepts a corrupted node exactly when the reference does, with the same result", () => {
    const corruption = fc.oneof(
      fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([i, b]) => (n: Uint8Array) => {
        const c = n.slice();
        c[i % c.length] = b;
        return c;
      }),
      fc.nat().map((i) => (n: Uint8Array) => n.subarray(0, i % n.length)),
      fc.uint8Array({ minLength: 1, maxLength: 3 }).map((extra) => (n: Uint8Array) => {
        const c = new Uint8Array(n.length + extra.length);
        c.set(n);
        c.set(extra, n.length);
        return c;
      }),
    );
    fc.assert(
      fc.property(trieNodes, fc.array(corruption, { minLength: 1, maxLength: 3 }), (nodes, corrupt) => {
        for (const node of nodes) {
          const bad = corrupt.reduce((n, f) => f(n), node);
          expect(outcome(decodeTrieNode, bad)).toEqual(outcome(reference, bad));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("refuses non-canonical encodings with a MalformedTrieNodeError", () => {
    const leaf = (prefix: number[]) => Uint8Array.from([...prefix]);
    // A leaf [0x20, 0x05] written with 0x81 before the single byte 0x05.
    expect(() => decodeTrieNode(leaf([0xc3, 0x20, 0x81, 0x05]))).toThrow(MalformedTrieNodeError);
    // The same list in the long form (length 3 < 56).
    expect(() => decodeTrieNode(leaf([0xf8, 0x03, 0x20, 0x05, 0x05]))).toThrow(MalformedTrieNodeError);
    // A branch with 18 items.
    expect(() => decodeTrieNode(Uint8Array.from([0xd2, ...new Array(18).fill(0x80)]))).toThrow(
      MalformedTrieNodeError,
    );
    expect(decodeTrieNode(leaf([0xc2, 0x20, 0x05]))).toEqual({ t: 0, path: [], value: Uint8Array.of(5) });
  });
});
