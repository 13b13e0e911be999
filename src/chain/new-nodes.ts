/**
 * Selects, from everything the execution wrote, the trie nodes and code reachable from the new
 * state root: the account trie, each changed account's storage trie and new contract code.
 * Nodes that already existed (not in `written`) end the walk; they are not new.
 */
import { RLP } from "@ethereumjs/rlp";
import { toHexRaw } from "./hex.js";
import { type Ref, type TrieNode, decodeTrieNode } from "./trie-node.js";

export function collectNewNodes(
  written: Map<string, Uint8Array>,
  stateRoot: Uint8Array,
): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const visitHash = (hash: Uint8Array, onLeaf: (value: Uint8Array) => void): void => {
    const key = toHexRaw(hash);
    if (out.has(key)) return;
    const node = written.get(key);
    if (node === undefined) return;
    out.set(key, node);
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
    if (codeHash) {
      const key = toHexRaw(codeHash);
      const code = written.get(key);
      if (code !== undefined) out.set(key, code);
    }
  };
  visitHash(stateRoot, onAccount);
  return out;
}
