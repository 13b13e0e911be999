/**
 * The proof program (library, docs/proof.md): one range proof from boot information and a preimage oracle, run
 * by the enclave offline and by the host natively while it collects the witness.
 *
 * Public surface:
 * - `runProgram` (prologue: open the agreed output, check the L1 head; derivation & execution: derive and execute
 *   every block to the claim; epilogue: the claim check) and its `ProgramInput` / `ProgramResult`;
 *   `openAgreedOutput`, `programExecutor`, `l1ChainConfigFor`;
 * - oracles: `ProgramOracle`, `OfflineOracle` (over verified preimages), `readWithFetch`, `formatHint`, the
 *   precompile-key refusal;
 * - the oracle-backed derivation providers and reads (headers, tries, receipts, blobs) with their caps;
 * - parallel execution of a range: `BlockPool` (worker threads, bounded heaps, the preimage table shared),
 *   `executeRangeInParallel` (derivation ahead, the blocks on the workers, the chain of hashes checked) and the
 *   `ExecutionReport` of each run;
 * - errors: `ProgramError` (root), `MissingWitnessError`, `InvalidWitnessError`, `RefusedPreimageKeyError`,
 *   `AgreedOutputMismatchError`, `RangeNotDerivedError`.
 *
 * Concepts owned: the program's phases, the oracle and the hint format, reading chain data out of preimages.
 */
export {
  ProgramError,
  type ProgramErrorKind,
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
  refuseUnacceptedKeys,
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
  type ExecutionReport,
  l1ChainConfigFor,
  mergeWitness,
  programExecutor,
  openAgreedOutput,
  type ProgramBlock,
  type ProgramInput,
  type ProgramResult,
  type ProgramTimings,
  runProgram,
} from "./program.js";
export {
  BlockPool,
  type BlockPoolOptions,
  DEFAULT_BLOCK_WORKERS,
  DEFAULT_WORKER_HEAP_MB,
} from "./parallel/pool.js";
export {
  executeRangeInParallel,
  MAX_PARALLEL_BLOCKS,
  type ParallelRangeOutcome,
  witnessHeaderChain,
} from "./parallel/range.js";
