/** Roots of index-keyed tries (transactions, receipts): key rlp(index), value the encoded item. */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";

export async function orderedTrieRoot(items: readonly Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < items.length; i++) await trie.put(RLP.encode(i), items[i]!);
  return trie.root();
}
