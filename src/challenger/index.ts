/**
 * The challenger (service; docs/proposer.md "The challenger"): checks AggregateVerifier proposals against the node
 * and nullifies wrong ones through the prover host. The process is src/challenger/main.ts.
 *
 * Public surface: its command line (`parseChallengerCommandLine`, `CHALLENGER_USAGE`), `startChallenger`, and the
 * errors (`ChallengerError` root).
 *
 * Concepts owned: the decision that a proposal is wrong and its nullification.
 */
export {
  CHALLENGER_USAGE,
  type ChallengerCommandLine,
  type ChallengerConfig,
  parseChallengerCommandLine,
} from "./config.js";
export {
  ChallengerConfigError,
  ChallengerJournalVersionError,
  ChallengerError,
  type ChallengerErrorKind,
  NullifyRevertedError,
} from "./errors.js";
export { type RunningChallenger, startChallenger } from "./challenger.js";
