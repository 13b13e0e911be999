/**
 * World state for one block: @ethereumjs/statemanager's MerkleStateManager with its caches, over an
 * account trie on the preimage store. Writes stay in the caches for the whole block and reach the
 * tries only when a root is asked for, in geth's order: per storage trie updates before deletions,
 * then the account trie, updates before deletions. The order matters for stateless execution:
 * deleting first can collapse a branch whose sibling node the witness does not contain.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import type { Common } from "@ethereumjs/common";
import { Address, ValueEncoding, unpadBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { fromHex } from "./hex.js";
import type { PreimageTrieDB } from "./trie-db.js";

export class BlockStateManager extends MerkleStateManager {
  static create(db: PreimageTrieDB, stateRoot: Uint8Array, common: Common): BlockStateManager {
    const trie = new MerklePatriciaTrie({ db, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, root: stateRoot, common });
    return new BlockStateManager({ trie, common, prefixCodeHashes: false, caches: new Caches() });
  }

  /** Storage writes go to the cache only (the base class also writes the trie at once). */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new RangeError("storage key must be 32 bytes");
    if (value.length > 32) throw new RangeError("storage value cannot be longer than 32 bytes");
    const account = await this.getAccount(address);
    if (account === undefined) throw new Error(`putStorage on non-existing account ${address}`);
    const storage = this._caches?.storage;
    if (storage === undefined) throw new Error("BlockStateManager requires a storage cache");
    storage.put(address, key, RLP.encode(unpadBytes(value)));
  }

  override async flush(): Promise<void> {
    const caches = this._caches;
    if (caches === undefined) throw new Error("BlockStateManager requires caches");
    for (const [, elem] of caches.code?.flush() ?? []) {
      const code = elem.code;
      if (code === undefined) continue;
      // The account's codeHash was already set by putCode; store the code itself.
      await this._getCodeDB().put(keccak_256(code), code);
    }

    const perAccount = new Map<string, { updates: [Uint8Array, Uint8Array][]; deletes: Uint8Array[] }>();
    for (const [addressHex, keyHex, value] of caches.storage?.flush() ?? []) {
      let entry = perAccount.get(addressHex);
      if (entry === undefined) {
        entry = { updates: [], deletes: [] };
        perAccount.set(addressHex, entry);
      }
      const key = fromHex(keyHex);
      const decoded = value === undefined ? new Uint8Array(0) : (RLP.decode(value) as Uint8Array);
      if (decoded.length === 0) entry.deletes.push(key);
      else entry.updates.push([key, value!]);
    }
    for (const [addressHex, { updates, deletes }] of perAccount) {
      const address = new Address(fromHex(addressHex));
      const account = await this.getAccount(address);
      if (account === undefined) continue;
      const trie = this._getStorageTrie(address, account);
      for (const [key, value] of updates) await trie.put(key, value);
      for (const key of deletes) await trie.del(key);
      account.storageRoot = trie.root();
      await this.putAccount(address, account);
    }

    const trie = this._trie;
    const deletions: Uint8Array[] = [];
    for (const [addressHex, elem] of caches.account?.flush() ?? []) {
      const address = fromHex(addressHex);
      if (elem.accountRLP === undefined) deletions.push(address);
      else await trie.put(address, elem.accountRLP);
    }
    for (const address of deletions) await trie.del(address);
  }
}
