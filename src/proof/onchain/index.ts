/**
 * The onchain encodings (library, rank 3): what a proof turns into on the L1, and the chain commitments the enclave
 * signs over (docs/protocol.md "Proposal", "Signed journal"; docs/proposer.md).
 *
 * Public surface:
 * - journals: `perBlockJournals`, `aggregateJournal`, `journalDigest`, `recoverJournalSigner`, `checkClaim`,
 *   `buildProofResult` (signs the journals of an executed range), `signProposal`, `ExecutedRange`,
 *   `ProposalContext`, `ClaimContext`, `ProposalBoot`, `JournalSigner`;
 * - aggregation of a range proved in several frames: `aggregateProposals` (the enclave's Aggregate request),
 *   `AggregationRequest`, `AggregationRefusedError`, `AggregationCheck`;
 * - journal versions: `JournalVersion` ("spec", or "schedule-id" with the upgrade schedule id appended),
 *   `packSignedJournal`; the schedule id: `scheduleLink`, `scheduleIdOf`, `activatedScheduleId`,
 *   `claimScheduleId`, `ladderTimestamps`, `l2BlockTimestamp`, `UPGRADE_LADDER`;
 * - the fork horizon: `IMAGE_FORK_HORIZON`, `refuseUnknownForks` (a config or registry entry scheduling a fork
 *   the image does not implement), `refusePastHorizon` (a request past the horizon time), `ForkHorizonError`;
 * - sampled blocks: `sampledBlockNumbers`, `sampleIntermediateRoots`;
 * - signatures: `recoverSignerAddress`, `signerAddressOf`, `PUBLIC_KEY_LENGTH`, `SIGNATURE_LENGTH`;
 * - config hashes (TEEVerifier's commitment to a chain): `computeConfigHash`, `encodeChainConfig`,
 *   `configHashFor`, `supportedChainIds`, `BUILT_IN_CHAINS`, `devChainGenesisConfig`;
 * - AggregateVerifier arguments: `proposeArguments`, `nullifyArguments`, `nullifyRequest`, `nullifyInterval`,
 *   `intermediateBlocks`, `firstWrongIntermediateRoot`, `contractSignature`, the proof-type and length constants;
 * - errors: `OnchainError` (root), `OutputRootMismatchError`, `SamplingError`, `UnsupportedChainError`,
 *   `ConfigEncodingError`, `ProposalEncodingError`, `ForkHorizonError`, `AggregationRefusedError`.
 *
 * Concepts owned: the journal, the proposal signature, the config hash and its table (config-table.ts, written by
 * build-config-table.ts), the AggregateVerifier's calldata.
 */
export { OnchainError, type OnchainErrorKind, type OnchainErrorOptions } from "./errors.js";
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
export { devChainGenesisConfig } from "./dev-chain.js";
export { sampledBlockNumbers, sampleIntermediateRoots, SamplingError } from "./sampling.js";
export {
  aggregateJournal,
  buildProofResult,
  checkClaim,
  type ClaimContext,
  type ExecutedRange,
  journalDigest,
  type JournalSigner,
  JOURNAL_VERSIONS,
  type JournalVersion,
  packSignedJournal,
  OutputRootMismatchError,
  perBlockJournals,
  type ProposalBoot,
  type ProposalContext,
  recoverJournalSigner,
  signProposal,
} from "./journals.js";
export {
  type AggregationCheck,
  AggregationRefusedError,
  type AggregationRequest,
  aggregateProposals,
} from "./proposal-aggregation.js";
export {
  PUBLIC_KEY_LENGTH,
  recoverSignerAddress,
  SIGNATURE_LENGTH,
  signerAddressOf,
} from "./signer-address.js";
export * from "./aggregate-verifier.js";
export {
  type ForkHorizon,
  ForkHorizonError,
  IMAGE_FORK_HORIZON,
  KNOWN_FORK_TIME_FIELDS,
  refuseUnknownForks,
  refusePastHorizon,
  type RequestTimes,
} from "./fork-horizon.js";
export {
  activatedScheduleId,
  claimScheduleId,
  l2BlockTimestamp,
  ladderTimestamps,
  type LadderUpgrade,
  scheduleIdOf,
  scheduleLink,
  UPGRADE_LADDER,
} from "./upgrade-schedule.js";
