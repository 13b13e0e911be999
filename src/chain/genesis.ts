/**
 * Builds a state trie from an allocation (a genesis `alloc` or a devnet's funded accounts) into a
 * preimage store, so a BlockBuilder can start on it. Returns the state root.
 */
import { RLP } from "@ethereumjs/rlp";
import { FastTrie, type TrieNodeStore } from "./fast-trie.js";
import { EMPTY_TRIE_ROOT } from "./header.js";
import { bigIntToBytes, bigIntToWord } from "./hex.js";
import { keccak256 } from "./keccak.js";
import type { PreimageStore } from "./preimage-store.js";

export interface GenesisAccount {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** slot -> value (zero values are skipped). */
  storage?: ReadonlyMap<bigint, bigint> | readonly (readonly [bigint, bigint])[];
}

class StoreNodes implements TrieNodeStore {
  constructor(private readonly store: PreimageStore) {}
  getNode(hash: Uint8Array): Uint8Array {
    return this.store.getByKeccak256(hash);
  }
  putNode(hash: Uint8Array, node: Uint8Array): void {
    this.store.putKeccak256Trusted(hash, node);
  }
}

/** Writes the accounts' tries and code into `store`; `alloc` maps 20-byte addresses to accounts. */
export function buildGenesisState(
  store: PreimageStore,
  alloc: ReadonlyMap<Uint8Array, GenesisAccount>,
): Uint8Array {
  const trie = new FastTrie(new StoreNodes(store));
  const accounts: [Uint8Array, Uint8Array][] = [];
  for (const [address, account] of alloc) {
    if (address.length !== 20) throw new RangeError("genesis addresses must be 20 bytes");
    const slots: [Uint8Array, Uint8Array][] = [];
    for (const [slot, value] of account.storage ?? []) {
      if (value !== 0n) slots.push([keccak256(bigIntToWord(slot)), RLP.encode(bigIntToBytes(value))]);
    }
    const storageRoot = trie.update(EMPTY_TRIE_ROOT, slots);
    const code = account.code ?? new Uint8Array(0);
    const codeHash = keccak256(code);
    if (code.length > 0) store.putKeccak256Trusted(codeHash, code);
    const rlp = RLP.encode([
      bigIntToBytes(account.nonce ?? 0n),
      bigIntToBytes(account.balance ?? 0n),
      storageRoot,
      codeHash,
    ]);
    accounts.push([keccak256(address), rlp]);
  }
  return trie.update(EMPTY_TRIE_ROOT, accounts);
}
