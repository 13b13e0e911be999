/**
 * Preimage keys of a Prove request and their verification on entry: every keccak256- and sha256-keyed
 * value must hash to its key (src/chain's PreimageStore checks this on insert). One bad preimage refuses
 * the request. A key is the protocol's `PreimageKey`: the 32-byte form (type byte, then 31 data bytes) that the
 * store, the program's oracle, the hints and the frames all use; the generated codec reorders it on the wire.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { keccak256Key, PreimageStore, sha256Key } from "../../chain/index.js";
import {
  type Preimage,
  type PreimageKey,
  PREIMAGE_KEY_LENGTH,
  PREIMAGE_KEY_TYPE_DISCRIMINANTS,
  type PreimageKeyType,
  preimageKeyTypeFromDiscriminant,
} from "../../../generated/protocol/index.js";

/** True when `bytes` is a preimage key: 32 bytes whose first is a known key type (for keys read from text). */
export function isPreimageKey(bytes: Uint8Array): bytes is PreimageKey {
  return bytes.length === PREIMAGE_KEY_LENGTH && preimageKeyTypeFromDiscriminant(bytes[0]!) !== undefined;
}

/** The key of type `type` over 31 data bytes (keys built by hand: tests, refused key types). */
export function preimageKeyOf(type: PreimageKeyType, data: Uint8Array): PreimageKey {
  if (data.length !== PREIMAGE_KEY_LENGTH - 1)
    throw new RangeError(`a preimage key carries ${PREIMAGE_KEY_LENGTH - 1} data bytes, got ${data.length}`);
  const key = new Uint8Array(PREIMAGE_KEY_LENGTH);
  key[0] = PREIMAGE_KEY_TYPE_DISCRIMINANTS[type];
  key.set(data, 1);
  return key;
}

/** The keccak256 key committing to `hashOf`: its hash with the first byte replaced by the type byte. */
export function keccak256PreimageKey(hashOf: Uint8Array): PreimageKey {
  return keccak256Key(keccak_256(hashOf));
}

/** The sha256 key committing to `hashOf`: its hash with the first byte replaced by the type byte. */
export function sha256PreimageKey(hashOf: Uint8Array): PreimageKey {
  return sha256Key(sha256(hashOf));
}

/** A store holding every preimage, each hash-keyed one verified (throws PreimageMismatchError). */
export function loadVerifiedPreimages(preimages: readonly Preimage[]): PreimageStore {
  const store = new PreimageStore();
  for (const [key, value] of preimages) store.put(key, value);
  return store;
}
