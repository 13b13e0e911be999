/**
 * Runs the batcher process (src/batcher/main.ts) for tests: the key goes in the environment, every JSON log line is
 * kept, and callers wait for log lines (events, not sleeps).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface LogLine {
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface BatcherProcess {
  readonly process: ChildProcess;
  readonly lines: LogLine[];
  output(): string;
  /** Resolves with the `count`-th line (counting from this process's start) for which `match` holds. */
  waitFor(match: (line: LogLine) => boolean, count?: number, timeoutMs?: number): Promise<LogLine>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export function spawnBatcher(args: readonly string[], env: Record<string, string>): BatcherProcess {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const killOnExit = (): void => {
    child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
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
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      process.removeListener("exit", killOnExit);
      for (const w of [...waiters]) w();
      resolve({ code, signal });
    }),
  );
  return {
    process: child,
    lines,
    output: () => out,
    waitFor(match, count = 1, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.filter(match);
          if (found.length >= count) {
            done();
            resolve(found[count - 1]!);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`batcher exited before the awaited log line\n${out.slice(-4000)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for a batcher log line\n${out.slice(-4000)}`));
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
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
