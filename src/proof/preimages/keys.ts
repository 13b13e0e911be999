/**
 * Preimage keys of a Prove request and their verification on entry: every keccak256- and sha256-keyed
 * value must hash to its key (src/chain's PreimageStore checks this on insert). One bad preimage refuses
 * the request.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { PreimageStore } from "../../chain/index.js";
import {
  type Preimage,
  type PreimageKey,
  PREIMAGE_KEY_TYPE_DISCRIMINANTS,
  preimageKeyTypeFromDiscriminant,
} from "../../../generated/protocol/index.js";

/** The 32-byte key form: the key type's discriminant, then the 31 data bytes. */
export function preimageKeyBytes(key: PreimageKey): Uint8Array {
  const out = new Uint8Array(32);
  out[0] = PREIMAGE_KEY_TYPE_DISCRIMINANTS[key.key_type];
  out.set(key.data, 1);
  return out;
}

/** The protocol key of a 32-byte key, or undefined when its type byte is unknown. */
export function preimageKeyFromBytes(bytes: Uint8Array): PreimageKey | undefined {
  if (bytes.length !== 32) throw new RangeError(`a preimage key is 32 bytes, got ${bytes.length}`);
  const keyType = preimageKeyTypeFromDiscriminant(bytes[0] as number);
  return keyType === undefined ? undefined : { data: bytes.slice(1), key_type: keyType };
}

/** The keccak256 key committing to `hashOf`: the last 31 bytes of its hash. */
export function keccak256PreimageKey(hashOf: Uint8Array): PreimageKey {
  return { data: keccak_256(hashOf).slice(1), key_type: "Keccak256" };
}

/** The sha256 key committing to `hashOf`: the last 31 bytes of its hash. */
export function sha256PreimageKey(hashOf: Uint8Array): PreimageKey {
  return { data: sha256(hashOf).slice(1), key_type: "Sha256" };
}

/** A store holding every preimage, each hash-keyed one verified (throws PreimageMismatchError). */
export function loadVerifiedPreimages(preimages: readonly Preimage[]): PreimageStore {
  const store = new PreimageStore();
  for (const [key, value] of preimages) store.put(preimageKeyBytes(key), value);
  return store;
}
