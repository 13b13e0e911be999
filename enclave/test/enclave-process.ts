/** Starts a real enclave process (enclave/main.ts, from its bundle or under tsx) in local mode for tests. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { nodeArgs } from "../../src/bundles/index.js";
import type { ListenAddress } from "../../src/proof/transport/index.js";
import { awaitReady } from "../../test/support/child-start.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

export interface RunningEnclave {
  readonly address: ListenAddress;
  readonly signer: string;
  readonly logs: Record<string, unknown>[];
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The heap a test enclave is started with unless `nodeFlags` say otherwise (docs/enclave.md "Memory": the enclave
 * sizes itself by it): explicit, so a test does not depend on the machine's default.
 */
export const TEST_ENCLAVE_HEAP_MB = 2048;

export interface StartEnclaveOptions {
  /**
   * Node's own flags, before the script (e.g. `--max-old-space-size=96`, the heap the enclave sizes itself by);
   * default `--max-old-space-size=TEST_ENCLAVE_HEAP_MB`.
   */
  readonly nodeFlags?: readonly string[];
  /** Milliseconds until "enclave listening"; default 90 000. The enclave is killed if it is not ready by then. */
  readonly startTimeoutMs?: number;
}

export async function startEnclave(
  extraArgs: string[] = [],
  options: StartEnclaveOptions = {},
): Promise<RunningEnclave> {
  const dir = await mkdtemp(join(tmpdir(), "enclave-test-"));
  const path = join(dir, "enclave.sock");
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeFlags ?? [`--max-old-space-size=${TEST_ENCLAVE_HEAP_MB}`]),
      ...nodeArgs("enclave/main.ts"),
      "--local",
      "--listen",
      path,
      ...extraArgs,
    ],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const logs: Record<string, unknown>[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === "enclave listening") resolve(String(entry.signer));
      if (entry.level === "error" && entry.msg === "enclave start-up failed")
        reject(new Error(String(entry.error)));
    });
  });
  let signer: string;
  try {
    signer = await awaitReady(child, ready, {
      name: "the enclave",
      timeoutMs: options.startTimeoutMs ?? 90_000,
      output: () => `${logs.map((entry) => JSON.stringify(entry)).join("\n")}\n${stderr}`,
    });
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    address: { kind: "unix", path },
    signer,
    logs,
    child,
    async stop() {
      // A child that already exited (by itself or from a signal) emits no further "exit" event.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
