/**
 * Worker processes against one queue, on SQLite and on PostgreSQL: two workers share the jobs and each job is
 * completed exactly once; a worker killed with SIGKILL mid-proof loses nothing (another claims its job once the
 * lease expires, never before); on PostgreSQL the queue and its workers survive a server restart. The proving is a
 * deterministic stand-in: what is tested is the queue and the worker loop.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  BACKENDS,
  deterministicResult,
  QueueDatabases,
  range,
  requestFor,
  resultTag,
  until,
} from "./fixtures.test-support.js";
import { openProofJobQueue } from "./open-queue.js";
import type { ProofJobQueue } from "./queue.js";
import { startWorkerProcess, type WorkerLine, type WorkerProcess } from "./spawn-worker.test-support.js";

const databases = new QueueDatabases();
let started: WorkerProcess[] = [];
let opened: ProofJobQueue[] = [];

afterEach(async () => {
  await Promise.all(started.map((worker) => worker.kill()));
  await Promise.all(opened.map((queue) => queue.close()));
  started = [];
  opened = [];
});
afterAll(() => databases.close());

async function workers(...options: Parameters<typeof startWorkerProcess>[0][]): Promise<WorkerProcess[]> {
  const processes = await Promise.all(options.map((option) => startWorkerProcess(option)));
  started.push(...processes);
  return processes;
}

const accepted = (processes: WorkerProcess[]): WorkerLine[] =>
  processes.flatMap((worker) =>
    worker.lines.filter((line) => line.type === "completed" && line.accepted === true),
  );

async function allSucceeded(queue: ProofJobQueue, count: number): Promise<void> {
  await until(
    async () => ((await queue.stats()).depth.succeeded === count ? true : undefined),
    `${count} results`,
  );
}

describe.each(BACKENDS)("%s queue with worker processes", (backend) => {
  it("two workers share the queue and each job is completed exactly once", async () => {
    const database = await databases.create(backend);
    const queue = await openProofJobQueue(database);
    opened.push(queue);
    const common = { database, leaseMs: 10_000, proveMs: 50, holdPeers: 2 };
    const [one, two] = await workers(
      { ...common, owner: "one", tag: 1 },
      { ...common, owner: "two", tag: 2 },
    );
    const starts = [0, 10, 20, 30, 40, 50, 60, 70];
    for (const start of starts) await queue.enqueue(range(start), requestFor(range(start)));
    await allSucceeded(queue, starts.length);
    await Promise.all([one!.stop(), two!.stop()]);

    const completions = accepted([one!, two!]);
    expect(completions.length).toBe(starts.length);
    const jobs = await queue.list();
    expect(new Set(completions.map((line) => line.jobId))).toEqual(new Set(jobs.map((job) => job.id)));
    for (const owner of [one!, two!])
      expect(completions.some((line) => line.owner === owner.owner)).toBe(true);
    // The stored result is the one whose submission was accepted, from the worker that proved it.
    for (const job of jobs) {
      const by = completions.find((line) => line.jobId === job.id)!.owner;
      expect(resultTag(job)).toBe(by === "one" ? 1 : 2);
      expect(job.result).toEqual(deterministicResult(job.request, resultTag(job)));
    }
  });

  it("a worker killed with SIGKILL mid-proof has its job claimed by another once the lease expires", async () => {
    const database = await databases.create(backend);
    const queue = await openProofJobQueue(database);
    opened.push(queue);
    const leaseMs = 4_000;
    const [doomed] = await workers({ database, leaseMs, owner: "doomed", mode: "hang" });
    const { job } = await queue.enqueue(range(0), requestFor(range(0)));
    await doomed!.next((line) => line.type === "claimed", "the claim");
    const claimed = (await queue.get(range(0)))!;
    const [survivor] = await workers({ database, leaseMs, owner: "survivor", tag: 7 });
    // While the doomed worker lives it heartbeats: its lease outlasts the first one, and the survivor waits.
    const renewed = await until(async () => {
      const now = (await queue.get(range(0)))!;
      return now.lease!.expiresAtMs > claimed.lease!.expiresAtMs ? now : undefined;
    }, "a heartbeat");
    expect(renewed.lease?.owner).toBe("doomed");
    expect(survivor!.lines.some((line) => line.type === "claimed")).toBe(false);

    await doomed!.kill();
    expect((await doomed!.exited).signal).toBe("SIGKILL");
    const claim = await survivor!.next((line) => line.type === "claimed", "the survivor's claim");
    expect(claim.jobId).toBe(job.id);
    expect(claim.attempt).toBe(2);
    await allSucceeded(queue, 1);
    const done = (await queue.get(range(0)))!;
    expect(done.attempts).toBe(2);
    expect(done.error).toBe("the lease of doomed expired");
    expect(resultTag(done)).toBe(7);
    // The worker prints its event after the database took the result: wait for the line.
    const completed = await survivor!.next((line) => line.type === "completed", "the survivor's result");
    expect(completed).toMatchObject({ jobId: job.id, accepted: true });
  });
});

describe("postgres queue across a server restart", () => {
  it("keeps its jobs and results, and its workers reconnect and finish the rest", async () => {
    const cluster = await databases.clusterStarted();
    const database = await databases.create("postgres");
    const queue = await openProofJobQueue(database);
    opened.push(queue);
    const common = { database, leaseMs: 20_000, proveMs: 300 };
    const processes = await workers({ ...common, owner: "one", tag: 1 }, { ...common, owner: "two", tag: 2 });
    for (const start of [0, 10, 20, 30]) await queue.enqueue(range(start), requestFor(range(start)));
    await until(async () => ((await queue.stats()).depth.succeeded >= 2 ? true : undefined), "two results");
    const before = await queue.list({ states: ["succeeded"] });

    await cluster.stopServer();
    // Both workers notice: their claims or heartbeats fail while the server is down.
    const errorsBefore = processes.map((worker) => worker.lines.length);
    await Promise.all(
      processes.map((worker, i) =>
        worker.next(
          (line) => line.type === "queue-error" && worker.lines.indexOf(line) >= errorsBefore[i]!,
          "a failed queue call",
        ),
      ),
    );
    await cluster.startServer();

    for (const start of [40, 50]) await queue.enqueue(range(start), requestFor(range(start)));
    await allSucceeded(queue, 6);
    const after = await queue.list({ states: ["succeeded"] });
    for (const job of before) expect(after.find((other) => other.id === job.id)).toEqual(job);
    expect(processes.every((worker) => worker.child.exitCode === null)).toBe(true);
    await Promise.all(processes.map((worker) => worker.stop()));
    const completions = accepted(processes);
    expect(completions.length).toBe(6);
    expect(new Set(completions.map((line) => line.jobId)).size).toBe(6);
  });
});
