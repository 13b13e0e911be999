/**
 * The proposer: proves L2 output ranges through the prover host and proposes them to AggregateVerifier
 * (docs/proposer.md). The process is src/proposer/main.ts.
 */
export {
  type ProposerConfig,
  type ProposerQueueConfig,
  type ProposerCommandLine,
  parseProposerCommandLine,
  PROPOSER_USAGE,
} from "./config.js";
export {
  JournalVersionMismatchError,
  L1HeadReorgedError,
  ParentMismatchError,
  ProposerConfigError,
  ProposerError,
  type ProposerErrorKind,
  ProposeRevertedError,
} from "./errors.js";
export { type LandedProposal, type RunningProposer, startProposer } from "./proposer.js";
