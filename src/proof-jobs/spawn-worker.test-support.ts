/** Starts worker-process.test-support.ts as a child process and collects the events it prints. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { nodeArgs } from "../bundles/index.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface WorkerProcessOptions {
  readonly owner: string;
  readonly database: { readonly databaseUrl?: string; readonly sqlitePath: string };
  readonly leaseMs: number;
  readonly mode?: "echo" | "hang";
  readonly proveMs?: number;
  readonly holdPeers?: number;
  readonly tag?: number;
  readonly backoffMs?: number;
}

/** One event line of the child (see ProofWorkerEvent; bigints as strings). */
export interface WorkerLine {
  readonly owner: string;
  readonly type: string;
  readonly jobId?: number;
  readonly accepted?: boolean;
  readonly attempt?: number;
  readonly [field: string]: unknown;
}

export interface WorkerProcess {
  readonly owner: string;
  readonly child: ChildProcess;
  readonly lines: WorkerLine[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first line (already printed or to come) that `match` accepts. */
  next(match: (line: WorkerLine) => boolean, what: string, timeoutMs?: number): Promise<WorkerLine>;
  /** SIGTERM (the worker stops and gives its jobs back), then waits for the exit. */
  stop(): Promise<void>;
  kill(): Promise<void>;
  output(): string;
}

export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PROOF_JOBS_OWNER: options.owner,
    PROOF_JOBS_SQLITE: options.database.sqlitePath,
    PROOF_JOBS_LEASE_MS: String(options.leaseMs),
    PROOF_JOBS_MODE: options.mode ?? "echo",
    PROOF_JOBS_PROVE_MS: String(options.proveMs ?? 0),
    PROOF_JOBS_HOLD_PEERS: String(options.holdPeers ?? 0),
    PROOF_JOBS_TAG: String(options.tag ?? 1),
    PROOF_JOBS_BACKOFF_MS: String(options.backoffMs ?? 100),
  };
  delete env.PROOF_JOBS_DATABASE_URL;
  if (options.database.databaseUrl !== undefined) env.PROOF_JOBS_DATABASE_URL = options.database.databaseUrl;
  const child = spawn(process.execPath, nodeArgs("src/proof-jobs/worker-process.test-support.ts"), {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: WorkerLine[] = [];
  const waiters = new Set<() => void>();
  let output = "";
  let buffered = "";
  let closed = false;
  child.stdout?.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    output += text;
    buffered += text;
    for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        lines.push(JSON.parse(line) as WorkerLine);
      } catch {
        continue;
      }
    }
    for (const waiter of waiters) waiter();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // "close" rather than "exit": every line the child printed has been read by then.
    child.once("close", (code, signal) => {
      closed = true;
      resolve({ code, signal });
      for (const waiter of waiters) waiter();
    });
  });
  const onExit = (): void => {
    child.kill("SIGKILL");
  };
  process.once("exit", onExit);
  void exited.then(() => process.off("exit", onExit));

  const next = (
    match: (line: WorkerLine) => boolean,
    what: string,
    timeoutMs = 60_000,
  ): Promise<WorkerLine> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = lines.find(match);
        if (found !== undefined) {
          finish();
          resolve(found);
        } else if (closed) {
          finish();
          reject(new Error(`worker ${options.owner} exited before ${what}:\n${output}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`worker ${options.owner}: timed out waiting for ${what}:\n${output}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const handle: WorkerProcess = {
    owner: options.owner,
    child,
    lines,
    exited,
    next,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    output: () => output,
  };
  try {
    await next((line) => line.type === "ready", "its start");
  } catch (error) {
    await handle.kill();
    throw error;
  }
  return handle;
}
