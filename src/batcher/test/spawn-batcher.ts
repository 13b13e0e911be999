/**
 * Runs the batcher process (src/batcher/main.ts) for tests over test/support/log-process.ts: the key goes in the
 * environment, every JSON log line is kept, and callers wait for log lines (events, not sleeps).
 */
import { fileURLToPath } from "node:url";
import { type LogProcess, spawnLogProcess } from "../../../test/support/log-process.js";

export type { LogLine } from "../../../test/support/log-process.js";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

export type BatcherProcess = LogProcess;

export function spawnBatcher(args: readonly string[], env: Record<string, string>): BatcherProcess {
  return spawnLogProcess("batcher", MAIN, args, env);
}
