/** Command-line flags and environment variables of the challenger process (docs/proposer.md "Flags"). */
import { VERIFIER_VERSIONS, type VerifierVersion } from "../../contracts/index.js";
import {
  integerFlag,
  parseVerifierServiceCommandLine,
  type VerifierServiceConfig,
} from "../service-kit/index.js";
import { JOB_QUEUE_FLAGS, type JobQueueConfig, parseJobQueueFlags } from "../service-queue/index.js";
import { ChallengerConfigError } from "./errors.js";

export const CHALLENGER_USAGE = `Usage: challenger [options]

Watches AggregateVerifier's Proposed events, checks each proposal's intermediate roots against the node's
optimism_outputAtBlock and, for a wrong one, proves the first wrong interval through the prover host and calls
nullify(): the proposal is Nullified and every proposal built on it invalidated. Correct proposals are left alone.
With a proof job queue (--database-url or --job-queue-sqlite) each disputed interval is a job worker hosts prove,
in the challenger's own namespace; the proven ones are nullified in proposal order (docs/proposer.md).

Options (each also read from the environment variable in brackets):
  --l1-rpc-url <url>          L1 JSON-RPC URL (the verifier's chain)            [CHALLENGER_L1_RPC_URL] (required)
  --rollup-rpc-url <url>      the L2 node: optimism_syncStatus, optimism_outputAtBlock
                                                                                [CHALLENGER_ROLLUP_RPC_URL] (required)
  --prover-url <url>          the prover host (prover_prove)                    [CHALLENGER_PROVER_URL] (required)
  --verifier <address>        AggregateVerifier                                 [CHALLENGER_VERIFIER] (required)
  --journal-version <v>       spec | schedule-id: the journal the verifier checks and the prover host's
                              enclaves sign (default spec); the challenger refuses a verifier of the other
                              version                                           [CHALLENGER_JOURNAL_VERSION]
  --private-key-file <path>   file holding the challenger's 0x-prefixed private key [CHALLENGER_PRIVATE_KEY_FILE]
                              (or the key itself in CHALLENGER_PRIVATE_KEY; never on the command line)
  --poll-interval-ms <n>      how often the node and the contract are read (default 2000)
                                                                                [CHALLENGER_POLL_INTERVAL_MS]
  --l1-confirmations <n>      L1 blocks a Proposed event must be deep before it is checked (default 1)
                                                                                [CHALLENGER_L1_CONFIRMATIONS]
  --start-block <n>           first L1 block scanned for Proposed events (default 0) [CHALLENGER_START_BLOCK]
  --l1-log-range <n>          most L1 blocks one eth_getLogs call spans (default 2000; providers refuse
                              wider ranges)                                     [CHALLENGER_L1_LOG_RANGE]
  --prove-timeout-ms <n>      longest prover_prove call (default 900000)        [CHALLENGER_PROVE_TIMEOUT_MS]
  --max-backoff-ms <n>        longest wait after an error (default 30000)       [CHALLENGER_MAX_BACKOFF_MS]
  --database-url <url>        prove disputes on the PostgreSQL proof job queue (postgres://…)
                                                                                [CHALLENGER_DATABASE_URL]
  --job-queue-sqlite <path>   prove disputes on the SQLite proof job queue of one machine
                                                                                [CHALLENGER_JOB_QUEUE_SQLITE]
  --metrics-listen <host:port>  with a queue: serve GET /metrics (jobs, job age, open disputes)
                                                                                [CHALLENGER_METRICS_LISTEN]
  --log-level <level>         fatal|error|warn|info|debug|trace|silent (default info) [CHALLENGER_LOG_LEVEL]
  -h, --help                  print this help
`;

export interface ChallengerConfig extends VerifierServiceConfig {
  /** First L1 block scanned for Proposed events. */
  readonly startBlock: bigint;
  /** Most L1 blocks one eth_getLogs call spans. */
  readonly l1LogRange: bigint;
  /** The journal version the verifier must check (--journal-version), as the host's enclaves sign it. */
  readonly journalVersion: VerifierVersion;
  /** Set: disputes are proved through this proof job queue; unset: through the host's prover_prove. */
  readonly queue: JobQueueConfig | undefined;
}

export type ChallengerCommandLine =
  { kind: "help"; text: string } | { kind: "run"; config: ChallengerConfig };

/** Parses argv (without the node and script paths) with the environment's twins; the flag wins. */
export function parseChallengerCommandLine(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): ChallengerCommandLine {
  const fail = (message: string, details: { flag?: string; value?: string }, cause?: unknown) =>
    new ChallengerConfigError(message, details, cause === undefined ? undefined : { cause });
  const parsed = parseVerifierServiceCommandLine(argv, env, {
    name: "challenger",
    envPrefix: "CHALLENGER",
    usage: CHALLENGER_USAGE,
    extra: ["start-block", "l1-log-range", "journal-version", ...JOB_QUEUE_FLAGS],
    fail,
  });
  if (parsed.kind === "help") return parsed;
  const startBlock = BigInt(integerFlag(parsed.extra["start-block"] ?? "0", "start-block", 0, fail));
  const l1LogRange = BigInt(integerFlag(parsed.extra["l1-log-range"] ?? "2000", "l1-log-range", 1, fail));
  const version = parsed.extra["journal-version"] ?? "spec";
  const journalVersion = VERIFIER_VERSIONS.find((known) => known === version);
  if (journalVersion === undefined)
    throw fail(`--journal-version: "${version}" must be one of ${VERIFIER_VERSIONS.join(", ")}`, {
      flag: "journal-version",
      value: version,
    });
  const queue = parseJobQueueFlags(parsed.extra, fail);
  return { kind: "run", config: { ...parsed.config, startBlock, l1LogRange, journalVersion, queue } };
}
