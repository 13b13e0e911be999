/**
 * The proposer (service; docs/proposer.md): proves L2 output ranges through the prover host and proposes them to
 * AggregateVerifier. The process is src/proposer/main.ts.
 *
 * Public surface: its command line (`parseProposerCommandLine`, `PROPOSER_USAGE`), `startProposer`, and the errors
 * (`ProposerError` root).
 *
 * Concepts owned: which range to propose next and the proposal transaction.
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
