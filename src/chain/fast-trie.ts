/**
 * Synchronous Merkle-Patricia trie reads and batched updates over a node source, used for the
 * world state instead of @ethereumjs/mpt's per-operation asynchronous walks (the measured hot spot).
 * Updates are applied in memory on decoded nodes and each changed node is encoded and hashed once,
 * when the new root is computed (as geth does). Missing nodes surface as the source's error
 * (MissingPreimageError). Cross-checked against @ethereumjs/mpt in fast-trie.test.ts.
 */
import { keccak256 as keccak_256 } from "./keccak.js";
import { EMPTY_TRIE_ROOT } from "./header.js";
import { Bytes32Map } from "./bytes32-map.js";
import { EncodedRlp, type RlpItem, encodeRlp } from "./rlp-encode.js";
import { bytesEqual } from "./hex.js";
import { type Branch, type Nibbles, type Ref, type TrieNode, decodeTrieNode } from "./trie-node.js";

/** Where nodes come from and go to, keyed by their keccak256 hash. */
export interface TrieNodeStore {
  /** The node whose hash is `hash`; throws when it is missing. */
  getNode(hash: Uint8Array): Uint8Array;
  /** Records a node the update created. */
  putNode(hash: Uint8Array, node: Uint8Array): void;
}

function toNibbles(key: Uint8Array): Nibbles {
  const out = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

function encodeHexPrefix(path: Nibbles, leaf: boolean): Uint8Array {
  const odd = path.length % 2 === 1;
  const out = new Uint8Array(1 + (path.length >> 1));
  out[0] = ((leaf ? 2 : 0) + (odd ? 1 : 0)) << 4;
  let i = 0;
  if (odd) {
    out[0]! |= path[0]!;
    i = 1;
  }
  for (let o = 1; i < path.length; i += 2, o++) out[o] = (path[i]! << 4) | path[i + 1]!;
  return out;
}

const EMPTY = new Uint8Array(0);

export class FastTrie {
  /** Decoded nodes by hash; decoded nodes are never mutated (updates build new ones). */
  private readonly decoded = new Bytes32Map<TrieNode>();
  /**
   * The same nodes by the hash array that referred to them. A child's hash is a fixed array inside its
   * decoded parent (and a root is the array the caller holds), so walking the same path again finds each
   * node without building its 64-character hex key; hash arrays are never written.
   */
  private readonly byRef = new WeakMap<Uint8Array, TrieNode>();

  constructor(private readonly store: TrieNodeStore) {}

  private resolve(ref: Ref): TrieNode | null {
    if (ref === null) return null;
    if (ref instanceof Uint8Array) {
      let node = this.byRef.get(ref);
      if (node !== undefined) return node;
      node = this.decoded.get(ref);
      if (node === undefined) {
        node = decodeTrieNode(this.store.getNode(ref));
        this.decoded.set(ref, node);
      }
      this.byRef.set(ref, node);
      return node;
    }
    return ref;
  }

  /** Value stored under `key` (already hashed by the caller for secure tries), or undefined. */
  get(root: Uint8Array, key: Uint8Array): Uint8Array | undefined {
    if (bytesEqual(root, EMPTY_TRIE_ROOT)) return undefined;
    const path = toNibbles(key);
    let node = this.resolve(root);
    let pos = 0;
    while (node !== null) {
      if (node.t === 0) {
        if (node.path.length !== path.length - pos) return undefined;
        for (let i = 0; i < node.path.length; i++) if (node.path[i] !== path[pos + i]) return undefined;
        return node.value;
      }
      if (node.t === 1) {
        if (node.path.length > path.length - pos) return undefined;
        for (let i = 0; i < node.path.length; i++) if (node.path[i] !== path[pos + i]) return undefined;
        pos += node.path.length;
        node = this.resolve(node.child);
        continue;
      }
      if (pos === path.length) return node.value ?? undefined;
      node = this.resolve(node.children[path[pos]!]!);
      pos++;
    }
    return undefined;
  }

  /**
   * EIP-1186 / eth_getProof: the encoded nodes on the path of `key` from the root, root first, each
   * node referenced by hash (nodes embedded in their parent are part of it). For an absent key the
   * nodes prove its absence. An empty trie has an empty proof.
   */
  proof(root: Uint8Array, key: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (bytesEqual(root, EMPTY_TRIE_ROOT)) return out;
    const path = toNibbles(key);
    let ref: Ref = root;
    let pos = 0;
    while (ref !== null) {
      if (ref instanceof Uint8Array) out.push(this.store.getNode(ref));
      const node: TrieNode = this.resolve(ref)!;
      if (node.t === 0) break;
      if (node.t === 1) {
        if (node.path.length > path.length - pos) break;
        let matches = true;
        for (let i = 0; i < node.path.length && matches; i++) matches = node.path[i] === path[pos + i];
        if (!matches) break;
        pos += node.path.length;
        ref = node.child;
        continue;
      }
      if (pos === path.length) break;
      ref = node.children[path[pos]!]!;
      pos++;
    }
    return out;
  }

  /**
   * Applies updates (value) and deletions (undefined) to the trie at `root` and returns the new
   * root. Updates are applied before deletions (geth's order). Keys are raw trie keys.
   */
  update(root: Uint8Array, changes: Iterable<[Uint8Array, Uint8Array | undefined]>): Uint8Array {
    let top: Ref = bytesEqual(root, EMPTY_TRIE_ROOT) ? null : root;
    const deletes: Nibbles[] = [];
    for (const [key, value] of changes) {
      if (value === undefined || value.length === 0) deletes.push(toNibbles(key));
      else top = this.insert(top, toNibbles(key), 0, value);
    }
    for (const path of deletes) top = this.remove(top, path, 0);
    return this.commit(top);
  }

  private insert(ref: Ref, path: Nibbles, pos: number, value: Uint8Array): TrieNode {
    const node = this.resolve(ref);
    if (node === null) return { t: 0, path: path.slice(pos), value };
    if (node.t === 2) {
      const children = node.children.slice();
      if (pos === path.length) return { t: 2, children, value };
      const i = path[pos]!;
      children[i] = this.insert(children[i]!, path, pos + 1, value);
      return { t: 2, children, value: node.value };
    }
    // leaf or extension: split at the common prefix
    const rest = path.length - pos;
    let match = 0;
    while (match < node.path.length && match < rest && node.path[match] === path[pos + match]) match++;
    if (node.t === 0 && match === node.path.length && match === rest) return { t: 0, path: node.path, value };
    if (node.t === 1 && match === node.path.length) {
      return { t: 1, path: node.path, child: this.insert(node.child, path, pos + match, value) };
    }
    const branch: Branch = { t: 2, children: new Array<Ref>(16).fill(null), value: null };
    // the existing node goes below the branch
    if (node.t === 0) {
      if (match === node.path.length) branch.value = node.value;
      else branch.children[node.path[match]!] = { t: 0, path: node.path.slice(match + 1), value: node.value };
    } else {
      const remaining = node.path.slice(match + 1);
      branch.children[node.path[match]!] =
        remaining.length === 0 ? node.child : { t: 1, path: remaining, child: node.child };
    }
    // the new value
    if (match === rest) branch.value = value;
    else branch.children[path[pos + match]!] = { t: 0, path: path.slice(pos + match + 1), value };
    return match === 0 ? branch : { t: 1, path: path.slice(pos, pos + match), child: branch };
  }

  private remove(ref: Ref, path: Nibbles, pos: number): Ref {
    const node = this.resolve(ref);
    if (node === null) return null;
    if (node.t === 0) {
      if (node.path.length !== path.length - pos) return ref;
      for (let i = 0; i < node.path.length; i++) if (node.path[i] !== path[pos + i]) return ref;
      return null;
    }
    if (node.t === 1) {
      if (node.path.length > path.length - pos) return ref;
      for (let i = 0; i < node.path.length; i++) if (node.path[i] !== path[pos + i]) return ref;
      const child = this.remove(node.child, path, pos + node.path.length);
      if (child === node.child) return ref;
      if (child === null) return null;
      const resolved = this.resolve(child)!;
      // merge with a short child
      if (resolved.t === 0) return { t: 0, path: node.path.concat(resolved.path), value: resolved.value };
      if (resolved.t === 1) return { t: 1, path: node.path.concat(resolved.path), child: resolved.child };
      return { t: 1, path: node.path, child };
    }
    // branch
    let children = node.children;
    let value = node.value;
    if (pos === path.length) {
      if (value === null) return ref;
      value = null;
    } else {
      const i = path[pos]!;
      const child = this.remove(children[i]!, path, pos + 1);
      if (child === children[i]) return ref;
      children = children.slice();
      children[i] = child;
    }
    let count = 0;
    let only = -1;
    for (let i = 0; i < 16; i++) {
      if (children[i] !== null) {
        count++;
        only = i;
      }
    }
    if (count === 0 && value === null) return null;
    if (count === 0) return { t: 0, path: [], value: value! };
    if (count === 1 && value === null) {
      // collapse: the remaining child joins this position (resolving it, as geth does)
      const child = this.resolve(children[only]!)!;
      if (child.t === 0) return { t: 0, path: [only, ...child.path], value: child.value };
      if (child.t === 1) return { t: 1, path: [only, ...child.path], child: child.child };
      return { t: 1, path: [only], child: children[only]! };
    }
    return { t: 2, children, value };
  }

  /** Encodes changed nodes bottom-up, storing those of 32+ bytes; returns the root hash. */
  private commit(top: Ref): Uint8Array {
    if (top === null) return EMPTY_TRIE_ROOT;
    if (top instanceof Uint8Array) return top;
    const rlp = encodeRlp(this.itemOf(top));
    const hash = keccak_256(rlp);
    this.store.putNode(hash, rlp);
    return hash;
  }

  /** The RLP item of a node whose children are already references. */
  private itemOf(node: TrieNode): RlpItem {
    if (node.t === 0) return [encodeHexPrefix(node.path, true), node.value];
    if (node.t === 1) return [encodeHexPrefix(node.path, false), this.refItem(node.child)];
    const items: RlpItem[] = new Array(17);
    for (let i = 0; i < 16; i++) items[i] = this.refItem(node.children[i]!);
    items[16] = node.value ?? new Uint8Array(0);
    return items;
  }

  /** How a parent refers to a child: its hash, or the child's encoding inline when it is short. */
  private refItem(ref: Ref): RlpItem {
    if (ref === null) return EMPTY;
    if (ref instanceof Uint8Array) return ref;
    const rlp = encodeRlp(this.itemOf(ref));
    if (rlp.length < 32) return new EncodedRlp(rlp);
    const hash = keccak_256(rlp);
    this.store.putNode(hash, rlp);
    return hash;
  }
}
