/**
 * Preimage store keyed by 32-byte preimage keys (the OP fault-proof / TEE key format).
 *
 * Key layout: the first byte is the key type, the remaining 31 bytes are type-specific.
 * keccak256 and sha256 keys are the hash of the value with its first byte replaced by the
 * type byte; their values are content-verified on insert. Local keys carry a boot-info index
 * in their last 8 bytes. Global generic, blob and precompile keys are accepted as given
 * (their verification needs context the store does not have: blob KZG proofs, precompile
 * re-execution); callers that need it verify them before insert.
 *
 * Standalone on purpose (only @noble/hashes, keccak.ts, bytes32-map.ts and hex.ts): the enclave reuses it.
 * keccak256 is keccak.ts's: WebAssembly once `initKeccak` resolved, the pure-JS one before (same results).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { Bytes32Map } from "./bytes32-map.js";
import { ChainError, type ChainErrorOptions } from "./errors.js";
import { fromHex } from "./hex.js";
import { keccak256 } from "./keccak.js";

const LOWER_HEX_HASH = /^[0-9a-f]{64}$/;

export const PreimageKeyType = {
  Local: 1,
  Keccak256: 2,
  GlobalGeneric: 3,
  Sha256: 4,
  Blob: 5,
  Precompile: 6,
} as const;
export type PreimageKeyType = (typeof PreimageKeyType)[keyof typeof PreimageKeyType];

const KEY_TYPE_NAMES: Record<number, string> = {
  1: "local",
  2: "keccak256",
  3: "global-generic",
  4: "sha256",
  5: "blob",
  6: "precompile",
};

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
function hexOf(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]!];
  return s;
}

/** Human-readable form of a key: `keccak256:0x02ab…`. */
export function describePreimageKey(key: Uint8Array): string {
  const name = KEY_TYPE_NAMES[key[0] ?? 0] ?? `unknown-type-${key[0]}`;
  return `${name}:0x${hexOf(key)}`;
}

/** A preimage the execution needed is not in the store. */
export class MissingPreimageError extends ChainError {
  readonly key: Uint8Array;
  constructor(key: Uint8Array) {
    super(`missing preimage for key ${describePreimageKey(key)}`, "missing-preimage", { details: { key } });
    this.key = key;
  }
}

/** A value's hash does not match its content-addressed key. */
export class PreimageMismatchError extends ChainError {
  readonly key: Uint8Array;
  /** What the value hashes to. */
  readonly actualHash: Uint8Array;
  constructor(key: Uint8Array, actualHash: Uint8Array) {
    super(
      `preimage for key ${describePreimageKey(key)} does not match its content (value hashes to 0x${hexOf(actualHash)})`,
      "preimage-mismatch",
      { details: { key, actualHash } },
    );
    this.key = key;
    this.actualHash = actualHash;
  }
}

/** A key that is not 32 bytes or has an unknown type byte. */
export class InvalidPreimageKeyError extends ChainError {
  constructor(message: string, options?: ChainErrorOptions) {
    super(message, "invalid-preimage-key", options);
  }
}

function typedKey(type: PreimageKeyType, hash: Uint8Array): Uint8Array {
  if (hash.length !== 32) throw new InvalidPreimageKeyError(`hash must be 32 bytes, got ${hash.length}`);
  const key = new Uint8Array(32);
  key.set(hash);
  key[0] = type;
  return key;
}

export function keccak256Key(hash: Uint8Array): Uint8Array {
  return typedKey(PreimageKeyType.Keccak256, hash);
}

export function sha256Key(hash: Uint8Array): Uint8Array {
  return typedKey(PreimageKeyType.Sha256, hash);
}

/** Local (boot information) key: type 1, index in the last 8 bytes (big-endian). */
export function localKey(index: bigint | number): Uint8Array {
  const key = new Uint8Array(32);
  key[0] = PreimageKeyType.Local;
  new DataView(key.buffer).setBigUint64(24, BigInt(index));
  return key;
}

