/** Read-only account, code and storage access at one state root (a sealed block or a snapshot). */
import { RLP } from "@ethereumjs/rlp";
import { type Account, KECCAK256_NULL, createAccountFromRLP } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { FastTrie } from "../../chain/fast-trie.js";
import { bytesEqual, toHexRaw } from "../../chain/hex.js";
import { type HashSource, nodeReader } from "./sources.js";

const MAX_CACHED_ACCOUNTS = 10_000;

export class StateView {
  private readonly trie: FastTrie;
  private readonly accounts = new Map<string, Account | null>();

  constructor(
    readonly source: HashSource,
    readonly stateRoot: Uint8Array,
  ) {
    this.trie = new FastTrie(nodeReader(source));
  }

  account(address: Uint8Array): Account | undefined {
    const key = toHexRaw(address);
    const cached = this.accounts.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const rlp = this.trie.get(this.stateRoot, keccak_256(address));
    const account = rlp === undefined ? undefined : createAccountFromRLP(rlp);
    if (this.accounts.size >= MAX_CACHED_ACCOUNTS) this.accounts.clear();
    this.accounts.set(key, account ?? null);
    return account;
  }

  balance(address: Uint8Array): bigint {
    return this.account(address)?.balance ?? 0n;
  }

  nonce(address: Uint8Array): bigint {
    return this.account(address)?.nonce ?? 0n;
  }

  code(address: Uint8Array): Uint8Array {
    const account = this.account(address);
    if (account === undefined || bytesEqual(account.codeHash, KECCAK256_NULL)) return new Uint8Array(0);
    return nodeReader(this.source).getNode(account.codeHash);
  }

  /** The 32-byte value of a storage slot (`slot` is 32 bytes). */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const out = new Uint8Array(32);
    const account = this.account(address);
    if (account === undefined) return out;
    const raw = this.trie.get(account.storageRoot, keccak_256(slot));
    if (raw === undefined) return out;
    const value = RLP.decode(raw) as Uint8Array;
    out.set(value, 32 - value.length);
    return out;
  }
}
