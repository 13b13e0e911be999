/**
 * The proof program (library, rank 4; docs/proof.md): one range proof from boot information and a preimage
 * oracle, run by the enclave offline and by the host natively while it collects the witness.
 *
 * Public surface:
 * - `runProgram` composing the three phases, each in its own file: `prologue` (open the agreed output with
 *   `openAgreedOutput`, check the L1 head), `driveRange` (derive and execute every block to the claim, the
 *   deposit-only fallback, parallel or sequential), `epilogue` (the claim check, the result); their
 *   `ProgramInput` / `Prologue` / `DriverOutcome` / `ProgramResult`; `programExecutor`, `l1ChainConfigFor`,
 *   `mergeWitness`;
 * - oracles: `ProgramOracle`, `OfflineOracle` (over verified preimages), `readWithFetch`, `formatHint`, the
 *   precompile-key refusal;
 * - the oracle-backed derivation providers and reads (headers, tries, receipts, blobs) with their caps;
 * - parallel execution of a range: `BlockPool` (worker threads, bounded heaps, the preimage table shared; the
 *   preimages checked on them, `verifyAll`), `executeRangeInParallel` (derivation ahead, the blocks on the workers,
 *   the chain of hashes checked) and the `ExecutionReport` of each run; `serveBlockJobs` and `BLOCK_WORKER_ENTRY`
 *   (a worker thread's part, for a one-file bundle that starts its workers from itself);
 * - errors: `ProgramError` (root), `MissingWitnessError`, `InvalidWitnessError`, `RefusedPreimageKeyError`,
 *   `AgreedOutputMismatchError`, `RangeNotDerivedError`, `PreimageVerificationError`.
 *
 * Concepts owned: the program's phases, the oracle and the hint format, reading chain data out of preimages. Output
 * roots are opened and built by src/chain (openOutputRootV0, outputRootPreimageV0, headerMessagePasserRoot).
 */
export {
  ProgramError,
  type ProgramErrorKind,
  AgreedOutputMismatchError,
  InvalidWitnessError,
  MissingWitnessError,
  PreimageVerificationError,
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
  blobElementKeys,
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
export { type ChainConfigLookup, programExecutor, runProgram } from "./program.js";
export type {
  AgreedHead,
  ExecutionReport,
  ProgramBlock,
  ProgramInput,
  ProgramResult,
  ProgramTimings,
} from "./types.js";
export { openAgreedOutput, prologue, type Prologue } from "./prologue.js";
export { driveRange, type DriverOutcome, l1ChainConfigFor, mergeWitness } from "./driver.js";
export { epilogue } from "./epilogue.js";
export { serveBlockJobs } from "./parallel/block-worker.js";
export { type BlobsChecked, checkBlobsOnPool } from "./parallel/blobs.js";
export {
  BLOCK_WORKER_ENTRY,
  BlockPool,
  type BlockPoolOptions,
  DEFAULT_BLOCK_WORKERS,
  DEFAULT_WORKER_HEAP_MB,
} from "./parallel/pool.js";
export {
  executeRangeInParallel,
  type HeaderChain,
  MAX_PARALLEL_BLOCKS,
  type ParallelRangeOutcome,
  poolRunner,
  type RangeBlock,
  type RangeRunner,
  witnessHeaderChain,
} from "./parallel/range.js";
export type { BlockOutcome } from "./parallel/protocol.js";
