/**
 * Copies of many small byte strings kept for a while (a frame's witness values): each copy is a view of a large
 * shared chunk rather than a buffer of its own, whose objects and bookkeeping outside the JavaScript heap (a backing
 * store and its tracking, an allocator chunk) cost about as much as a trie node's own ~200 bytes (docs/host.md "The
 * host's memory over frames"). A chunk stays alive while any of its copies does; the arena itself keeps only the
 * chunk it is filling.
 */
export class ByteArena {
  private chunk: Uint8Array;
  private used = 0;

  /** `chunkBytes`: the size of each shared chunk (default 1 MiB). */
  constructor(private readonly chunkBytes = 2 ** 20) {
    this.chunk = new Uint8Array(chunkBytes);
  }

  /** A copy of `bytes`; one larger than a quarter chunk gets a buffer of its own (it would waste a chunk's tail). */
  copy(bytes: Uint8Array): Uint8Array {
    const length = bytes.length;
    if (length > this.chunkBytes >> 2) return bytes.slice();
    if (this.used + length > this.chunk.length) {
      this.chunk = new Uint8Array(this.chunkBytes);
      this.used = 0;
    }
    const copy = this.chunk.subarray(this.used, this.used + length);
    copy.set(bytes);
    this.used += length;
    return copy;
  }
}
