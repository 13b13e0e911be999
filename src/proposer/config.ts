/** Command-line flags and environment variables of the proposer process (docs/proposer.md "Flags"). */
import { parseVerifierServiceCommandLine, type VerifierServiceConfig } from "../service-kit/index.js";
import { ProposerConfigError } from "./errors.js";

export const PROPOSER_USAGE = `Usage: proposer [options]

Proves the next L2 output range through the prover host once the node's safe head reaches it and proposes it to
AggregateVerifier: one proposal every BLOCK_INTERVAL blocks, each built on the previous one, catching up when behind.

Options (each also read from the environment variable in brackets):
  --l1-rpc-url <url>          L1 JSON-RPC URL (the verifier's chain)            [PROPOSER_L1_RPC_URL] (required)
  --rollup-rpc-url <url>      the L2 node: optimism_syncStatus, optimism_outputAtBlock
                                                                                [PROPOSER_ROLLUP_RPC_URL] (required)
  --prover-url <url>          the prover host (prover_prove)                    [PROPOSER_PROVER_URL] (required)
  --verifier <address>        AggregateVerifier                                 [PROPOSER_VERIFIER] (required)
  --private-key-file <path>   file holding the proposer's 0x-prefixed private key [PROPOSER_PRIVATE_KEY_FILE]
                              (or the key itself in PROPOSER_PRIVATE_KEY; never on the command line)
  --poll-interval-ms <n>      how often the node and the contract are read (default 2000)
                                                                                [PROPOSER_POLL_INTERVAL_MS]
  --l1-confirmations <n>      L1 blocks the proof's L1 head must be deep before the proposal is sent (default 1)
                                                                                [PROPOSER_L1_CONFIRMATIONS]
  --prove-timeout-ms <n>      longest prover_prove call (default 900000)        [PROPOSER_PROVE_TIMEOUT_MS]
  --max-backoff-ms <n>        longest wait after an error (default 30000)       [PROPOSER_MAX_BACKOFF_MS]
  --log-level <level>         fatal|error|warn|info|debug|trace|silent (default info) [PROPOSER_LOG_LEVEL]
  -h, --help                  print this help
`;

export type ProposerConfig = VerifierServiceConfig;

export type ProposerCommandLine = { kind: "help"; text: string } | { kind: "run"; config: ProposerConfig };

/** Parses argv (without the node and script paths) with the environment's twins; the flag wins. */
export function parseProposerCommandLine(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): ProposerCommandLine {
  const parsed = parseVerifierServiceCommandLine(argv, env, {
    name: "proposer",
    envPrefix: "PROPOSER",
    usage: PROPOSER_USAGE,
    fail: (message, details, cause) =>
      new ProposerConfigError(message, details, cause === undefined ? undefined : { cause }),
  });
  return parsed.kind === "help" ? parsed : { kind: "run", config: parsed.config };
}
