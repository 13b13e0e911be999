/** Starts the real prover host process (src/host/main.ts, from its bundle or under tsx) for tests. */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { nodeArgs } from "../../src/bundles/index.js";
import { awaitReady } from "../support/child-start.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Placeholder upstream URLs: a closed loopback port (nothing listens on port 1). */
export const UNREACHABLE_URL = "http://127.0.0.1:1";

export interface HostArgsOptions {
  readonly enclaves: readonly string[];
  readonly chainId?: string;
  readonly registry?: string;
  readonly l1RpcUrl?: string;
  readonly proofTimeoutSeconds?: string;
  readonly extra?: readonly string[];
}

export function hostArgs(options: HostArgsOptions): string[] {
  return [
    "--l1-rpc-url",
    options.l1RpcUrl ?? UNREACHABLE_URL,
    "--l1-beacon-url",
    UNREACHABLE_URL,
    "--l2-rpc-url",
    UNREACHABLE_URL,
    "--l2-chain-id",
    options.chainId ?? "84532",
    "--listen",
    "127.0.0.1:0",
    ...options.enclaves.flatMap((address) => ["--vsock-cid", address]),
    ...(options.registry === undefined ? [] : ["--tee-prover-registry-address", options.registry]),
    ...(options.proofTimeoutSeconds === undefined
      ? []
      : ["--proof-request-timeout", options.proofTimeoutSeconds]),
    ...(options.extra ?? []),
  ];
}

function spawnHost(args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [...nodeArgs("src/host/main.ts"), ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    // AF_VSOCK is never opened on this machine: the host's transport and the addon both refuse it.
    env: { ...process.env, OP_ENCLAVE_FORBID_VSOCK: "1", ...env },
  });
}

export interface RunningHost {
  readonly url: string;
  readonly port: number;
  readonly logs: Record<string, unknown>[];
  readonly child: ChildProcess;
  /** Resolves with the exit code once the process has exited and its output has been read to the end. */
  readonly exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM) unless already exited; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartHostOptions {
  /** Milliseconds until "prover host listening"; default 90 000. The host is killed if it is not ready by then. */
  readonly startTimeoutMs?: number;
}

export async function startHost(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  options: StartHostOptions = {},
): Promise<RunningHost> {
  const child = spawnHost(args, env);
  const logs: Record<string, unknown>[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  const listening = new Promise<number>((resolve) => {
    lines.on("line", (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      if (entry.msg === "prover host listening") resolve(Number(entry.port));
    });
  });
  const port = await awaitReady(child, listening, {
    name: "the prover host",
    timeoutMs: options.startTimeoutMs ?? 90_000,
    output: () => `${logs.map((entry) => JSON.stringify(entry)).join("\n")}\n${stderr}`,
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    logs,
    child,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the host expecting it to stop on its own (a start-up refusal or --help). */
export function runHostToExit(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnHost(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}
