/**
 * Blobs as preimages (docs/proof.md "Key types read"; kona's layout, notes "Witness"): the sha256 key of the
 * versioned hash holds the 48-byte KZG commitment (sha256(commitment) is the versioned hash but for its version
 * byte, so the store verifies it); field element i is the 32-byte value under the blob key
 * keccak256(commitment ‖ ω_i) with type byte 5, ω_i the i-th of the 4096th roots of unity of the BLS12-381
 * scalar field in bit-reversed order (the evaluation point of element i). Blob keys are not content-addressed:
 * the program rebuilds the whole blob and checks its KZG commitment before any of it is used.
 */
import {
  PreimageKeyType,
  type PreimageSource,
  bytesEqual,
  keccak256,
  sha256Key,
  toHex,
} from "../../chain/index.js";
import {
  BLOB_SIZE,
  KZG_COMMITMENT_SIZE,
  type Kzg,
  versionedHash as versionedHashOf,
} from "../../derive/index.js";
import { InvalidWitnessError } from "./errors.js";

export const FIELD_ELEMENTS_PER_BLOB = 4096;
/** The BLS12-381 scalar field modulus. */
const BLS_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
/** EIP-4844's primitive root of unity of the scalar field. */
const PRIMITIVE_ROOT = 7n;

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

