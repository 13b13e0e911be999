/**
 * World state for one block: @ethereumjs/statemanager's MerkleStateManager for its journaled caches
 * (checkpoint / commit / revert as the EVM needs them), with trie access replaced by FastTrie over
 * the preimage-backed node store: synchronous reads on cache misses, and writes that stay in the
 * caches until a root is asked for. Then each storage trie and the account trie are updated in one
 * batch, updates before deletions as geth does (deleting first can collapse a branch whose sibling
 * node a stateless witness does not contain), and every changed node is hashed once.
 */
import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address, ValueEncoding, createAccountFromRLP, unpadBytes } from "@ethereumjs/util";
import { keccak256 as keccak_256 } from "./keccak.js";
import { FastTrie } from "./fast-trie.js";
import { fromHex, toHexRaw } from "./hex.js";
import type { PreimageTrieDB } from "./trie-db.js";

const EMPTY_RLP_VALUE = Uint8Array.of(0x80);

export class BlockStateManager extends MerkleStateManager {
  private nodes!: PreimageTrieDB;
  private fast!: FastTrie;
  private root!: Uint8Array;
  /**
   * Every account (unprefixed hex address) and storage slot (unprefixed hex key) read from the parent
   * state, recorded on cache misses only (the first read of each): what a block touched of its pre-state.
   */
  readonly reads = new Map<string, Set<string>>();
  /**
   * Accounts decoded from the account cache's RLP, by that RLP array (the cache stores a new one on every
   * write): an account read again and again (a called contract, a token's balance holder) is decoded once.
   * Never handed out: each read gets a new Account with the same fields, which the caller may change.
   */
  private readonly decodedAccounts = new WeakMap<Uint8Array, Account>();

  private accountFromCache(rlp: Uint8Array): Account {
    let decoded = this.decodedAccounts.get(rlp);
    if (decoded === undefined) {
      decoded = createAccountFromRLP(rlp);
      this.decodedAccounts.set(rlp, decoded);
    }
    return new Account(decoded.nonce, decoded.balance, decoded.storageRoot, decoded.codeHash);
  }

  /** keccak256 of addresses and storage slots, by hex (trie keys are hashed). */
  private readonly hashedKeys = new Map<string, Uint8Array>();

  private hashedKey(hex: string, bytes?: Uint8Array): Uint8Array {
    let h = this.hashedKeys.get(hex);
    if (h === undefined) {
      h = keccak_256(bytes ?? fromHex(hex));
      this.hashedKeys.set(hex, h);
    }
    return h;
  }

  /** The addresses and storage slots whose keccak256 this state has used as trie keys (reads and writes). */
  keyPreimages(): Uint8Array[] {
    return [...this.hashedKeys.keys()].map((hex) => fromHex(hex));
  }

  static create(db: PreimageTrieDB, stateRoot: Uint8Array, common: Common): BlockStateManager {
    // The base class keeps an @ethereumjs/mpt trie for its checkpoint bookkeeping; state reads and
    // writes go through FastTrie below.
    const trie = new MerklePatriciaTrie({
      db,
      useKeyHashing: true,
      valueEncoding: ValueEncoding.Bytes,
      root: stateRoot,
      common,
    });
    const sm = new BlockStateManager({ trie, common, prefixCodeHashes: false, caches: new Caches() });
    sm.nodes = db;
    sm.fast = new FastTrie(db);
    sm.root = stateRoot;
    return sm;
  }

  private get caches(): Caches {
    const c = this._caches;
    if (c === undefined) throw new Error("BlockStateManager requires caches");
    return c;
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    return this.getAccountSync(address);
  }

  /** `getAccount` without the promise: every read is synchronous (caches, then the in-memory trie). */
  getAccountSync(address: Address): Account | undefined {
    const elem = this.caches.account!.get(address);
    if (elem !== undefined)
      return elem.accountRLP !== undefined ? this.accountFromCache(elem.accountRLP) : undefined;
    const addressHex = toHexRaw(address.bytes);
    if (!this.reads.has(addressHex)) this.reads.set(addressHex, new Set());
    const rlp = this.fast.get(this.root, this.hashedKey(addressHex, address.bytes));
    if (rlp === undefined) {
      this.caches.account!.put(address, undefined);
      return undefined;
    }
    // The cache keeps the account's encoding as the trie holds it (the cache's `put` would re-encode the
    // fields just decoded from it: `Account.serialize` was 2 % of a block's CPU on reads alone); the decoded
    // account is kept for it, and each caller gets its own copy.
    this.decodedAccounts.set(rlp, createAccountFromRLP(rlp));
    this.caches.account!.put(address, { serialize: () => rlp } as Account);
    return this.accountFromCache(rlp);
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.getStorageSync(address, key);
  }

