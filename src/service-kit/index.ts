/**
 * The service kit (library, rank 1): what every long-running service process needs around its own logic,
 * written once.
 *
 * Public surface:
 * - flags: `FlagSpec` tables read by both `parseFlags` (each flag with its environment twin; the flag wins) and
 *   `renderFlagUsage` (the usage text's options); `envTwin`; value readers `integerFlag`, `urlFlag`,
 *   `addressFlag`, `logLevelFlag`; `FlagFailure`, through which a service raises its own configuration error;
 * - process start: `startServiceProcess` (--help, a usage error as one line and exit code 2, a named logger);
 * - the loops: `startStepLoop` (a step run until stopped, errors logged and retried after a doubling back-off);
 *   `briefError`, the one-line description of an error those logs carry; `PollLoop` (a round every poll
 *   interval until stopped, its wait cut short on demand: the node's L1 follower and safe-head tracker);
 * - the AggregateVerifier services' shared flags and clients: `parseVerifierServiceCommandLine`,
 *   `verifierServiceClients`, `contractReader` (the proof job queue's flags and service handle are
 *   src/service-queue).
 *
 * Concepts owned: flags and their environment twins, usage text, the back-off loop, the poll loop. Used by the
 * host, the enclave, the proposer, the challenger, the registrar and (the poll loop) the node; the node's,
 * batcher's, merchant's and devnet's flag parsers have not moved onto it yet.
 */
export * from "./flags.js";
export { briefError } from "./brief-error.js";
export { PollLoop } from "./poll-loop.js";
export { startStepLoop, type StepLoop, type StepLoopOptions, type StepOutcome } from "./step-loop.js";
export { type ServiceProcess, startServiceProcess } from "./process.js";
export {
  parseVerifierServiceCommandLine,
  type VerifierServiceCommandLine,
  type VerifierServiceConfig,
  type VerifierServiceFlags,
  contractReader,
  verifierServiceClients,
} from "./verifier-service.js";
