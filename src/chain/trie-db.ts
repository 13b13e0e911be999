/**
 * A database for @ethereumjs/mpt backed by a preimage source: trie nodes and contract code are read
 * by their keccak256 hash, and everything the execution writes (new trie nodes, new code) is kept in
 * an overlay so a node can persist it. A missing node is a MissingPreimageError naming the key,
 * never "not found" (the trie would otherwise read a missing node as an absent value).
 */
import type { BatchDBOp, DB } from "@ethereumjs/util";
import { type PreimageSource, MissingPreimageError, keccak256Key } from "./preimage-store.js";
import { fromHex } from "./hex.js";

const EMPTY_TRIE_ROOT_HEX = "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";

export class PreimageTrieDB implements DB<string, string | Uint8Array> {
  private readonly source: PreimageSource & { tryGetByKeccak256Hex?(hashHex: string): Uint8Array | undefined };
  /** New values written during execution, keyed by unprefixed hex keccak256 hash. */
  readonly written: Map<string, Uint8Array>;

  constructor(source: PreimageSource, written: Map<string, Uint8Array> = new Map()) {
    this.source = source;
    this.written = written;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    // The empty trie has no root node; the trie treats "absent" as empty for this one hash.
    if (key === EMPTY_TRIE_ROOT_HEX) return undefined;
    return this.getSync(key);
  }

  /** Synchronous read by unprefixed hex keccak256 hash; throws MissingPreimageError. */
  getSync(key: string): Uint8Array {
    const own = this.written.get(key);
    if (own !== undefined) return own;
    if (this.source.tryGetByKeccak256Hex !== undefined) {
      const v = this.source.tryGetByKeccak256Hex(key);
      if (v !== undefined) return v;
      throw new MissingPreimageError(keccak256Key(fromHex(key)));
    }
    return this.source.get(keccak256Key(fromHex(key)));
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.written.set(key, typeof value === "string" ? fromHex(value) : value);
  }

  /** Content-addressed data is never deleted (no pruning). */
  async del(_key: string): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === "put") this.written.set(op.key, typeof op.value === "string" ? fromHex(op.value) : op.value);
    }
  }

  shallowCopy(): PreimageTrieDB {
    return new PreimageTrieDB(this.source, this.written);
  }

  async open(): Promise<void> {}
}
