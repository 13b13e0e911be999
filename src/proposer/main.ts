/**
 * The proposer process (docs/proposer.md).
 *
 *   PROPOSER_PRIVATE_KEY=0x… tsx src/proposer/main.ts --l1-rpc-url URL --rollup-rpc-url URL --prover-url URL \
 *     --verifier 0x…
 *
 * `--help` lists every flag and its environment twin. A bad flag prints one line to stderr and exits 2; SIGINT or
 * SIGTERM stops the loop and exits 0 (the contract is the proposer's state: a restart resumes from latestBlock).
 */
import { createLogger } from "../log/index.js";
import { exitOnShutdownSignals } from "../rpc/index.js";
import { parseProposerCommandLine } from "./config.js";
import { ProposerConfigError } from "./errors.js";
import { startProposer } from "./proposer.js";

function main(): void {
  let parsed;
  try {
    parsed = parseProposerCommandLine(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ProposerConfigError) {
      process.stderr.write(`proposer: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return;
  }
  const logger = createLogger({ name: "proposer", level: parsed.config.logLevel });
  const running = startProposer(parsed.config, { logger });
  exitOnShutdownSignals(() => running.stop(), { logger });
}

main();
