/**
 * The proof program (docs/proof.md): one range proof from boot information and a preimage oracle, run by the
 * enclave offline and by the host natively while it collects the witness.
 */
export {
  AgreedOutputMismatchError,
  InvalidWitnessError,
  MissingWitnessError,
  RangeNotDerivedError,
  RefusedPreimageKeyError,
} from "./errors.js";
export {
  formatHint,
  type Hint,
  OfflineOracle,
  type ProgramOracle,
  readWithFetch,
  refusePrecompileKeys,
  refusePrecompileKeysIn,
} from "./oracle.js";
export {
  blobCommitmentKey,
  blobElementKey,
  blobPreimages,
  FIELD_ELEMENTS_PER_BLOB,
  readBlob,
  rootsOfUnity,
} from "./blob.js";
export {
  canonicalTransaction,
  decodeReceipt,
  MAX_HEADER_BYTES,
  MAX_TRIE_ITEMS,
  MAX_TRIE_NODE_BYTES,
  readHeader,
  readOrderedTrie,
} from "./reads.js";
export { OracleBlobProvider, OracleL1Provider, OracleL2Provider } from "./providers.js";
export {
  type AgreedHead,
  type ChainConfigLookup,
  l1ChainConfigFor,
  programExecutor,
  openAgreedOutput,
  OUTPUT_ROOT_PREIMAGE_BYTES,
  type ProgramBlock,
  type ProgramInput,
  type ProgramResult,
  type ProgramTimings,
  runProgram,
} from "./program.js";
