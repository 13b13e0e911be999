/** Preimage sources for state reads: the block store, optionally overlaid with a snapshot's new nodes. */
import { fromHex, keccak256Key, MissingPreimageError, type PreimageSource } from "../../chain/index.js";

/** A source that can also be read by the unprefixed hex of a keccak256 hash (the engine's hot path). */
export interface HashSource extends PreimageSource {
  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined;
}

/** The store plus nodes written by a block being built (content-addressed, append-only). */
export class OverlaySource implements HashSource {
  constructor(
    private readonly base: HashSource,
    private readonly overlay: ReadonlyMap<string, Uint8Array>,
  ) {}

  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    return this.overlay.get(hashHex) ?? this.base.tryGetByKeccak256Hex(hashHex);
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    const base = this.base.tryGet(key);
    if (base !== undefined || key[0] !== 2) return base;
    // Overlay keys are full hashes; a typed key lacks the hash's first byte: try all 256.
    const suffix = Buffer.from(key.subarray(1)).toString("hex");
    for (let b = 0; b < 256; b++) {
      const v = this.overlay.get(b.toString(16).padStart(2, "0") + suffix);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  get(key: Uint8Array): Uint8Array {
    const v = this.tryGet(key);
    if (v === undefined) throw new MissingPreimageError(key);
    return v;
  }
}

/** Node store adapter for FastTrie reads. */
export function nodeReader(source: HashSource): { getNode(hash: Uint8Array): Uint8Array; putNode(): void } {
  return {
    getNode(hash) {
      const hex = Buffer.from(hash).toString("hex");
      const v = source.tryGetByKeccak256Hex(hex);
      if (v === undefined) throw new MissingPreimageError(keccak256Key(fromHex(`0x${hex}`)));
      return v;
    },
    putNode() {},
  };
}
