/**
 * The preimages of one Prove request, held compactly (docs/enclave.md "Memory"): every 32-byte key packed into
 * one array, every value a view into the request payload it arrived in (the payload is the arena: no value is
 * copied), and an open-addressing index of typed arrays instead of a Map of hex strings. What it costs per entry
 * is `PREIMAGE_ENTRY_OVERHEAD_BYTES` next to the payload's own bytes, and the caller is told the count before
 * anything per entry is allocated (`admit`), so a memory budget can refuse a frame of many small entries.
 *
 * Decoding reads the `Request::Prove` payload exactly as the generated codec does (generated/protocol: the same
 * varints, caps and refusals, through its BincodeReader; each key by the codec's `readPreimageKeyInto`, straight
 * into the packed array) but keeps views where the codec copies the values.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import {
  BincodeDecodeError,
  BincodeReader,
  encodeRequest,
  type Preimage,
  PREIMAGE_KEY_LENGTH,
  readPreimageKeyInto,
} from "../../../generated/protocol/index.js";
import {
  keccak256,
  MissingPreimageError,
  PreimageKeyType,
  PreimageMismatchError,
  type PreimageSource,
} from "../../chain/index.js";

/** Bytes of one key: the type byte, then the 31 data bytes. */
const KEY_BYTES = PREIMAGE_KEY_LENGTH;
/** The wire's smallest entry: 31 key bytes, a one-byte key type, a one-byte value length. */
const MIN_ENTRY_BYTES = 33;
/** The Request variant index of Prove. */
const PROVE_VARIANT = 0;

/**
 * Memory one entry costs beyond its bytes in the payload: its packed key (32), value offset and length (8), two
 * index slots (8, the index is kept at most half full), rounded up for the typed arrays' growth. Measured: see
 * docs/enclave.md "Memory".
 */
export const PREIMAGE_ENTRY_OVERHEAD_BYTES = 64;

/**
 * The most preimages one Prove may carry (half the codec's 4,194,304). Blobs dominate a real witness: each is
 * 4,097 preimages (4,096 field elements and the commitment), and derivation reads every batch from a channel
 * timeout (50 L1 blocks) before the agreed head's L1 origin. The recorded devnet witness (conformance/fixtures,
 * 3 L2 blocks, 1 blob) holds 4,317 preimages; on the devnet whose batcher posts a blob every slot, 1, 10 and 100
 * blocks took 8,454, 12,585 and 119,189 (README, bench:prove). 2^21 holds 511 blobs: the host's default range of
 * 1,800 blocks of 2 s (300 L1 slots plus the 50-block floor) at about 1.4 blobs per slot.
 */
export const MAX_PROVE_PREIMAGES = 1 << 21;

export interface DecodeProveOptions {
  /**
   * Called once with the preimage count, after the caps and before anything per entry is allocated; it may throw
   * to refuse the request (a memory budget).
   */
  readonly admit?: (count: number) => void;
  /** Largest accepted count (default and maximum: MAX_PROVE_PREIMAGES). */
  readonly maxPreimages?: number;
  /**
   * The index's arrays on SharedArrayBuffers, so that `toShared` copies nothing when the payload is on one too
   * (the enclave with block workers assembles its request payloads there).
   */
  readonly shared?: boolean;
}

