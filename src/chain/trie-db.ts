/**
 * A database for @ethereumjs/mpt backed by a preimage source: trie nodes and contract code are read
 * by their keccak256 hash, and everything the execution writes (new trie nodes, new code) is kept in
 * an overlay so a node can persist it. A missing node is a MissingPreimageError naming the key,
 * never "not found" (the trie would otherwise read a missing node as an absent value).
 */
import type { BatchDBOp, DB } from "@ethereumjs/util";
import type { TrieNodeStore } from "./fast-trie.js";
import { Bytes32Map } from "./bytes32-map.js";
import {
  type Keccak256Source,
  type PreimageSource,
  MissingPreimageError,
  keccak256Key,
} from "./preimage-store.js";
import { fromHex, toHexRaw } from "./hex.js";

export interface PreimageTrieDBOptions {
  /**
   * Keep every value the execution writes without asking the source whether it holds it already. For a source whose
   * lookups are database queries and whose writes are dropped (a witness execution, a re-execution that only
   * compares hashes) or stored where a duplicate is ignored (the node's store, INSERT OR IGNORE): the lookup of each
   * new trie node was 9-12 % of the node's CPU at Base's load, and a witness execution recorded a node it found this
   * way as one the block read. Default false: the proof program's oracle keeps only what it does not hold.
   */
  readonly keepEveryWrite?: boolean;
}

/** The written values a shallow copy shares with its original. */
interface Written {
  readonly written: Map<string, Uint8Array>;
  readonly writtenKeys: string[];
  readonly writtenByHash: Bytes32Map<Uint8Array>;
}

const EMPTY_TRIE_ROOT_HEX = "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";

export class PreimageTrieDB implements DB<string, string | Uint8Array>, TrieNodeStore {
  private readonly source: PreimageSource &
    Partial<Keccak256Source> & {
      tryGetByKeccak256Hex?(hashHex: string): Uint8Array | undefined;
    };
  /** New values written during execution, keyed by unprefixed hex keccak256 hash. */
  readonly written: Map<string, Uint8Array>;
  /** The keys of `written` in the order written (append-only), so a reader can take what is new. */
  readonly writtenKeys: string[];
  /** `written` by the hash bytes, for the trie's reads by hash (no hex key per read). */
  private readonly writtenByHash: Bytes32Map<Uint8Array>;

  private readonly keepEveryWrite: boolean;

  /** The db starts empty; a shallow copy shares `written` with its original. */
  constructor(source: PreimageSource, options: PreimageTrieDBOptions = {}, shared?: Written) {
    this.source = source;
    this.keepEveryWrite = options.keepEveryWrite === true;
    this.written = shared?.written ?? new Map();
    this.writtenKeys = shared?.writtenKeys ?? [];
    this.writtenByHash = shared?.writtenByHash ?? new Bytes32Map();
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

  /** Node (or code) by raw keccak256 hash, synchronously (TrieNodeStore); throws MissingPreimageError. */
  getNode(hash: Uint8Array): Uint8Array {
    const own = this.writtenByHash.get(hash);
    if (own !== undefined) return own;
    if (this.source.tryGetByKeccak256 !== undefined) {
      const v = this.source.tryGetByKeccak256(hash);
      if (v !== undefined) return v;
      throw new MissingPreimageError(keccak256Key(hash));
    }
    return this.getSync(toHexRaw(hash));
  }

  /** A value the execution wrote, by its raw keccak256 hash (the same array `written` holds); no hex key built. */
  writtenValue(hash: Uint8Array): Uint8Array | undefined {
    return this.writtenByHash.get(hash);
  }

  /** Records a node the execution created (TrieNodeStore). */
  putNode(hash: Uint8Array, node: Uint8Array): void {
    if (this.writtenByHash.has(hash)) return;
    if (this.keepEveryWrite) {
      this.keep(toHexRaw(hash), hash, node);
      return;
    }
    if (this.source.tryGetByKeccak256 !== undefined) {
      if (this.source.tryGetByKeccak256(hash) !== undefined) return;
      this.keep(toHexRaw(hash), hash, node);
      return;
    }
    this.record(toHexRaw(hash), node);
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.record(key, value);
  }

  /** Keeps a written value unless the source already has it (the trie writes back nodes it read). */
  private record(key: string, value: string | Uint8Array): void {
    if (this.written.has(key)) return;
    if (!this.keepEveryWrite) {
      const existing =
        this.source.tryGetByKeccak256Hex !== undefined
          ? this.source.tryGetByKeccak256Hex(key)
          : this.source.tryGet(keccak256Key(fromHex(key)));
      if (existing !== undefined) return;
    }
    this.keep(key, fromHex(key), typeof value === "string" ? fromHex(value) : value);
  }

  private keep(key: string, hash: Uint8Array, value: Uint8Array): void {
    this.written.set(key, value);
    this.writtenKeys.push(key);
    this.writtenByHash.set(hash, value);
  }

  /** Content-addressed data is never deleted (no pruning). */
  async del(_key: string): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === "put") this.record(op.key, op.value);
    }
  }

  shallowCopy(): PreimageTrieDB {
    const { written, writtenKeys, writtenByHash } = this;
    return new PreimageTrieDB(
      this.source,
      { keepEveryWrite: this.keepEveryWrite },
      { written, writtenKeys, writtenByHash },
    );
  }

  async open(): Promise<void> {}
}
