/**
 * The start of a test's child process, and what is left of it when a start fails.
 *
 * `awaitReady` races a child's readiness against a deadline and the child's exit: when the child is not ready in
 * time, its readiness fails, or it exits first, the child is killed (SIGKILL) and reaped before the error is thrown,
 * so a start that failed leaves no process behind (on a loaded machine a start that timed out used to leave its
 * enclave or merchant running). Every spawn helper of the tests uses it.
 *
 * `trackChild` records a started child until it exits; `stopLeftoverChildren` kills those still running. The process
 * lane calls it after each test file (leftover-children.setup.ts): a helper still starting when its hook timed out
 * returns a process nobody holds, which the next sweep ends.
 */
import type { ChildProcess } from "node:child_process";

/** The child did not become ready: it was killed (and has exited) before this was thrown. */
export class ChildNotReadyError extends Error {
  override readonly name = "ChildNotReadyError";
  constructor(
    message: string,
    /** The killed child's process id. */
    readonly pid: number | undefined,
    /** The child's output so far (its last 4000 characters), if the helper keeps it. */
    readonly output: string,
    options?: ErrorOptions,
  ) {
    super(`${message}${output === "" ? "" : `\n--- output ---\n${output.slice(-4000)}`}`, options);
  }
}

const running = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/** Resolves once `child` has exited (at once if it already has). */
export function childExited(child: ChildProcess): Promise<void> {
  if (!running(child)) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** SIGKILL unless already exited; resolves once the child has exited. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (running(child)) child.kill("SIGKILL");
  await childExited(child);
}

const started = new Set<ChildProcess>();

/** Records `child` until it exits, for stopLeftoverChildren. */
export function trackChild(child: ChildProcess): void {
  if (!running(child)) return;
  started.add(child);
  child.once("exit", () => started.delete(child));
}

/** Kills every tracked child still running and waits for their exits; returns their process ids. */
export async function stopLeftoverChildren(): Promise<number[]> {
  const left = [...started].filter(running);
  await Promise.all(left.map(killChild));
  return left.map((child) => child.pid ?? -1);
}

export interface ReadyOptions {
  /** Names the child in errors. */
  readonly name: string;
  readonly timeoutMs: number;
  /** The child's output so far, for the error. */
  readonly output?: () => string;
}

/**
 * Resolves with `ready`'s value; if `ready` rejects, `child` exits first or `timeoutMs` passes, kills the child,
 * waits for its exit and throws ChildNotReadyError.
 */
export async function awaitReady<T>(
  child: ChildProcess,
  ready: Promise<T>,
  options: ReadyOptions,
): Promise<T> {
  trackChild(child);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${options.name} was not ready within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
  });
  // "close": the child has exited and its output has been read to the end (a start-up error it printed is seen).
  const closed = running(child)
    ? new Promise<void>((resolve) => child.once("close", () => resolve()))
    : Promise.resolve();
  const exited = closed.then(() => {
    throw new Error(
      `${options.name} exited before it was ready (code ${child.exitCode}, signal ${child.signalCode})`,
    );
  });
  try {
    return await Promise.race([ready, deadline, exited]);
  } catch (e) {
    await killChild(child);
    throw new ChildNotReadyError((e as Error).message, child.pid, options.output?.() ?? "", { cause: e });
  } finally {
    clearTimeout(timer);
    // The losers of the race may settle later: observed here.
    ready.catch(() => undefined);
    exited.catch(() => undefined);
  }
}
