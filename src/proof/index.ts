/**
 * The proof library: what the enclave's proof program, the prover host, the registrar and the conformance
 * suite share. Boot information (the one reader and writer of the boot keys), preimage keys and their
 * verification, the config-hash table and its build inputs, journals and proposals, signer addresses,
 * and the local-mode enclave addresses.
 */
export { ProofError, type ProofErrorKind, type ProofErrorOptions } from "./errors.js";
export {
  type BootInfo,
  BootKey,
  bootInfoPreimages,
  bootPreimageKey,
  InvalidBootInfoError,
  isBootPreimageKey,
  localBootKey,
  MissingBootKeyError,
  type PreimageLookup,
  readBootInfo,
  u64be,
} from "./boot-info.js";
export {
  keccak256PreimageKey,
  loadVerifiedPreimages,
  preimageKeyBytes,
  preimageKeyFromBytes,
  sha256PreimageKey,
} from "./preimages.js";
export {
  type ChainGenesisConfig,
  CONFIG_ENCODING_LENGTH,
  CONFIG_HASH_VERSION,
  ConfigEncodingError,
  computeConfigHash,
  encodeChainConfig,
} from "./config-hash.js";
export { configHashFor, supportedChainIds, UnsupportedChainError } from "./chain-configs.js";
export { BUILT_IN_CHAINS, type BuiltInChain } from "./built-in-chains.js";
export { devChainGenesisConfig, ecotoneScalar } from "./dev-chain.js";
export { sampledBlockNumbers, sampleIntermediateRoots, SamplingError } from "./sampling.js";
export {
  aggregateJournal,
  buildProofResult,
  checkClaim,
  type ExecutedRange,
  journalDigest,
  type JournalSigner,
  OutputRootMismatchError,
  perBlockJournals,
  type ProposalContext,
  recoverJournalSigner,
} from "./proposals.js";
export {
  PUBLIC_KEY_LENGTH,
  recoverSignerAddress,
  SIGNATURE_LENGTH,
  signerAddressOf,
} from "./signer-address.js";
export {
  formatListenAddress,
  type ListenAddress,
  ListenAddressError,
  parseListenAddress,
} from "./listen-address.js";
export * from "./program/index.js";
export * from "./aggregate-verifier.js";
export * from "./aggregate-verifier-service.js";
