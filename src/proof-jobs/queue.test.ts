/**
 * The queue's contract on real engines, the same cases on a SQLite file and on a throwaway PostgreSQL cluster: a
 * range enqueued once, atomic claims in range order, heartbeats, a late or duplicate result ignored, retries with
 * backoff, attempts running out, the queries a scheduler reads.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ProofRequestCodec } from "../../generated/rpc/index.js";
import {
  BACKENDS,
  deterministicResult,
  QueueDatabases,
  range,
  rawDriver,
  requestFor,
  resultTag,
  until,
} from "./fixtures.test-support.js";
import {
  CorruptJobError,
  InvalidQueueOptionsError,
  InvalidRangeError,
  UnsupportedDatabaseUrlError,
} from "./errors.js";
import type { QueuedRange } from "./job.js";
import { openProofJobQueue } from "./open-queue.js";
import { type ProofJobQueue, type ProofJobQueueOptions, results } from "./queue.js";

const databases = new QueueDatabases();
afterAll(() => databases.close());

describe.each(BACKENDS)("%s proof job queue", (backend) => {
  const queues: ProofJobQueue[] = [];
  const open = async (options?: ProofJobQueueOptions): Promise<ProofJobQueue> => {
    const queue = await databases.open(backend, options);
    queues.push(queue);
    return queue;
  };
  afterAll(async () => {
    await Promise.all(queues.map((queue) => queue.close()));
  });

  it("enqueues a range once, keeps its first request, and refuses a request for another block", async () => {
    const queue = await open();
    const first = await queue.enqueue(range(10), requestFor(range(10), 100n));
    expect(first.created).toBe(true);
    expect(first.job).toMatchObject({ state: "queued", attempts: 0, lease: null, result: null, error: null });
    expect(first.job.range).toEqual(range(10));
    expect(first.job.request).toEqual(requestFor(range(10), 100n));

    const again = await queue.enqueue(range(10), requestFor(range(10), 105n));
    expect(again.created).toBe(false);
    expect(again.job.id).toBe(first.job.id);
    expect(again.job.request.l1_head_number).toBe(100n);
    expect((await queue.list()).length).toBe(1);

    await expect(queue.enqueue(range(20), requestFor(range(21)))).rejects.toBeInstanceOf(InvalidRangeError);
    await expect(
      queue.enqueue({ startBlock: 5n, endBlock: 5n }, requestFor({ startBlock: 5n, endBlock: 5n })),
    ).rejects.toBeInstanceOf(InvalidRangeError);
  });

  it("claims atomically: concurrent claimers from two connections get each job once, lowest range first", async () => {
    const queue = await open();
    const target = await databases.create(backend);
    // Two processes starting together migrate the same empty database at once.
    const [a, b] = await Promise.all([openProofJobQueue(target), openProofJobQueue(target)]);
    queues.push(a, b);
    for (const start of [30, 10, 20]) await a.enqueue(range(start), requestFor(range(start)));
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).claim(`worker-${i}`)),
    );
    const won = claims.filter((claim) => claim !== null);
    expect(won.length).toBe(3);
    expect(new Set(won.map((claim) => claim.job.id)).size).toBe(3);
    expect(new Set(won.map((claim) => claim.token)).size).toBe(3);
    expect(won.every((claim) => claim.job.state === "leased" && claim.job.attempts === 1)).toBe(true);
    expect(await b.claim("late")).toBeNull();
    // One claimer alone takes the lowest range first.
    for (const start of [50, 40]) await queue.enqueue(range(start), requestFor(range(start)));
    expect((await queue.claim("solo"))?.job.range).toEqual(range(40));
    expect((await queue.claim("solo"))?.job.range).toEqual(range(50));
  });

  it("extends a lease by heartbeats, and a released job is claimable at once without spending an attempt", async () => {
    const queue = await open({ leaseMs: 60_000 });
    await queue.enqueue(range(0), requestFor(range(0)));
    const lease = await queue.claim("w1");
    expect(lease).not.toBeNull();
    if (lease === null) return;
    expect(lease.job.lease?.owner).toBe("w1");
    const renewed = await queue.heartbeat(lease);
    expect(renewed?.expiresAtMs).toBeGreaterThanOrEqual(lease.expiresAtMs);
    expect(await queue.claim("w2")).toBeNull();

    expect(await queue.release(lease)).toBe(true);
    expect(await queue.release(lease)).toBe(false);
    expect(await queue.heartbeat(lease)).toBeNull();
    const next = await queue.claim("w2");
    expect(next?.job.attempts).toBe(1);
    expect(next?.owner).toBe("w2");
  });

  it("ignores a late result from an expired lease that another worker re-claimed, and a duplicate result", async () => {
    const queue = await open({ leaseMs: 300, backoffMs: 0, maxBackoffMs: 0 });
    const { job } = await queue.enqueue(range(0), requestFor(range(0)));
    const first = await queue.claim("slow");
    expect(first).not.toBeNull();
    if (first === null) return;
    const second = await until(
      async () => (await queue.claim("fast")) ?? undefined,
      "the expired lease's re-claim",
    );
    expect(second.job.id).toBe(job.id);
    expect(second.job.attempts).toBe(2);
    expect(second.job.error).toBe("the lease of slow expired");

    expect(await queue.heartbeat(first)).toBeNull();
    expect(await queue.complete(first, deterministicResult(job.request, 1))).toBe(false);
    expect(await queue.fail(first, "late failure")).toBeNull();
    expect((await queue.get(range(0)))?.state).toBe("leased");

    // The current lease may also have expired by now on a loaded machine: renew it until the result is in.
    let current = second;
    while (!(await queue.complete(current, deterministicResult(job.request, 2)))) {
      current = await until(async () => (await queue.claim("fast")) ?? undefined, "a fresh lease");
    }
    expect(await queue.complete(current, deterministicResult(job.request, 3))).toBe(false);
    expect(await queue.complete(first, deterministicResult(job.request, 1))).toBe(false);
    const stored = await queue.get(range(0));
    expect(stored?.state).toBe("succeeded");
    expect(stored?.lease).toBeNull();
    expect(resultTag(stored!)).toBe(2);
    expect(stored?.result).toEqual(deterministicResult(job.request, 2));
    expect(stored?.finishedAtMs).not.toBeNull();
  });

  it("requeues a failed attempt after its backoff, fails the job once its attempts are spent or on a permanent error", async () => {
    const queue = await open({ maxAttempts: 2, backoffMs: 600_000, maxBackoffMs: 600_000 });
    await queue.enqueue(range(0), requestFor(range(0)));
    const lease = (await queue.claim("w"))!;
    const outcome = await queue.fail(lease, "enclave unreachable");
    expect(outcome?.state).toBe("queued");
    const job = (await queue.get(range(0)))!;
    expect(job.error).toBe("enclave unreachable");
    expect(job.availableAtMs - job.updatedAtMs).toBe(600_000);
    expect(await queue.claim("w")).toBeNull();
    expect(await queue.fail(lease, "twice")).toBeNull();

    const quick = await open({ maxAttempts: 2, backoffMs: 0, maxBackoffMs: 0 });
    await quick.enqueue(range(0), requestFor(range(0)));
    await quick.enqueue(range(10), requestFor(range(10)));
    const a1 = (await quick.claim("w"))!;
    expect((await quick.fail(a1, "one"))?.state).toBe("queued");
    const a2 = (await quick.claim("w"))!;
    expect(a2.job.id).toBe(a1.job.id);
    expect((await quick.fail(a2, "two"))?.state).toBe("failed");
    const b1 = (await quick.claim("w"))!;
    expect(b1.job.range).toEqual(range(10));
    expect((await quick.fail(b1, "bad request", { permanent: true }))?.state).toBe("failed");
    expect(await quick.claim("w")).toBeNull();
    const failed = await quick.list({ states: ["failed"] });
    expect(failed.map((j) => [j.attempts, j.error])).toEqual([
      [2, "two"],
      [1, "bad request"],
    ]);
  });

  it("returns a job whose first lease expired at once, and backs off after the next expiry", async () => {
    const queue = await open({ leaseMs: 200, backoffMs: 600_000, maxBackoffMs: 600_000 });
    await queue.enqueue(range(0), requestFor(range(0)));
    expect(await queue.claim("dies")).not.toBeNull();
    // The first expiry: the job has waited one lease for its dead worker and is claimable again with no backoff.
    const second = await until(
      async () => (await queue.claim("next")) ?? undefined,
      "the expired job's re-claim",
    );
    expect(second.job.attempts).toBe(2);
    expect(second.job.error).toBe("the lease of dies expired");
    // The second expiry backs off (10 minutes here): no claim while it waits.
    const backedOff = await until(async () => {
      expect(await queue.claim("other")).toBeNull();
      const job = await queue.get(range(0));
      return job?.state === "queued" ? job : undefined;
    }, "the second expired lease's requeue");
    expect(backedOff.error).toBe("the lease of next expired");
    expect(await queue.claim("other")).toBeNull();
  });

  it("ends at once the leases of a worker known dead, and only that worker's", async () => {
    const queue = await open({ leaseMs: 600_000, maxAttempts: 2, backoffMs: 600_000, maxBackoffMs: 600_000 });
    for (const n of [0, 1]) await queue.enqueue(range(n), requestFor(range(n)));
    const dead = (await queue.claim("host:41"))!;
    const alive = (await queue.claim("host:42"))!;
    expect(await queue.expireLeasesOf("host:41")).toBe(1);
    expect(await queue.expireLeasesOf("host:41")).toBe(0);
    // Claimable again at once (a first end, no backoff), attempts counted; the live worker's lease is untouched.
    const again = (await queue.claim("host:43"))!;
    expect(again.job.range.startBlock).toBe(dead.job.range.startBlock);
    expect(again.job.attempts).toBe(2);
    expect(again.job.error).toBe("the worker holding it (host:41) died");
    expect(await queue.heartbeat(alive)).not.toBeNull();
    expect(await queue.heartbeat(dead)).toBeNull();
    // Its attempts spent, the next death fails the job.
    expect(await queue.expireLeasesOf("host:43")).toBe(1);
    expect((await queue.get(range(0)))!.state).toBe("failed");
  });

  it("fails a job whose last allowed lease expired", async () => {
    const queue = await open({ leaseMs: 200, maxAttempts: 1 });
    await queue.enqueue(range(0), requestFor(range(0)));
    expect(await queue.claim("dies")).not.toBeNull();
    const failed = await until(async () => {
      expect(await queue.claim("other")).toBeNull();
      const job = await queue.get(range(0));
      return job?.state === "failed" ? job : undefined;
    }, "the job to fail");
    expect(failed.error).toBe("the lease of dies expired");
    expect(failed.attempts).toBe(1);
  });

  it("requeues a finished job, with a new request when given, and leaves a queued or leased one alone", async () => {
    const queue = await open({ maxAttempts: 1 });
    await queue.enqueue(range(0), requestFor(range(0), 100n));
    await queue.enqueue(range(10), requestFor(range(10)));
    const failing = (await queue.claim("w"))!;
    expect((await queue.fail(failing, "L1 head reorged"))?.state).toBe("failed");
    const succeeding = (await queue.claim("w"))!;
    expect(await queue.complete(succeeding, deterministicResult(succeeding.job.request))).toBe(true);

    const requeued = await queue.requeue(range(0), requestFor(range(0), 200n));
    expect(requeued).toMatchObject({ state: "queued", attempts: 0, result: null, finishedAtMs: null });
    expect(requeued?.request.l1_head_number).toBe(200n);
    expect(await queue.requeue(range(0))).toBeNull();
    expect((await queue.requeue(range(10)))?.request).toEqual(requestFor(range(10)));
    const again = (await queue.claim("w"))!;
    expect(again.job.range).toEqual(range(0));
    expect(again.job.attempts).toBe(1);
    expect(await queue.requeue(range(0))).toBeNull();
    expect(await queue.requeue(range(40))).toBeNull();
    await expect(queue.requeue(range(10), requestFor(range(20)))).rejects.toBeInstanceOf(InvalidRangeError);
  });

  it("refuses a stored request that does not decode, naming the job", async () => {
    const database = await databases.create(backend);
    const queue = await openProofJobQueue(database);
    queues.push(queue);
    const { job } = await queue.enqueue(range(0), requestFor(range(0)));
    const driver = rawDriver(database);
    await driver.query("UPDATE proof_jobs SET request = $1", ['{"l1_head":"0x12"}']);
    await driver.close();
    const error = await queue.get(range(0)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorruptJobError);
    expect(error).toMatchObject({ jobId: job.id, column: "request", kind: "corrupt-job" });
  });

  it("keeps namespaces apart: the same range is a job in each, and queries answer per namespace", async () => {
    const queue = await open({ leaseMs: 60_000 });
    const disputed = { ...range(0), namespace: "challenger:0xc0" };
    const proposed = await queue.enqueue(range(0), requestFor(range(0), 100n));
    const challenged = await queue.enqueue(disputed, requestFor(range(0), 200n));
    expect([proposed.created, challenged.created]).toEqual([true, true]);
    expect(challenged.job.id).not.toBe(proposed.job.id);
    expect([proposed.job.namespace, challenged.job.namespace]).toEqual(["proposer", "challenger:0xc0"]);
    expect((await queue.get(range(0)))?.request.l1_head_number).toBe(100n);
    expect((await queue.get(disputed))?.request.l1_head_number).toBe(200n);
    expect((await queue.list({ namespace: "challenger:0xc0" })).map((job) => job.id)).toEqual([
      challenged.job.id,
    ]);
    expect((await queue.list()).length).toBe(2);

    // Workers drain every namespace; a result lands in its own namespace's job only.
    const lease = (await queue.claim("w"))!;
    expect(await queue.complete(lease, deterministicResult(lease.job.request))).toBe(true);
    const finished = lease.job.namespace;
    const other: QueuedRange = finished === "proposer" ? disputed : range(0);
    expect((await queue.get(other))?.state).toBe("queued");
    expect((await queue.stats(finished)).depth).toMatchObject({ queued: 0, succeeded: 1 });
    expect((await queue.stats(other.namespace ?? "proposer")).depth).toMatchObject({
      queued: 1,
      succeeded: 0,
    });
    expect((await queue.stats()).depth).toMatchObject({ queued: 1, succeeded: 1 });
    expect((await queue.requeue({ ...range(0), namespace: finished }))?.namespace).toBe(finished);
    await expect(queue.enqueue({ ...range(0), namespace: "" }, requestFor(range(0)))).rejects.toBeInstanceOf(
      InvalidRangeError,
    );
  });

  it("upgrades a table made before namespaces: its jobs become the proposer's", async () => {
    const database = await databases.create(backend);
    const driver = rawDriver(database);
    const [id, int] =
      backend === "sqlite"
        ? ["INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER"]
        : ["BIGSERIAL PRIMARY KEY", "BIGINT"];
    await driver.query(
      `CREATE TABLE proof_jobs (id ${id}, start_block ${int} NOT NULL, end_block ${int} NOT NULL,
        request TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, lease_owner TEXT,
        lease_token TEXT, lease_expires_at_ms ${int}, available_at_ms ${int} NOT NULL, result TEXT, error TEXT,
        created_at_ms ${int} NOT NULL, updated_at_ms ${int} NOT NULL, finished_at_ms ${int},
        UNIQUE (start_block, end_block))`,
      [],
    );
    await driver.query(
      "CREATE INDEX proof_jobs_claimable ON proof_jobs (start_block, id) WHERE state = 'queued'",
      [],
    );
    await driver.query(
      `INSERT INTO proof_jobs (start_block, end_block, request, state, available_at_ms, created_at_ms, updated_at_ms)
       VALUES (0, 10, $1, 'queued', 0, 0, 0)`,
      [JSON.stringify(ProofRequestCodec.encode(requestFor(range(0))))],
    );
    await driver.close();
    const queue = await openProofJobQueue(database);
    queues.push(queue);
    const old = await queue.get(range(0));
    expect(old).toMatchObject({ namespace: "proposer", state: "queued", range: range(0) });
    expect(
      (await queue.enqueue({ ...range(0), namespace: "challenger:0xc0" }, requestFor(range(0)))).created,
    ).toBe(true);
    expect((await queue.enqueue(range(0), requestFor(range(0)))).job.id).toBe(old!.id);
    expect((await queue.claim("w"))?.job.id).toBe(old!.id);
    // Migrating again (another process starting) changes nothing.
    const again = await openProofJobQueue(database);
    queues.push(again);
    expect((await again.list()).length).toBe(2);
  });

  it("answers depth, job age, and results in range order", async () => {
    const queue = await open({ leaseMs: 60_000 });
    expect(await queue.stats()).toEqual({
      depth: { queued: 0, leased: 0, succeeded: 0, failed: 0 },
      oldestUnfinishedAgeMs: null,
    });
    for (const start of [40, 0, 20, 10, 30]) await queue.enqueue(range(start), requestFor(range(start)));
    const done: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const lease = (await queue.claim("w"))!;
      if (i !== 1) {
        expect(await queue.complete(lease, deterministicResult(lease.job.request))).toBe(true);
        done.push(Number(lease.job.range.startBlock));
      }
    }
    const stats = await queue.stats();
    expect(stats.depth).toEqual({ queued: 2, leased: 1, succeeded: 2, failed: 0 });
    expect(stats.oldestUnfinishedAgeMs).toBeGreaterThanOrEqual(0);
    expect(done).toEqual([0, 20]);
    expect((await results(queue, 0n)).map((job) => job.range.startBlock)).toEqual([0n, 20n]);
    expect((await results(queue, 1n)).map((job) => job.range.startBlock)).toEqual([20n]);
    expect((await queue.list({ fromBlock: 10n, limit: 2 })).map((job) => job.range.startBlock)).toEqual([
      10n,
      20n,
    ]);
    expect((await queue.list({ states: ["queued"] })).map((job) => job.range.startBlock)).toEqual([30n, 40n]);
    expect(await queue.list({ states: [] })).toEqual([]);
  });
});

describe("opening a proof job queue", () => {
  it("refuses a database URL that is not PostgreSQL, and bad options", async () => {
    await expect(
      openProofJobQueue({ databaseUrl: "mysql://db/jobs", sqlitePath: ":memory:" }),
    ).rejects.toBeInstanceOf(UnsupportedDatabaseUrlError);
    await expect(
      openProofJobQueue({ sqlitePath: ":memory:", options: { leaseMs: 0 } }),
    ).rejects.toBeInstanceOf(InvalidQueueOptionsError);
  });
});
