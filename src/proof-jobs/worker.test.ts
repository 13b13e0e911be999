/**
 * The worker loop in one process against real engines (SQLite file, throwaway PostgreSQL): heartbeats while a
 * proof outlasts its lease, retries after a failure, the AbortSignal when the lease is taken over or the database
 * is unreachable for a whole lease, stop and drain.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  BACKENDS,
  type Backend,
  deterministicResult,
  QueueDatabases,
  range,
  rawDriver,
  requestFor,
  until,
} from "./fixtures.test-support.js";
import { LeaseLostError, WorkerStoppingError } from "./errors.js";
import type { ProofJob } from "./job.js";
import { openProofJobQueue } from "./open-queue.js";
import type { ProofJobQueue, ProofJobQueueOptions } from "./queue.js";
import { ProofWorker, type ProofWorkerEvent, type ProofWorkerOptions } from "./worker.js";

const databases = new QueueDatabases();
let running: ProofWorker[] = [];
let opened: ProofJobQueue[] = [];

afterEach(async () => {
  await Promise.all(running.map((worker) => worker.stop()));
  await Promise.all(opened.map((queue) => queue.close()));
  running = [];
  opened = [];
});
afterAll(() => databases.close());

/** A worker whose events are collected; `next` waits for one. */
function startWorker(options: Omit<ProofWorkerOptions, "onEvent">) {
  const events: ProofWorkerEvent[] = [];
  const waiters = new Set<() => void>();
  const worker = new ProofWorker({
    pollIntervalMs: 20,
    ...options,
    onEvent: (event) => {
      events.push(event);
      for (const waiter of waiters) waiter();
    },
  }).start();
  running.push(worker);
  const next = <T extends ProofWorkerEvent["type"]>(
    type: T,
  ): Promise<Extract<ProofWorkerEvent, { type: T }>> =>
    until(
      async () => events.find((event) => event.type === type) as Extract<ProofWorkerEvent, { type: T }>,
      type,
    );
  return { worker, events, next };
}

/** Resolves when `signal` fires, with its reason. */
const aborted = (signal: AbortSignal): Promise<unknown> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });

