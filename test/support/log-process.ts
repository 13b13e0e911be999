/**
 * A service process for tests (its bundle, or `node --import tsx <entry>`: src/bundles `nodeArgs`): secrets go in the environment, every JSON log line is
 * kept, and callers wait for log lines (events, not sleeps). The batcher, proposer and challenger helpers wrap it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { nodeArgs } from "../../src/bundles/index.js";
import { awaitReady, trackChild } from "./child-start.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface LogLine {
  readonly msg: string;
  readonly [field: string]: unknown;
}

export type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

export interface LogProcess {
  readonly process: ChildProcess;
  readonly lines: LogLine[];
  output(): string;
  /** Resolves with the `count`-th line (counting from this process's start) for which `match` holds. */
  waitFor(match: (line: LogLine) => boolean, count?: number, timeoutMs?: number): Promise<LogLine>;
  /**
   * Start-up: resolves with the first line for which `match` holds; if none comes within `timeoutMs` (default
   * 120 000) or the process exits first, kills the process (child-start.ts awaitReady) and throws.
   */
  ready(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  readonly exited: Promise<ExitStatus>;
  /** SIGTERM, then (with `killAfterMs`) SIGKILL if it has not exited by then; resolves with how it exited. */
  stop(killAfterMs?: number): Promise<ExitStatus>;
  /** SIGKILL; resolves with how it exited. */
  kill(): Promise<ExitStatus>;
}

/** Starts `entry` (relative to the repository root) from its bundle or under tsx; `name` labels errors. */
export function spawnLogProcess(
  name: string,
  entry: string,
  args: readonly string[],
  env: Record<string, string>,
): LogProcess {
  const child = spawn(process.execPath, [...nodeArgs(entry), ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  trackChild(child);
  const killOnExit = (): void => {
    child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  child.once("exit", () => process.removeListener("exit", killOnExit));
  let out = "";
  let buffered = "";
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    out += text;
    buffered += text;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.startsWith("{")) continue;
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        continue;
      }
      for (const w of [...waiters]) w();
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  const exited = new Promise<ExitStatus>((resolve) =>
    child.once("exit", (code, signal) => {
      process.removeListener("exit", killOnExit);
      for (const w of [...waiters]) w();
      resolve({ code, signal });
    }),
  );
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const logProcess: LogProcess = {
    process: child,
    lines,
    output: () => out,
    ready(match, timeoutMs = 120_000) {
      return awaitReady(child, logProcess.waitFor(match, 1, timeoutMs), {
        name,
        timeoutMs,
        output: () => out,
      });
    },
    waitFor(match, count = 1, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.filter(match);
          if (found.length >= count) {
            done();
            resolve(found[count - 1]!);
          } else if (!running()) {
            done();
            reject(new Error(`${name} exited before the awaited log line\n${out.slice(-4000)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for a ${name} log line\n${out.slice(-4000)}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    exited,
    async stop(killAfterMs) {
      if (!running()) return exited;
      child.kill("SIGTERM");
      const timer =
        killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
    async kill() {
      if (running()) child.kill("SIGKILL");
      return exited;
    },
  };
  return logProcess;
}
