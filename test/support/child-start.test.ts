/**
 * A start that fails leaves no process behind: awaitReady and the spawn helpers kill (and reap) a child whose
 * readiness never comes, and the sweep after each file kills a tracked child nobody stopped.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEnclave } from "../../enclave/test/enclave-process.js";
import { hostArgs, startHost } from "../host/spawn-host.js";
import { startMerchantProcess } from "../merchant/support/merchant-process.js";
import { ChildNotReadyError, awaitReady, stopLeftoverChildren, trackChild } from "./child-start.js";
import { spawnLogProcess } from "./log-process.js";

/** Whether a process with this id exists (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw e;
  }
}

/** A child that runs until killed and never reports ready. */
const idleChild = () => spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });

/** The error a start threw, which must be a ChildNotReadyError naming a process that no longer exists. */
async function failedStart(start: Promise<unknown>): Promise<ChildNotReadyError> {
  const error = await start.then(
    () => {
      throw new Error("the start succeeded");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChildNotReadyError);
  const { pid } = error as ChildNotReadyError;
  expect(pid).toBeGreaterThan(0);
  expect(alive(pid!)).toBe(false);
  return error as ChildNotReadyError;
}

const dir = mkdtempSync(join(tmpdir(), "child-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a start whose readiness never comes", () => {
  it("awaitReady kills the child at the deadline and the child is gone when it throws", async () => {
    const child = idleChild();
    const error = await failedStart(
      awaitReady(child, new Promise<never>(() => {}), { name: "idle", timeoutMs: 300 }),
    );
    expect(error.message).toMatch(/idle was not ready within 300 ms/);
    expect(error.pid).toBe(child.pid);
  });

  it("awaitReady kills the child when its readiness fails", async () => {
    const error = await failedStart(
      awaitReady(idleChild(), Promise.reject(new Error("bad start-up line")), {
        name: "idle",
        timeoutMs: 60_000,
      }),
    );
    expect(error.message).toMatch(/bad start-up line/);
  });

  it("the host, the enclave, the merchant service and a log-line service are killed when not ready in time", async () => {
    // Deadlines shorter than any start: each child is still loading when its deadline passes.
    await failedStart(
      startHost(hostArgs({ enclaves: [join(dir, "none.sock")] }), {}, { startTimeoutMs: 20 }),
    );
    await failedStart(startEnclave([], { startTimeoutMs: 20 }));
    await failedStart(
      startMerchantProcess({
        rpcUrl: "http://127.0.0.1:1",
        token: "0x0000000000000000000000000000000000000001",
        relayerKey: `0x${"11".repeat(32)}`,
        store: { sqlite: join(dir, "merchant.sqlite") },
        startTimeoutMs: 20,
      }),
    );
    const service = spawnLogProcess("proposer", "src/proposer/main.ts", [], {});
    await failedStart(service.ready((line) => line.msg === "never logged", 20));
  });

  it("the sweep after a file kills a tracked child nobody stopped", async () => {
    const child = idleChild();
    trackChild(child);
    expect(await stopLeftoverChildren()).toContain(child.pid);
    expect(alive(child.pid!)).toBe(false);
  });
});
