/**
 * Runs the proposer or challenger process (src/<name>/main.ts under tsx) for tests: keys go in the environment,
 * every JSON log line is kept, and callers wait for log lines (events, not sleeps).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface LogLine {
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  output(): string;
  /** Resolves with the `count`-th line (counting from this process's start) for which `match` holds. */
  waitFor(match: (line: LogLine) => boolean, count?: number, timeoutMs?: number): Promise<LogLine>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after 20 s; resolves with how it exited. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnService(
  name: "proposer" | "challenger",
  args: readonly string[],
  env: Record<string, string>,
): ServiceProcess {
  const child = spawn(process.execPath, ["--import", "tsx", `src/${name}/main.ts`, ...args], {
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
    child,
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
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        const result = await exited;
        clearTimeout(timer);
        return result;
      }
      return exited;
    },
  };
}