  /** `getStorage` without the promise (the SLOAD fast path in evm-storage-ops.ts calls it). */
  getStorageSync(address: Address, key: Uint8Array): Uint8Array {
    if (key.length !== 32) throw new RangeError("storage key must be 32 bytes");
    const cached = this.caches.storage!.get(address, key);
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array;
    const account = this.getAccountSync(address);
    if (account === undefined) return new Uint8Array(0);
    const keyHex = toHexRaw(key);
    this.reads.get(toHexRaw(address.bytes))?.add(keyHex);
    const value = this.fast.get(account.storageRoot, this.hashedKey(keyHex, key));
    this.caches.storage!.put(address, key, value ?? EMPTY_RLP_VALUE);
    return value === undefined ? new Uint8Array(0) : (RLP.decode(value) as Uint8Array);
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const elem = this.caches.code!.get(address);
    if (elem !== undefined) return elem.code ?? new Uint8Array(0);
    const account = await this.getAccount(address);
    const code =
      account === undefined || !account.isContract()
        ? new Uint8Array(0)
        : this.nodes.getNode(account.codeHash);
    this.caches.code!.put(address, code);
    return code;
  }

  /**
   * The slot's value when the transaction began, as the library's `originalStorageCache.get` gives it, without
   * the promise (the SSTORE fast path in evm-storage-ops.ts): the value remembered at the slot's first such
   * read in this transaction, else the current one, then remembered.
   */
  getOriginalStorageSync(address: Address, key: Uint8Array): Uint8Array {
    const original = this.originalStorageCache;
    // The cache's private map (unprefixed hex address → unprefixed hex slot → value), read as its `get` does.
    const map = (original as unknown as { map: Map<string, Map<string, Uint8Array>> }).map;
    const remembered = map.get(toHexRaw(address.bytes))?.get(toHexRaw(key));
    if (remembered !== undefined) return remembered;
    const value = this.getStorageSync(address, key);
    original.put(address, key, value);
    return value;
  }

  /** Storage writes go to the cache only (the base class also writes the trie at once). */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.putStorageSync(address, key, value);
  }

  /** `putStorage` without the promise (the SSTORE fast path in evm-storage-ops.ts calls it). */
  putStorageSync(address: Address, key: Uint8Array, value: Uint8Array): void {
    if (key.length !== 32) throw new RangeError("storage key must be 32 bytes");
    if (value.length > 32) throw new RangeError("storage value cannot be longer than 32 bytes");
    const account = this.getAccountSync(address);
    if (account === undefined) throw new Error(`putStorage on non-existing account ${address}`);
    this.caches.storage!.put(address, key, RLP.encode(unpadBytes(value)));
  }

  override async getStateRoot(): Promise<Uint8Array> {
    await this.flush();
    return this.root;
  }

  override async flush(): Promise<void> {
    const caches = this.caches;
    for (const [, elem] of caches.code?.flush() ?? []) {
      // The account's codeHash was already set by putCode; store the code itself.
      if (elem.code !== undefined && elem.code.length > 0)
        this.nodes.putNode(keccak_256(elem.code), elem.code);
    }

    const perAccount = new Map<string, [Uint8Array, Uint8Array | undefined][]>();
    for (const [addressHex, keyHex, value] of caches.storage?.flush() ?? []) {
      let changes = perAccount.get(addressHex);
      if (changes === undefined) {
        changes = [];
        perAccount.set(addressHex, changes);
      }
      const empty = value === undefined || value.length === 0 || (value.length === 1 && value[0] === 0x80);
      changes.push([this.hashedKey(keyHex), empty ? undefined : value]);
    }
    for (const [addressHex, changes] of perAccount) {
      const address = new Address(fromHex(addressHex));
      const account = await this.getAccount(address);
      if (account === undefined) continue;
      account.storageRoot = this.fast.update(account.storageRoot, changes);
      await this.putAccount(address, account);
    }

    const accountChanges: [Uint8Array, Uint8Array | undefined][] = [];
    for (const [addressHex, elem] of caches.account?.flush() ?? []) {
      accountChanges.push([this.hashedKey(addressHex), elem.accountRLP]);
    }
    if (accountChanges.length > 0) this.root = this.fast.update(this.root, accountChanges);
  }
}
