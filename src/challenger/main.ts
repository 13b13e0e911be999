/**
 * The challenger process (docs/proposer.md "The challenger").
 *
 *   CHALLENGER_PRIVATE_KEY=0x… tsx src/challenger/main.ts --l1-rpc-url URL --rollup-rpc-url URL --prover-url URL \
 *     --verifier 0x…
 *
 * `--help` lists every flag and its environment twin. A bad flag prints one line to stderr and exits 2; SIGINT or
 * SIGTERM stops the loop and exits 0 (a restart scans Proposed events again from --start-block).
 */
import { createLogger } from "../log/index.js";
import { exitOnShutdownSignals } from "../rpc/index.js";
import { parseChallengerCommandLine } from "./config.js";
import { ChallengerConfigError } from "./errors.js";
import { startChallenger } from "./challenger.js";

function main(): void {
  let parsed;
  try {
    parsed = parseChallengerCommandLine(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ChallengerConfigError) {
      process.stderr.write(`challenger: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return;
  }
  const logger = createLogger({ name: "challenger", level: parsed.config.logLevel });
  const running = startChallenger(parsed.config, { logger });
  exitOnShutdownSignals(() => running.stop(), { logger });
}

main();
