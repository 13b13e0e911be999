/**
 * A map keyed by 32-byte arrays whose last bytes are uniformly distributed (keccak256 / sha256 hashes and
 * the preimage keys made from them), without building a hex string per lookup: the bucket is a number
 * taken from the key's last four bytes, the keys are copied into one growing byte pool, and a lookup
 * compares bytes. The trie walks and the preimage store look nodes up by hash on every cold read, where a
 * 64-character key per lookup (built, hashed by the engine's Map, then dropped) was a measured cost.
 *
 * Lookups can substitute the key's first byte (`first`): a preimage key is its hash with the first byte
 * replaced by the key type, so the store finds a keccak256 preimage from the raw hash without building
 * the key.
 */
const KEY_BYTES = 32;

/** 30 bits of the key's last four bytes: a small integer, so the bucket map's keys are never heap numbers. */
function bucketOf(key: Uint8Array): number {
  return ((key[28]! & 0x3f) << 24) | (key[29]! << 16) | (key[30]! << 8) | key[31]!;
}

export class Bytes32Map<V> {
  /** First entry of each bucket. */
  private readonly heads = new Map<number, number>();
  /** Entry i's key at bytes [32 i, 32 i + 32). */
  private keys = new Uint8Array(KEY_BYTES * 256);
  /** The next entry of the same bucket, or -1. */
  private next = new Int32Array(256);
  private readonly values: V[] = [];

  get size(): number {
    return this.values.length;
  }

  private find(key: Uint8Array, first: number, bucket: number): number {
    if (key.length !== KEY_BYTES) throw new RangeError(`key must be ${KEY_BYTES} bytes, got ${key.length}`);
    const keys = this.keys;
    let i = this.heads.get(bucket) ?? -1;
    while (i !== -1) {
      const o = i * KEY_BYTES;
      if (keys[o] === first) {
        let j = 1;
        while (j < KEY_BYTES && keys[o + j] === key[j]) j++;
        if (j === KEY_BYTES) return i;
      }
      i = this.next[i]!;
    }
    return -1;
  }

  /** The value under `key`, its first byte read as `first` (default: the key's own). */
  get(key: Uint8Array, first: number = key[0]!): V | undefined {
    const i = this.find(key, first, bucketOf(key));
    return i === -1 ? undefined : this.values[i];
  }

  has(key: Uint8Array, first: number = key[0]!): boolean {
    return this.find(key, first, bucketOf(key)) !== -1;
  }

  /** Sets the value under `key` (its first byte read as `first`); the key's bytes are copied. */
  set(key: Uint8Array, value: V, first: number = key[0]!): void {
    const bucket = bucketOf(key);
    const found = this.find(key, first, bucket);
    if (found !== -1) {
      this.values[found] = value;
      return;
    }
    const i = this.values.length;
    if (i === this.next.length) {
      const keys = new Uint8Array(this.keys.length * 2);
      keys.set(this.keys);
      this.keys = keys;
      const next = new Int32Array(this.next.length * 2);
      next.set(this.next);
      this.next = next;
    }
    const o = i * KEY_BYTES;
    this.keys.set(key, o);
    this.keys[o] = first;
    this.next[i] = this.heads.get(bucket) ?? -1;
    this.heads.set(bucket, i);
    this.values.push(value);
  }

  /**
   * Every entry in insertion order, keys as views of the map's key pool (no buffer per key: a million keys of their
   * own cost more memory outside the heap than their bytes). A key's bytes never change once set, also after the
   * pool grows; the views keep the pool they were taken from alive. Not to be written to.
   */
  *entryViews(): IterableIterator<[Uint8Array, V]> {
    const keys = this.keys;
    for (let i = 0; i < this.values.length; i++) {
      yield [keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES), this.values[i]!];
    }
  }

  /** Every entry in insertion order, keys as fresh 32-byte arrays. */
  *entries(): IterableIterator<[Uint8Array, V]> {
    for (let i = 0; i < this.values.length; i++) {
      yield [this.keys.slice(i * KEY_BYTES, (i + 1) * KEY_BYTES), this.values[i]!];
    }
  }
}