function checkKey(key: Uint8Array): PreimageKeyType {
  if (key.length !== 32)
    throw new InvalidPreimageKeyError(`preimage key must be 32 bytes, got ${key.length}`);
  const type = key[0]!;
  if (type < 1 || type > 6)
    throw new InvalidPreimageKeyError(`unknown preimage key type ${type} in 0x${hexOf(key)}`);
  return type as PreimageKeyType;
}

function verifyContent(key: Uint8Array, type: PreimageKeyType, value: Uint8Array): void {
  let digest: Uint8Array;
  if (type === PreimageKeyType.Keccak256) digest = keccak256(value);
  else if (type === PreimageKeyType.Sha256) digest = sha256(value);
  else return;
  for (let i = 1; i < 32; i++) {
    if (digest[i] !== key[i]) throw new PreimageMismatchError(key, digest);
  }
}

/** Read side, as the execution engine needs it. */
export interface PreimageSource {
  /** The value, or throws MissingPreimageError naming the key. */
  get(key: Uint8Array): Uint8Array;
  /** The value, or undefined. */
  tryGet(key: Uint8Array): Uint8Array | undefined;
}

/** A source that can also find a keccak256 preimage by its raw hash, without building the typed key. */
export interface Keccak256Source {
  tryGetByKeccak256(hash: Uint8Array): Uint8Array | undefined;
}

export class PreimageStore implements PreimageSource, Keccak256Source {
  /** By the 32-byte key; the engine's trie reads look nodes up by hash on every cold read (no hex keys). */
  private readonly values = new Bytes32Map<Uint8Array>();

  /** Inserts a value; content-addressed keys are verified first (PreimageMismatchError). */
  put(key: Uint8Array, value: Uint8Array): void {
    const type = checkKey(key);
    verifyContent(key, type, value);
    this.values.set(key, value);
  }

  /** Inserts a value under its keccak256 key, computing the hash (no verification needed). */
  putKeccak256(value: Uint8Array): Uint8Array {
    const hash = keccak256(value);
    this.values.set(hash, value, PreimageKeyType.Keccak256);
    return hash;
  }

  /** Inserts a value whose keccak256 was computed by the caller and is trusted (our own trie writes). */
  putKeccak256Trusted(hash: Uint8Array, value: Uint8Array): void {
    if (hash.length !== 32) throw new InvalidPreimageKeyError(`hash must be 32 bytes, got ${hash.length}`);
    this.values.set(hash, value, PreimageKeyType.Keccak256);
  }

  get(key: Uint8Array): Uint8Array {
    const value = this.tryGet(key);
    if (value === undefined) throw new MissingPreimageError(key);
    return value;
  }

  tryGet(key: Uint8Array): Uint8Array | undefined {
    return key.length === 32 ? this.values.get(key) : undefined;
  }

  has(key: Uint8Array): boolean {
    return key.length === 32 && this.values.has(key);
  }

  /** Value whose keccak256 is `hash` (raw 32-byte hash, not a typed key). */
  getByKeccak256(hash: Uint8Array): Uint8Array {
    return this.get(keccak256Key(hash));
  }

  /** Value whose keccak256 is `hash` (raw 32-byte hash), or undefined: the trie's hot path. */
  tryGetByKeccak256(hash: Uint8Array): Uint8Array | undefined {
    return hash.length === 32 ? this.values.get(hash, PreimageKeyType.Keccak256) : undefined;
  }

  /** Lookup by the unprefixed lowercase hex of a keccak256 hash. */
  tryGetByKeccak256Hex(hashHex: string): Uint8Array | undefined {
    // Only the lowercase form the store's keys were ever written in finds a value.
    if (!LOWER_HEX_HASH.test(hashHex)) return undefined;
    return this.tryGetByKeccak256(fromHex(hashHex));
  }

  get size(): number {
    return this.values.size;
  }

  /** All entries as (key, value) pairs, keys as fresh 32-byte arrays. */
  entries(): IterableIterator<[Uint8Array, Uint8Array]> {
    return this.values.entries();
  }
}
