/**
 * The service kit (library): what every long-running service process of the prover side needs around its own
 * logic, written once.
 *
 * Public surface:
 * - flags: `FlagSpec` tables read by both `parseFlags` (each flag with its environment twin; the flag wins) and
 *   `renderFlagUsage` (the usage text's options); `envTwin`; value readers `integerFlag`, `urlFlag`,
 *   `addressFlag`, `logLevelFlag`; `FlagFailure`, through which a service raises its own configuration error;
 * - process start: `startServiceProcess` (--help, a usage error as one line and exit code 2, a named logger);
 * - the loop: `startStepLoop` (a step run until stopped, errors logged and retried after a doubling back-off);
 *   `briefError`, the one-line description of an error those logs carry;
 * - the AggregateVerifier services' shared flags and clients: `parseVerifierServiceCommandLine`,
 *   `verifierServiceClients`; on the proof job queue, its flags (`JOB_QUEUE_FLAGS`, `parseJobQueueFlags`) and the
 *   queue opened on first use with a GET /metrics listener (`serviceJobQueue`).
 *
 * Concepts owned: flags and their environment twins, usage text, the back-off loop. Used by the host, the
 * enclave, the proposer, the challenger and the registrar; the node's, batcher's, merchant's and devnet's parsers
 * have not moved onto it yet.
 */
export {
  addressFlag,
  envTwin,
  type FlagFailure,
  type FlagSpec,
  integerFlag,
  logLevelFlag,
  type ParsedFlags,
  type ParseFlagsOptions,
  parseFlags,
  renderFlagUsage,
  urlFlag,
} from "./flags.js";
export { briefError } from "./brief-error.js";
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
