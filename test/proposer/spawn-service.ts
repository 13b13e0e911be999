/**
 * Runs the proposer or challenger process (src/<name>/main.ts under tsx) for tests over
 * test/support/log-process.ts: keys go in the environment, every JSON log line is kept, and callers wait for log
 * lines (events, not sleeps). stop() sends SIGTERM, then SIGKILL after 20 s.
 */
import { type ExitStatus, type LogProcess, spawnLogProcess } from "../support/log-process.js";

export type { LogLine } from "../support/log-process.js";

export interface ServiceProcess extends Omit<LogProcess, "stop"> {
  /** SIGTERM, then SIGKILL after 20 s; resolves with how it exited. */
  stop(): Promise<ExitStatus>;
}

export function spawnService(
  name: "proposer" | "challenger",
  args: readonly string[],
  env: Record<string, string>,
): ServiceProcess {
  const service = spawnLogProcess(name, `src/${name}/main.ts`, args, env);
  return { ...service, stop: () => service.stop(20_000) };
}
