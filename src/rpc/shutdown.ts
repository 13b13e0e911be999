/**
 * Graceful shutdown on SIGINT/SIGTERM: runs the process's close steps once (e.g. draining the
 * JSON-RPC server), then exits 0, or 1 when a step failed. A second signal exits at once.
 */
import type { Logger } from "../log/index.js";

export interface ShutdownOptions {
  readonly logger: Logger;
  /** Signals to handle; default SIGINT and SIGTERM. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Called instead of process.exit (tests). */
  readonly exit?: (code: number) => void;
}

/** Installs the handlers; returns a function that removes them. */
export function exitOnShutdownSignals(close: () => Promise<void>, options: ShutdownOptions): () => void {
  const signals = options.signals ?? ["SIGINT", "SIGTERM"];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      options.logger.warn({ signal }, "second shutdown signal: exiting without waiting");
      exit(1);
      return;
    }
    closing = true;
    options.logger.info({ signal }, "shutting down");
    close().then(
      () => {
        options.logger.info("shutdown complete");
        exit(0);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, "shutdown failed");
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
