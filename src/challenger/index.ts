/**
 * The challenger: checks AggregateVerifier proposals against the node and nullifies wrong ones through the prover
 * host (docs/proposer.md "The challenger"). The process is src/challenger/main.ts.
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
