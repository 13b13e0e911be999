/**
 * Preimages (library, rank 2): the keys of the proof request's witness, their verification, and the boot information
 * carried as local preimages (docs/proof.md, docs/decisions.md "Boot information").
 *
 * Public surface:
 * - keys: the protocol's `PreimageKey` is the 32-byte key (type byte, then 31 data bytes) end to end;
 *   `isPreimageKey` (32 bytes with a known type byte), `preimageKeyOf`, `keccak256PreimageKey`, `sha256PreimageKey`;
 * - verification: `loadVerifiedPreimages`, a store holding every preimage of a request with each hash-keyed value
 *   checked against its key; `PreimageTable`, the enclave's compact form of a Prove request's preimages (packed
 *   keys, values as views into the payload, the count admitted before allocation), `isProvePayload`,
 *   `MAX_PROVE_PREIMAGES`, `PREIMAGE_ENTRY_OVERHEAD_BYTES`; `refusalReasonOf`, the keys a request may not carry;
 * - boot information: `BootInfo`, `BootKey`, `readBootInfo` (the one reader), `bootInfoPreimages` (the one
 *   writer), `localBootKey`, `bootPreimageKey`, `isBootPreimageKey`, `u64be`, `PreimageLookup`,
 *   `MAX_BOOT_BLOCK_NUMBER` (the largest block number a boot value or a proof request may name);
 * - errors: `PreimageError` (root), `MissingBootKeyError`, `InvalidBootInfoError`, `BootValueOutOfRangeError`.
 *
 * Concepts owned: the preimage key, the verified preimage store of a request, the boot keys.
 */
export { PreimageError, type PreimageErrorKind } from "./errors.js";
export {
  type BootInfo,
  BootKey,
  bootInfoPreimages,
  bootPreimageKey,
  BootValueOutOfRangeError,
  InvalidBootInfoError,
  isBootPreimageKey,
  localBootKey,
  MAX_BOOT_BLOCK_NUMBER,
  MissingBootKeyError,
  type PreimageLookup,
  readBootInfo,
  refusalReasonOf,
  u64be,
} from "./boot-info.js";
export {
  isPreimageKey,
  keccak256PreimageKey,
  loadVerifiedPreimages,
  preimageKeyOf,
  sha256PreimageKey,
} from "./keys.js";
export {
  type DecodeProveOptions,
  isProvePayload,
  MAX_PROVE_PREIMAGES,
  PREIMAGE_ENTRY_OVERHEAD_BYTES,
  PreimageTable,
  type SharedPreimageTable,
} from "./table.js";
