/**
 * Selects, from everything the execution wrote, the trie nodes and code reachable from the new
 * state root: the account trie, each changed account's storage trie and new contract code.
 * Nodes that already existed (not in `written`) end the walk; they are not new.
 */
import { RLP } from "@ethereumjs/rlp";
import { toHexRaw } from "./hex.js";

type Item = Uint8Array | Item[];

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
    visitNode(RLP.decode(node) as Item, onLeaf);
  };
  const visitRef = (ref: Item, onLeaf: (value: Uint8Array) => void): void => {
    if (ref instanceof Uint8Array) {
      if (ref.length === 32) visitHash(ref, onLeaf);
    } else {
      visitNode(ref, onLeaf);
    }
  };
  const visitNode = (node: Item, onLeaf: (value: Uint8Array) => void): void => {
    if (!Array.isArray(node)) return;
    if (node.length === 17) {
      for (let i = 0; i < 16; i++) visitRef(node[i]!, onLeaf);
      const v = node[16];
      if (v instanceof Uint8Array && v.length > 0) onLeaf(v);
    } else if (node.length === 2) {
      const path = node[0] as Uint8Array;
      const isLeaf = (path[0] ?? 0) >> 4 >= 2;
      if (isLeaf) onLeaf(node[1] as Uint8Array);
      else visitRef(node[1]!, onLeaf);
    }
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
