/**
 * The challenger process (docs/proposer.md "The challenger").
 *
 *   CHALLENGER_PRIVATE_KEY=0x… tsx src/challenger/main.ts --l1-rpc-url URL --rollup-rpc-url URL --prover-url URL \
 *     --verifier 0x…
 *
 * `--help` lists every flag and its environment twin. A bad flag prints one line to stderr and exits 2; SIGINT or
 * SIGTERM stops the loop and exits 0 (a restart scans Proposed events again from --start-block).
 */
import { startServiceProcess } from "../service-kit/index.js";
import { exitOnShutdownSignals } from "../rpc/index.js";
import { parseChallengerCommandLine } from "./config.js";
import { ChallengerConfigError } from "./errors.js";
import { startChallenger } from "./challenger.js";

const started = startServiceProcess({
  name: "challenger",
  parse: parseChallengerCommandLine,
  configError: ChallengerConfigError,
  start: startChallenger,
});
if (started !== undefined) exitOnShutdownSignals(() => started.running.stop(), { logger: started.logger });
