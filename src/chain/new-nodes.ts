/**
 * Selects, from everything the execution wrote, the trie nodes and code reachable from the new
 * state root: the account trie, each changed account's storage trie and new contract code.
 * Nodes that already existed (not in `written`) end the walk; they are not new.
 */
import { RLP } from "@ethereumjs/rlp";
import { toHexRaw } from "./hex.js";
import { type Ref, type TrieNode, decodeTrieNode } from "./trie-node.js";

/** What the walk reads of the execution's writes: by raw hash, the same value arrays as the hex-keyed map. */
export interface WrittenValues {
  writtenValue(hash: Uint8Array): Uint8Array | undefined;
}

export function collectNewNodes(written: WrittenValues, stateRoot: Uint8Array): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  // A node is looked up by its hash bytes: most children of a new branch are old nodes, which end the walk
  // without a hex key; a hex key is built only for what goes into `out`. Visited nodes are known by their
  // array (one per hash in the written values).
  const visited = new Set<Uint8Array>();
  const visitHash = (hash: Uint8Array, onLeaf: (value: Uint8Array) => void): void => {
    const node = hash.length === 32 ? written.writtenValue(hash) : undefined;
    if (node === undefined || visited.has(node)) return;
    visited.add(node);
    out.set(toHexRaw(hash), node);
    visitNode(decodeTrieNode(node), onLeaf);
  };
  const visitRef = (ref: Ref, onLeaf: (value: Uint8Array) => void): void => {
    if (ref === null) return;
    if (ref instanceof Uint8Array) visitHash(ref, onLeaf);
    else visitNode(ref, onLeaf);
  };
  const visitNode = (node: TrieNode, onLeaf: (value: Uint8Array) => void): void => {
    if (node.t === 2) {
      for (let i = 0; i < 16; i++) visitRef(node.children[i]!, onLeaf);
      if (node.value !== null) onLeaf(node.value);
    } else if (node.t === 0) onLeaf(node.value);
    else visitRef(node.child, onLeaf);
  };
  const onAccount = (value: Uint8Array): void => {
    const account = RLP.decode(value) as Uint8Array[];
    const storageRoot = account[2];
    const codeHash = account[3];
    if (storageRoot) visitHash(storageRoot, () => {});
    if (codeHash?.length === 32) {
      const code = written.writtenValue(codeHash);
      if (code !== undefined) {
        visited.add(code);
        out.set(toHexRaw(codeHash), code);
      }
    }
  };
  visitHash(stateRoot, onAccount);
  return out;
}
