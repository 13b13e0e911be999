/**
 * The batcher process (docs/batcher.md).
 *
 *   BATCHER_PRIVATE_KEY=0x… tsx src/batcher/main.ts --l1-rpc-url URL --l2-rpc-url URL --batch-inbox 0x… \
 *     [--data-availability blobs|calldata] [--max-channel-duration 2] [--metrics-listen 127.0.0.1:7301]
 *
 * `--help` lists every flag and its environment twin. A bad flag prints one line to stderr and exits 2; SIGINT or
 * SIGTERM stops the loop and exits 0 (nothing to save: L1 is the batcher's state).
 */
import { createLogger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { exitOnShutdownSignals } from "../rpc/index.js";
import { BatcherConfigError, parseBatcherCommandLine } from "./config.js";
import { startBatcher } from "./service.js";

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseBatcherCommandLine(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof BatcherConfigError) {
      process.stderr.write(`batcher: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return;
  }
  const logger = createLogger({ name: "batcher", level: parsed.config.logLevel });
  const metrics = new MetricsRegistry({ processMetrics: true, defaultLabels: { service: "batcher" } });
  const running = await startBatcher(parsed.config, { logger, metrics });
  exitOnShutdownSignals(() => running.stop(), { logger });
  running.done.catch((error: unknown) => {
    logger.fatal({ err: error }, "batcher stopped on an error a restart cannot fix");
    process.exit(1);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `batcher: start-up failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`,
  );
  process.exit(1);
});