function hashKey(bytes: Uint8Array, at: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + KEY_BYTES; i += 4) {
    const word = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h = Math.imul(h ^ word, 0x01000193);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

/** A reader over `payload` from `at` on, with failures reported at payload offsets. */
function readAt<T>(
  payload: Uint8Array,
  at: number,
  read: (r: BincodeReader) => T,
): { value: T; end: number } {
  const r = new BincodeReader(payload.subarray(at));
  try {
    const value = read(r);
    return { value, end: at + r.position };
  } catch (error) {
    if (error instanceof BincodeDecodeError) {
      const message = error.message.replace(/ \(at byte \d+\)$/, "");
      throw new BincodeDecodeError(message, at + error.offset);
    }
    throw error;
  }
}

/** True when `payload` is a Request whose variant is Prove (anything else goes to the generated decoder). */
export function isProvePayload(payload: Uint8Array): boolean {
  return payload.length > 0 && payload[0] === PROVE_VARIANT;
}

/** A PreimageTable's arrays in SharedArrayBuffers (`toShared`), as posted to worker threads. */
export interface SharedPreimageTable {
  readonly payload: Uint8Array;
  readonly keyBytes: Uint8Array;
  readonly starts: Uint32Array;
  readonly lengths: Uint32Array;
  readonly slots: Int32Array;
  readonly count: number;
}

export class PreimageTable implements PreimageSource {
  /** The arrays on SharedArrayBuffers, once `toShared` has made them. */
  private shared: SharedPreimageTable | undefined;

  private constructor(
    private readonly payload: Uint8Array,
    private readonly keyBytes: Uint8Array,
    private readonly starts: Uint32Array,
    private readonly lengths: Uint32Array,
    private readonly slots: Int32Array,
    /** Entries as sent (a repeated key takes the place of the earlier one in the index). */
    readonly count: number,
  ) {}

  /**
   * The preimages of a `Request::Prove` payload (the whole request, variant index first). Throws
   * BincodeDecodeError where the generated decoder does, and whatever `admit` throws.
   */
  static decode(payload: Uint8Array, options: DecodeProveOptions = {}): PreimageTable {
    const maxPreimages = Math.min(options.maxPreimages ?? MAX_PROVE_PREIMAGES, MAX_PROVE_PREIMAGES);
    const variant = readAt(payload, 0, (r) => r.variant());
    if (variant.value !== PROVE_VARIANT)
      throw new BincodeDecodeError(`not a Prove request (variant ${variant.value})`, 0);
    const counted = readAt(payload, variant.end, (r) =>
      r.length64(MIN_ENTRY_BYTES, "Request::Prove.preimages", maxPreimages),
    );
    const count = counted.value;
    options.admit?.(count);
    const buffer = (bytes: number): ArrayBuffer | SharedArrayBuffer =>
      options.shared === true ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
    const keyBytes = new Uint8Array(buffer(count * KEY_BYTES));
    const starts = new Uint32Array(buffer(count * 4));
    const lengths = new Uint32Array(buffer(count * 4));
    let slotCount = 2;
    while (slotCount < 2 * count) slotCount *= 2;
    const table = new PreimageTable(
      payload,
      keyBytes,
      starts,
      lengths,
      new Int32Array(buffer(slotCount * 4)).fill(-1),
      count,
    );
    let at = counted.end;
    for (let i = 0; i < count; i++) {
      const length = readAt(payload, at, (r) => {
        readPreimageKeyInto(r, keyBytes, i * KEY_BYTES);
        return r.length64(1, "Bytes");
      });
      starts[i] = length.end;
      lengths[i] = length.value;
      at = length.end + length.value;
      table.index(i);
    }
    if (at !== payload.length)
      throw new BincodeDecodeError(`${payload.length - at} trailing bytes after the message`, at);
    return table;
  }

  /** The same table from decoded preimages (tests, tools): encoded once, then decoded as the enclave does. */
  static fromPreimages(preimages: readonly Preimage[]): PreimageTable {
    return PreimageTable.decode(encodeRequest({ kind: "Prove", preimages: [...preimages] }), {
      maxPreimages: MAX_PROVE_PREIMAGES,
    });
  }

  /**
   * The table's arrays on SharedArrayBuffers, for worker threads that read it without a copy each (`fromShared`).
   * An array already on one is shared as it is; any other is copied once (a payload copied is held twice until this
   * table is dropped), and later calls answer the same arrays.
   */
  toShared(): SharedPreimageTable {
    const share = <T extends Uint8Array | Uint32Array | Int32Array>(
      array: T,
      make: (b: SharedArrayBuffer) => T,
    ): T => {
      if (array.buffer instanceof SharedArrayBuffer) return array;
      const copy = make(new SharedArrayBuffer(array.byteLength));
      copy.set(array);
      return copy;
    };
    this.shared ??= {
      payload: share(this.payload, (b) => new Uint8Array(b)),
      keyBytes: share(this.keyBytes, (b) => new Uint8Array(b)),
      starts: share(this.starts, (b) => new Uint32Array(b)),
      lengths: share(this.lengths, (b) => new Uint32Array(b)),
      slots: share(this.slots, (b) => new Int32Array(b)),
      count: this.count,
    };
    return this.shared;
  }

  /**
   * A read-only view of a shared table (a worker thread's). The arrays come from `toShared` of a table the
   * enclave decoded itself; nothing here checks them again. Blocks run on it only after every value was verified
   * (`verifyContent`, or the workers' shares of it: src/proof/program's `BlockPool.verifyAll`).
   */
  static fromShared(shared: SharedPreimageTable): PreimageTable {
    return new PreimageTable(
      shared.payload,
      shared.keyBytes,
      shared.starts,
      shared.lengths,
      shared.slots,
      shared.count,
    );
  }

  private index(entry: number): void {
    const mask = this.slots.length - 1;
    for (let slot = hashKey(this.keyBytes, entry * KEY_BYTES) & mask; ; slot = (slot + 1) & mask) {
      const found = this.slots[slot]!;
      if (found === -1 || this.sameKey(found, this.keyBytes, entry * KEY_BYTES)) {
        this.slots[slot] = entry;
        return;
      }
    }
  }

  private sameKey(entry: number, bytes: Uint8Array, at: number): boolean {
    const own = entry * KEY_BYTES;
    for (let i = 0; i < KEY_BYTES; i++) if (this.keyBytes[own + i] !== bytes[at + i]) return false;
    return true;
  }

  private find(key: Uint8Array): number {
    if (key.length !== KEY_BYTES) return -1;
    const mask = this.slots.length - 1;
    for (let slot = hashKey(key, 0) & mask; ; slot = (slot + 1) & mask) {
      const found = this.slots[slot]!;
      if (found === -1 || this.sameKey(found, key, 0)) return found;
    }
  }

  private valueOf(entry: number): Uint8Array {
    const start = this.starts[entry]!;
    return this.payload.subarray(start, start + this.lengths[entry]!);
  }

  get(key: Uint8Array): Uint8Array {
    const value = this.tryGet(key);
    if (value === undefined) throw new MissingPreimageError(key);
    return value;
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    const entry = this.find(key);
    return entry === -1 ? undefined : this.valueOf(entry);
  }

  has(key: Uint8Array): boolean {
    return this.find(key) !== -1;
  }

  /** Every entry's 32-byte key, in the order sent (views: copy before keeping one). */
  *keys(): IterableIterator<Uint8Array> {
    for (let i = 0; i < this.count; i++) yield this.keyBytes.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
  }

  /**
   * Checks every keccak256- and sha256-keyed value against its key (PreimageMismatchError on the first that does
   * not hash to it), or those of entries `from` up to `to` only (a block worker's share, src/proof/program/
   * parallel). `between` runs every 1,024 entries (an abort check). keccak256 is src/chain's: WebAssembly once
   * `initKeccak` has resolved (the enclave awaits it first; over a whole witness about 40 times the pure-JS hash,
   * which answers until then with the same digests).
   */
  verifyContent(between?: () => void, from = 0, to = this.count): void {
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to > this.count || from > to)
      throw new RangeError(`entries ${from} to ${to} are not within the table's ${this.count}`);
    const keys = this.keyBytes;
    for (let i = from; i < to; i++) {
      if ((i & 1023) === 1023) between?.();
      const at = i * KEY_BYTES;
      const type = keys[at];
      const hash =
        type === PreimageKeyType.Keccak256 ? keccak256 : type === PreimageKeyType.Sha256 ? sha256 : undefined;
      if (hash === undefined) continue;
      const digest = hash(this.valueOf(i));
      // The key's first byte is its type; the other 31 are the digest's.
      for (let j = 1; j < KEY_BYTES; j++) {
        if (digest[j] !== keys[at + j])
          throw new PreimageMismatchError(keys.slice(at, at + KEY_BYTES), digest);
      }
    }
  }
}
