/** Read-only account, code and storage access at one state root (a sealed block or a snapshot). */
import { RLP } from "@ethereumjs/rlp";
import { type Account, KECCAK256_NULL, createAccountFromRLP } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesEqual, bytesToBigInt, EMPTY_TRIE_ROOT, FastTrie, toHexRaw } from "../../chain/index.js";
import { type HashSource, nodeReader } from "./sources.js";

const MAX_CACHED_ACCOUNTS = 10_000;

/** An account and storage slots with their Merkle proofs (EIP-1186, eth_getProof's shape). */
export interface AccountWithProof {
  address: Uint8Array;
  accountProof: Uint8Array[];
  balance: bigint;
  codeHash: Uint8Array;
  nonce: bigint;
  storageHash: Uint8Array;
  storageProof: { key: Uint8Array; value: bigint; proof: Uint8Array[] }[];
}

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

  /**
   * The account and `slots` (32-byte words) with their proofs against this state root. An absent
   * account has the empty code hash and storage root, and its slots have empty proofs (geth's answer).
   */
  proof(address: Uint8Array, slots: readonly Uint8Array[]): AccountWithProof {
    const account = this.account(address);
    const storageHash = account?.storageRoot ?? EMPTY_TRIE_ROOT;
    return {
      address,
      accountProof: this.trie.proof(this.stateRoot, keccak_256(address)),
      balance: account?.balance ?? 0n,
      codeHash: account?.codeHash ?? KECCAK256_NULL,
      nonce: account?.nonce ?? 0n,
      storageHash,
      storageProof: slots.map((slot) => ({
        key: slot,
        value: bytesToBigInt(this.storage(address, slot)),
        proof: this.trie.proof(storageHash, keccak_256(slot)),
      })),
    };
  }
}
