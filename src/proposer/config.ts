/** Command-line flags and environment variables of the proposer process (docs/proposer.md "Flags"). */
import { VERIFIER_VERSIONS, type VerifierVersion } from "../../contracts/index.js";
import {
  integerFlag,
  parseVerifierServiceCommandLine,
  type VerifierServiceConfig,
} from "../service-kit/index.js";
import { JOB_QUEUE_FLAGS, type JobQueueConfig, parseJobQueueFlags } from "../service-queue/index.js";
import { ProposerConfigError } from "./errors.js";

export const PROPOSER_USAGE = `Usage: proposer [options]

Proves the next L2 output range through the prover host once the node's safe head reaches it and proposes it to
AggregateVerifier: one proposal every BLOCK_INTERVAL blocks, each built on the previous one, catching up when behind.
With a proof job queue (--database-url or --job-queue-sqlite) it schedules instead: every range is enqueued as soon
as its end is safe (up to --prove-ahead ranges), worker hosts prove them, and the proposals are submitted strictly
in order as their proofs complete (docs/proof-jobs.md).

Options (each also read from the environment variable in brackets):
  --l1-rpc-url <url>          L1 JSON-RPC URL (the verifier's chain)            [PROPOSER_L1_RPC_URL] (required)
  --rollup-rpc-url <url>      the L2 node: optimism_syncStatus, optimism_outputAtBlock
                                                                                [PROPOSER_ROLLUP_RPC_URL] (required)
  --prover-url <url>          the prover host (prover_prove; unused with a queue) [PROPOSER_PROVER_URL] (required)
  --verifier <address>        AggregateVerifier                                 [PROPOSER_VERIFIER] (required)
  --journal-version <v>       spec | schedule-id: the journal the verifier checks and the prover host's
                              enclaves sign (default spec); the proposer refuses a verifier of the other
                              version                                           [PROPOSER_JOURNAL_VERSION]
  --private-key-file <path>   file holding the proposer's 0x-prefixed private key [PROPOSER_PRIVATE_KEY_FILE]
                              (or the key itself in PROPOSER_PRIVATE_KEY; never on the command line)
  --poll-interval-ms <n>      how often the node and the contract are read (default 2000)
                                                                                [PROPOSER_POLL_INTERVAL_MS]
  --l1-confirmations <n>      L1 blocks the proof's L1 head must be deep before the proposal is sent (default 1)
                                                                                [PROPOSER_L1_CONFIRMATIONS]
  --prove-timeout-ms <n>      longest prover_prove call (default 900000)        [PROPOSER_PROVE_TIMEOUT_MS]
  --max-backoff-ms <n>        longest wait after an error (default 30000)       [PROPOSER_MAX_BACKOFF_MS]
  --database-url <url>        schedule on the PostgreSQL proof job queue (postgres://…) [PROPOSER_DATABASE_URL]
  --job-queue-sqlite <path>   schedule on the SQLite proof job queue of one machine [PROPOSER_JOB_QUEUE_SQLITE]
  --prove-ahead <n>           with a queue: ranges enqueued beyond the latest proposal (default 4)
                                                                                [PROPOSER_PROVE_AHEAD]
  --metrics-listen <host:port>  with a queue: serve GET /metrics (queue depth, job age, lag) [PROPOSER_METRICS_LISTEN]
  --log-level <level>         fatal|error|warn|info|debug|trace|silent (default info) [PROPOSER_LOG_LEVEL]
  -h, --help                  print this help
`;

/** Where the proposer schedules its ranges (scheduler mode). */
export interface ProposerQueueConfig extends JobQueueConfig {
  /** Ranges enqueued beyond the latest proposal. */
  readonly proveAhead: number;
}

export interface ProposerConfig extends VerifierServiceConfig {
  /**
   * The journal version the verifier must check (--journal-version): "spec" for AggregateVerifier, "schedule-id"
   * for ScheduleIdAggregateVerifier. The prover host's enclaves must sign the same version.
   */
  readonly journalVersion: VerifierVersion;
  /** Set: scheduler mode on this queue; unset: the direct mode (prover_prove, one range at a time). */
  readonly queue: ProposerQueueConfig | undefined;
}

export type ProposerCommandLine = { kind: "help"; text: string } | { kind: "run"; config: ProposerConfig };

/** Parses argv (without the node and script paths) with the environment's twins; the flag wins. */
export function parseProposerCommandLine(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): ProposerCommandLine {
  const fail = (message: string, details: { flag?: string; value?: string }, cause?: unknown) =>
    new ProposerConfigError(message, details, cause === undefined ? undefined : { cause });
  const parsed = parseVerifierServiceCommandLine(argv, env, {
    name: "proposer",
    envPrefix: "PROPOSER",
    usage: PROPOSER_USAGE,
    extra: [...JOB_QUEUE_FLAGS, "prove-ahead", "journal-version"],
    fail,
  });
  if (parsed.kind === "help") return parsed;
  const versionText = parsed.extra["journal-version"] ?? "spec";
  const journalVersion = VERIFIER_VERSIONS.find((version) => version === versionText);
  if (journalVersion === undefined)
    throw fail(`--journal-version: "${versionText}" must be one of ${VERIFIER_VERSIONS.join(", ")}`, {
      flag: "journal-version",
      value: versionText,
    });
  const queue = parseJobQueueFlags(parsed.extra, fail, ["prove-ahead"]);
  if (queue === undefined)
    return { kind: "run", config: { ...parsed.config, journalVersion, queue: undefined } };
  const proveAhead = integerFlag(parsed.extra["prove-ahead"] ?? "4", "prove-ahead", 1, fail);
  return { kind: "run", config: { ...parsed.config, journalVersion, queue: { ...queue, proveAhead } } };
}
