/**
 * The proposer process (docs/proposer.md).
 *
 *   PROPOSER_PRIVATE_KEY=0x… tsx src/proposer/main.ts --l1-rpc-url URL --rollup-rpc-url URL --prover-url URL \
 *     --verifier 0x…
 *
 * `--help` lists every flag and its environment twin. A bad flag prints one line to stderr and exits 2; SIGINT or
 * SIGTERM stops the loop and exits 0 (the contract is the proposer's state: a restart resumes from latestBlock).
 */
import { startServiceProcess } from "../service-kit/index.js";
import { exitOnShutdownSignals } from "../rpc/index.js";
import { parseProposerCommandLine } from "./config.js";
import { ProposerConfigError } from "./errors.js";
import { startProposer } from "./proposer.js";

const started = startServiceProcess({
  name: "proposer",
  parse: parseProposerCommandLine,
  configError: ProposerConfigError,
  start: startProposer,
});
if (started !== undefined) exitOnShutdownSignals(() => started.running.stop(), { logger: started.logger });
