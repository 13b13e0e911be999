/**
 * Preimages of a Prove request, content-verified on entry: every keccak256- and sha256-keyed value must
 * hash to its key (src/chain's PreimageStore checks this on insert). One bad preimage refuses the request.
 */
import { PreimageStore } from "../src/chain/preimage-store.js";
import {
  type Preimage,
  type PreimageKey,
  PREIMAGE_KEY_TYPE_DISCRIMINANTS,
} from "../generated/protocol/index.js";

/** The 32-byte key form: the key type's discriminant, then the 31 data bytes. */
export function preimageKeyBytes(key: PreimageKey): Uint8Array {
  const out = new Uint8Array(32);
  out[0] = PREIMAGE_KEY_TYPE_DISCRIMINANTS[key.keyType];
  out.set(key.data, 1);
  return out;
}

/** A store holding every preimage, each hash-keyed one verified (throws PreimageMismatchError). */
export function loadVerifiedPreimages(preimages: readonly Preimage[]): PreimageStore {
  const store = new PreimageStore();
  for (const [key, value] of preimages) store.put(preimageKeyBytes(key), value);
  return store;
}