function word(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

let roots: Uint8Array[] | undefined;

/** ω_i as 32-byte big-endian words, bit-reversed order (computed once). */
export function rootsOfUnity(): readonly Uint8Array[] {
  if (roots !== undefined) return roots;
  const omega = modPow(PRIMITIVE_ROOT, (BLS_MODULUS - 1n) / BigInt(FIELD_ELEMENTS_PER_BLOB), BLS_MODULUS);
  const natural: bigint[] = [];
  let x = 1n;
  for (let i = 0; i < FIELD_ELEMENTS_PER_BLOB; i++) {
    natural.push(x);
    x = (x * omega) % BLS_MODULUS;
  }
  const bits = Math.log2(FIELD_ELEMENTS_PER_BLOB);
  roots = natural.map((_, i) => {
    let r = 0;
    for (let b = 0; b < bits; b++) if (i & (1 << b)) r |= 1 << (bits - 1 - b);
    return word(natural[r]!);
  });
  return roots;
}

/** The key of the commitment behind `versionedHash`: the sha256 key type over the versioned hash. */
export function blobCommitmentKey(versionedHash: Uint8Array): Uint8Array {
  return sha256Key(versionedHash);
}

/** The key of field element `index` of the blob committed to by `commitment`. */
export function blobElementKey(commitment: Uint8Array, index: number): Uint8Array {
  const preimage = new Uint8Array(KZG_COMMITMENT_SIZE + 32);
  preimage.set(commitment);
  preimage.set(rootsOfUnity()[index]!, KZG_COMMITMENT_SIZE);
  const key = keccak256(preimage);
  key[0] = PreimageKeyType.Blob;
  return key;
}

/** How many commitments' element keys are kept (the newest): a derivation window's blobs, with room. */
const ELEMENT_KEYS_KEPT = 64;
/** The 4096 element keys of recent commitments (hex), oldest first: 4096 keccak256 calls saved per blob read again. */
const elementKeys = new Map<string, readonly Uint8Array[]>();

/**
 * The keys of the 4096 field elements of the blob committed to by `commitment` (blobElementKey for each index),
 * remembered for the newest ELEMENT_KEYS_KEPT commitments: consecutive proof ranges read mostly the same blobs.
 * The keys are a function of the commitment alone; callers must not modify them.
 */
export function blobElementKeys(commitment: Uint8Array): readonly Uint8Array[] {
  const id = toHex(commitment);
  let keys = elementKeys.get(id);
  if (keys === undefined) {
    keys = Array.from({ length: FIELD_ELEMENTS_PER_BLOB }, (_, i) => blobElementKey(commitment, i));
    if (elementKeys.size >= ELEMENT_KEYS_KEPT) elementKeys.delete(elementKeys.keys().next().value!);
  } else elementKeys.delete(id);
  elementKeys.set(id, keys);
  return keys;
}

/** Every (key, value) a blob is stored as: the commitment, then the 4096 elements. */
export function blobPreimages(
  versionedHash: Uint8Array,
  commitment: Uint8Array,
  blob: Uint8Array,
): [Uint8Array, Uint8Array][] {
  const out: [Uint8Array, Uint8Array][] = [[blobCommitmentKey(versionedHash), commitment]];
  const keys = blobElementKeys(commitment);
  for (let i = 0; i < FIELD_ELEMENTS_PER_BLOB; i++)
    out.push([keys[i]!.slice(), blob.slice(i * 32, i * 32 + 32)]);
  return out;
}

/**
 * The 4096 field elements stored under `commitment`'s element keys, as one blob (unchecked: see readBlob).
 * MissingPreimageError for an element the source lacks, InvalidWitnessError for one not of 32 bytes.
 */
export function assembleBlob(source: PreimageSource, commitment: Uint8Array, what: string): Uint8Array {
  const blob = new Uint8Array(BLOB_SIZE);
  const keys = blobElementKeys(commitment);
  for (let i = 0; i < FIELD_ELEMENTS_PER_BLOB; i++) {
    const element = source.get(keys[i]!);
    if (element.length !== 32)
      throw new InvalidWitnessError(`${what}: field element ${i} of ${element.length} bytes`, {
        what,
        index: i,
      });
    blob.set(element, i * 32);
  }
  return blob;
}

/**
 * Rebuilds the blob behind `versionedHash` from its preimages and checks it: the commitment must be the one the
 * versioned hash names and the 4096 elements must have exactly that KZG commitment (InvalidWitnessError).
 */
export function readBlob(source: PreimageSource, versionedHash: Uint8Array, kzg: Kzg): Uint8Array {
  const what = `blob ${toHex(versionedHash)}`;
  const commitment = source.get(blobCommitmentKey(versionedHash));
  if (commitment.length !== KZG_COMMITMENT_SIZE)
    throw new InvalidWitnessError(`${what}: commitment of ${commitment.length} bytes`, { what });
  if (!bytesEqual(versionedHashOf(commitment), versionedHash))
    throw new InvalidWitnessError(`${what}: the commitment is not the versioned hash's`, { what });
  const blob = assembleBlob(source, commitment, what);
  try {
    kzg.verifyBlob(blob, versionedHash);
  } catch (cause) {
    throw new InvalidWitnessError(
      `${what}: the field elements do not have the blob's KZG commitment`,
      { what },
      { cause },
    );
  }
  return blob;
}

/** A blob a witness may carry: a versioned hash and the commitment stored under its sha256 key. */
export interface WitnessedBlob {
  readonly versionedHash: Uint8Array;
  readonly commitment: Uint8Array;
}

/**
 * The blobs `source` may carry, in the order its keys were sent, at most `limit`: each sha256-keyed value of 48
 * bytes whose versioned hash is the one its key names. Whether the field elements are there and have that
 * commitment is not checked here (readBlob does, or a block worker: BlockPool.checkBlobs).
 */
export function witnessedBlobs(
  source: PreimageSource & { keys(): Iterable<Uint8Array> },
  limit: number,
): WitnessedBlob[] {
  const found: WitnessedBlob[] = [];
  const seen = new Set<string>();
  for (const key of source.keys()) {
    if (found.length >= limit) break;
    if (key[0] !== PreimageKeyType.Sha256) continue;
    const commitment = source.tryGet(key);
    if (commitment?.length !== KZG_COMMITMENT_SIZE) continue;
    const versionedHash = versionedHashOf(commitment);
    if (!bytesEqual(versionedHash.subarray(1), key.subarray(1))) continue;
    const id = toHex(versionedHash);
    if (seen.has(id)) continue;
    seen.add(id);
    found.push({ versionedHash, commitment: commitment.slice() });
  }
  return found;
}
