/**
 * WorkerHostGroup's restart policy on real child processes (small idle Node children, not hosts): a host whose
 * restart dies within the healthy window counts a failed restart and is given up at the limit; one that ran the
 * healthy window first starts its count over and is restarted again; the last host given up ends the group. Every
 * death is handed to `died` with the dead process's id (the devnet ends its leases there) before the report; a `died`
 * that never answers (an unreachable queue database) delays the restart by `diedTimeoutMs` only.
 * test/devnet/worker-hosts.test.ts runs the same supervision with the devnet's real worker hosts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type ServiceChild, startServiceChild } from "./child.js";
import { type SupervisedHost, WorkerHostGroup } from "./worker-hosts.js";

const ENTRY = "src/devnet/idle-child.test-support.mjs";
const HEALTHY_MS = 1_500;
const children: ServiceChild[] = [];

afterAll(async () => {
  await Promise.all(children.map((child) => child.stop(5_000)));
});

/** An idle child, started and waited for. */
async function idle(name: string): Promise<ServiceChild> {
  const child = startServiceChild(name, ENTRY, [], () => undefined);
  children.push(child);
  await child.waitForLine((line) => (line === "idle child up" ? true : undefined), 60_000);
  return child;
}

describe("WorkerHostGroup", () => {
  it("gives up a host whose restart dies within the healthy window, restarts one that ran it, and ends with the last", async () => {
    const reports: string[] = [];
    const died: number[] = [];
    const killed: number[] = [];
    let reported: (() => void) | undefined;
    let restarted: (() => void) | undefined;
    const nextReport = () => new Promise<void>((resolve) => (reported = resolve));
    const group = new WorkerHostGroup({
      policy: { maxFailedRestarts: 1, firstDelayMs: 10, maxDelayMs: 10, healthyAfterMs: HEALTHY_MS },
      report: (line) => {
        reports.push(line);
        reported?.();
      },
      restarted: () => restarted?.(),
      stopping: () => false,
      died: (pid) => {
        died.push(pid);
        return Promise.resolve(1);
      },
    });
    const nextRestart = () => new Promise<void>((resolve) => (restarted = resolve));
    const hosts: SupervisedHost[] = [];
    for (const name of ["worker a", "worker b"]) {
      const first = await idle(name);
      hosts.push(
        group.supervise(first, () => {
          const child = startServiceChild(name, ENTRY, [], () => undefined);
          children.push(child);
          return child;
        }),
      );
    }
    const [a, b] = hosts as [SupervisedHost, SupervisedHost];
    const kill = async (host: SupervisedHost) => {
      const restart = nextRestart();
      const pid = host.pid!;
      killed.push(pid);
      process.kill(pid, "SIGKILL");
      return { pid, restart };
    };

    // b: its first death is restarted; its restart dies at once (within the window): given up, a goes on.
    let shot = await kill(b);
    await shot.restart;
    expect(b.pid).not.toBe(shot.pid);
    const givenUp = nextReport();
    killed.push(b.pid!);
    process.kill(b.pid!, "SIGKILL");
    await givenUp;
    expect(reports.at(-1)).toMatch(
      /^\[devnet\] worker b exited .*; given up after 1 restart\(s\) in a row died within 1\.5 s; 1 worker host\(s\) go on/,
    );

    // a: restarted; its restart outlives the healthy window, so its next death starts the count over.
    shot = await kill(a);
    await shot.restart;
    const restartedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, HEALTHY_MS + 200 - (Date.now() - restartedAt)));
    shot = await kill(a);
    await shot.restart;
    expect(reports.at(-1)).toMatch(/^\[devnet\] worker a restarted \(pid \d+, restart 2\)$/);
    expect(reports.at(-2)).toMatch(
      /^\[devnet\] worker a exited .* after [\d.]+ s; restarting it in 0\.0 s \(its 1 job\(s\) returned to the queue at once\)$/,
    );

    // Its new restart dies at once: given up; it was the last host, so the group's exit resolves with that death.
    killed.push(a.pid!);
    process.kill(a.pid!, "SIGKILL");
    const exit = await Promise.race([a.exited, b.exited]);
    expect(exit).toEqual({ code: null, signal: "SIGKILL" });
    expect(reports.at(-1)).toMatch(/; no worker host is left: stopping the devnet$/);
    expect(died).toEqual(killed);
  }, 120_000);

  it("restarts a host whose `died` never answers once `diedTimeoutMs` has passed, its job left to its lease", async () => {
    const reports: string[] = [];
    let restarted: (() => void) | undefined;
    const group = new WorkerHostGroup({
      policy: { maxFailedRestarts: 1, firstDelayMs: 10, maxDelayMs: 10, healthyAfterMs: HEALTHY_MS },
      report: (line) => reports.push(line),
      restarted: () => restarted?.(),
      stopping: () => false,
      died: () => new Promise<number>(() => undefined),
      diedTimeoutMs: 200,
    });
    const name = "worker c";
    const host = group.supervise(await idle(name), () => {
      const child = startServiceChild(name, ENTRY, [], () => undefined);
      children.push(child);
      return child;
    });
    const restart = new Promise<void>((resolve) => (restarted = resolve));
    process.kill(host.pid!, "SIGKILL");
    await restart;
    expect(reports.at(-2)).toMatch(
      /^\[devnet\] worker c exited .*; restarting it in 0\.0 s \(its job returns to the queue when its lease expires \(ending its lease failed: no answer within 0\.2 s\)\)$/,
    );
    await host.stop(5_000);
  }, 60_000);
});