describe.each(BACKENDS)("%s proof worker", (backend: Backend) => {
  const open = async (options: ProofJobQueueOptions) => {
    const database = await databases.create(backend);
    const queue = await openProofJobQueue({ ...database, options });
    opened.push(queue);
    return { database, queue };
  };

  it("heartbeats keep a job leased while its proof outlasts the lease, and no other worker takes it", async () => {
    const leaseMs = 1_500;
    const { database, queue } = await open({ leaseMs, backoffMs: 0 });
    await queue.enqueue(range(0), requestFor(range(0)));
    const slow = startWorker({
      queue,
      owner: "slow",
      prove: async (job) => {
        const first = job.lease!.expiresAtMs;
        await until(async () => {
          const stored = await queue.get(job.range);
          return stored!.lease!.expiresAtMs >= first + 2 * leaseMs ? true : undefined;
        }, "two leases of heartbeats");
        return deterministicResult(job.request);
      },
    });
    await slow.next("claimed");
    const otherQueue = await openProofJobQueue({ ...database, options: { leaseMs } });
    opened.push(otherQueue);
    const other = startWorker({
      queue: otherQueue,
      owner: "other",
      prove: () => Promise.reject(new Error("must not run")),
    });
    expect((await slow.next("completed")).accepted).toBe(true);
    const job = (await queue.get(range(0)))!;
    expect(job.state).toBe("succeeded");
    expect(job.attempts).toBe(1);
    expect(other.events.filter((event) => event.type === "claimed")).toEqual([]);
  });

  it("does not take a heartbeat that raced the job's own result for a lost lease", async () => {
    const { queue } = await open({ leaseMs: 10_000 });
    const starts = Array.from({ length: 30 }, (_, i) => i * 10);
    for (const start of starts) await queue.enqueue(range(start), requestFor(range(start)));
    const { events } = startWorker({
      queue,
      owner: "w",
      concurrency: 3,
      heartbeatIntervalMs: 1,
      prove: async (job) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return deterministicResult(job.request);
      },
    });
    // The event follows the database's answer: wait for the events, then check the database.
    await until(
      async () =>
        events.filter((event) => event.type === "completed").length === starts.length ? true : undefined,
      "all results",
    );
    expect((await queue.stats()).depth.succeeded).toBe(starts.length);
    expect(events.filter((event) => event.type === "lease-lost")).toEqual([]);
    expect(events.filter((event) => event.type === "completed" && event.accepted).length).toBe(starts.length);
  });

  it("records a failed proof and retries it after the backoff; a permanent error fails the job at once", async () => {
    const { queue } = await open({ backoffMs: 50, maxBackoffMs: 50, maxAttempts: 3 });
    class BadRequest extends Error {}
    await queue.enqueue(range(0), requestFor(range(0)));
    await queue.enqueue(range(10), requestFor(range(10)));
    const { events } = startWorker({
      queue,
      owner: "w",
      isPermanent: (error) => error instanceof BadRequest,
      prove: (job: ProofJob) => {
        if (job.range.startBlock === 10n) return Promise.reject(new BadRequest("claim does not match"));
        if (job.attempts === 1) return Promise.reject(new Error("enclave busy"));
        return Promise.resolve(deterministicResult(job.request));
      },
    });
    await until(
      async () =>
        events.some((event) => event.type === "completed") &&
        events.filter((event) => event.type === "failed").length === 2
          ? true
          : undefined,
      "one result and two failures",
    );
    const [retried, refused] = await queue.list();
    expect(retried).toMatchObject({ state: "succeeded", attempts: 2, error: "Error: enclave busy" });
    expect(refused).toMatchObject({ state: "failed", attempts: 1, error: "Error: claim does not match" });
    const failures = events.filter((event) => event.type === "failed");
    expect(failures.map((event) => [event.jobId, event.outcome?.state])).toEqual([
      [retried!.id, "queued"],
      [refused!.id, "failed"],
    ]);
  });

  it("aborts a proof whose lease another claim took over, and submits nothing for it", async () => {
    const { database, queue } = await open({ leaseMs: 1_500 });
    await queue.enqueue(range(0), requestFor(range(0)));
    let reason: unknown;
    const { events, next } = startWorker({
      queue,
      owner: "w",
      prove: async (_, signal) => {
        reason = await aborted(signal);
        throw reason;
      },
    });
    await next("claimed");
    // What a re-claim after an expiry does to the row: a new lease token.
    const driver = rawDriver(database);
    await driver.query("UPDATE proof_jobs SET lease_token = $1", ["taken-over"]);
    await driver.close();
    expect((await next("lease-lost")).reason).toBe("refused");
    await until(async () => (reason === undefined ? undefined : true), "the abort");
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(events.some((event) => event.type === "completed" || event.type === "failed")).toBe(false);
    expect((await queue.get(range(0)))?.state).toBe("leased");
  });

  it("stop() aborts a running proof and gives the job back; drain() lets the running one finish", async () => {
    const { queue } = await open({ leaseMs: 10_000 });
    await queue.enqueue(range(0), requestFor(range(0)));
    let reason: unknown;
    const stopped = startWorker({
      queue,
      owner: "stopped",
      prove: async (_, signal) => {
        reason = await aborted(signal);
        throw reason;
      },
    });
    await stopped.next("claimed");
    await stopped.worker.stop();
    expect(reason).toBeInstanceOf(WorkerStoppingError);
    expect(stopped.events.map((event) => event.type)).toEqual(["claimed", "released"]);
    expect(await queue.get(range(0))).toMatchObject({ state: "queued", attempts: 0, lease: null });

    await queue.enqueue(range(10), requestFor(range(10)));
    let finish: (() => void) | undefined;
    const drained = startWorker({
      queue,
      owner: "drained",
      prove: async (job) => {
        await new Promise<void>((resolve) => (finish = resolve));
        return deterministicResult(job.request);
      },
    });
    await drained.next("claimed");
    const draining = drained.worker.drain();
    await until(async () => (finish === undefined ? undefined : true), "the proof to start");
    finish!();
    await draining;
    expect(drained.worker.running).toBe(0);
    expect((await queue.list()).map((job) => job.state)).toEqual(["succeeded", "queued"]);
  });
});

describe("proof worker on PostgreSQL that goes away", () => {
  it("stops a proof once no heartbeat got through for a whole lease, and proves the job again after the restart", async () => {
    const cluster = await databases.clusterStarted();
    const database = await databases.create("postgres");
    const queue = await openProofJobQueue({ ...database, options: { leaseMs: 1_000, backoffMs: 0 } });
    opened.push(queue);
    await queue.enqueue(range(0), requestFor(range(0)));
    const reasons: unknown[] = [];
    const { events, next } = startWorker({
      queue,
      owner: "w",
      prove: async (job, signal) => {
        if (job.attempts > 1) return deterministicResult(job.request);
        reasons.push(await aborted(signal));
        throw reasons[0];
      },
    });
    await next("claimed");
    await cluster.stopServer();
    try {
      expect((await next("lease-lost")).reason).toBe("expired-locally");
      expect(events.some((event) => event.type === "queue-error" && event.operation === "heartbeat")).toBe(
        true,
      );
    } finally {
      await cluster.startServer();
    }
    expect(reasons[0]).toBeInstanceOf(LeaseLostError);
    await until(
      async () => ((await queue.get(range(0)))?.state === "succeeded" ? true : undefined),
      "the result",
    );
    const job = (await queue.get(range(0)))!;
    expect(job.attempts).toBe(2);
    expect(job.error).toBe("the lease of w expired");
  });
});
