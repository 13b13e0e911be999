/**
 * A service of the devnet run as a child process (`node <its bundle>`, src/bundles): its output is passed
 * through line by line with a prefix, and `waitForLine` resolves on the first line a predicate accepts.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { bundleDirFromEnv, buildBundles, DEFAULT_BUNDLE_DIR, nodeArgs } from "../bundles/index.js";
import { ChildExitedError } from "./errors.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export { ChildExitedError };

/**
 * The folder of the service bundles children start from: OP_SERVICE_BUNDLES when set (a test run's bundles),
 * else the devnet's own, built by buildServiceBundles; until then children start under tsx.
 */
let bundleDir = bundleDirFromEnv();

/**
 * Builds the bundles of every service into .build/services unless OP_SERVICE_BUNDLES names them already: about a
 * second, against two or more seconds of CPU that tsx's loader costs each child at its start.
 */
export async function buildServiceBundles(): Promise<void> {
  if (bundleDir === undefined) bundleDir = (await buildBundles(DEFAULT_BUNDLE_DIR)).bundleDir;
}

export interface ServiceChild {
  readonly name: string;
  readonly process: ChildProcess;
  /** Its process id (undefined when the spawn failed). */
  readonly pid: number | undefined;
  /** Resolves with the first output line `accept` returns a value for; rejects if the child exits first. */
  waitForLine<T>(accept: (line: string) => T | undefined, timeoutMs: number): Promise<T>;
  /** Resolves when the child has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (graceful), then SIGKILL after `graceMs`; resolves once the child has exited. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Starts `entry` (relative to the repository root) from its bundle (or with tsx before buildServiceBundles);
 * `echo` receives every output line; `nodeFlags` are Node's own (before the entry). Secrets go
 * in `env` (added to this process's environment), never in `args`: a command line is visible to every local
 * user in `ps`.
 */
export function startServiceChild(
  name: string,
  entry: string,
  args: readonly string[],
  echo: (line: string) => void,
  env: Readonly<Record<string, string>> = {},
  nodeFlags: readonly string[] = [],
): ServiceChild {
  const child = spawn(process.execPath, [...nodeFlags, ...nodeArgs(entry, bundleDir), ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const listeners = new Set<(line: string) => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      echo(line);
      for (const listener of listeners) listener(line);
    });
  }
  // "close", not "exit": it comes after the last output line has been read.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return {
    name,
    process: child,
    pid: child.pid,
    exited,
    waitForLine<T>(accept: (line: string) => T | undefined, timeoutMs: number): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        const listener = (line: string): void => {
          const value = accept(line);
          if (value === undefined) return;
          done();
          resolve(value);
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new ChildExitedError(
              `${name} did not become ready within ${timeoutMs} ms`,
              "child-ready-timeout",
              {
                name,
                timeoutMs,
              },
            ),
          );
        }, timeoutMs);
        listeners.add(listener);
        void exited.then(({ code, signal }) => {
          done();
          reject(
            new ChildExitedError(
              `${name} exited (code ${code}, signal ${signal}) before it was ready`,
              "child-exited",
              {
                name,
                code,
                signal,
              },
            ),
          );
        });
      });
    },
    async stop(graceMs: number): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Runs `entry` (relative to the repository root, from its bundle as startServiceChild does) to completion and returns its standard output;
 * secrets go in `env`, as for startServiceChild.
 */
export function runToCompletion(
  entry: string,
  args: readonly string[],
  timeoutMs: number,
  env: Readonly<Record<string, string>> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...nodeArgs(entry, bundleDir), ...args],
      { cwd: REPO_ROOT, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new ChildExitedError(
              `${entry} failed: ${error.message}\n${stderr}`,
              "child-failed",
              { entry },
              { cause: error },
            ),
          );
        } else resolve(stdout);
      },
    );
  });
}

/** The parsed JSON object of a log line, or undefined for any other line. */
export function jsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
