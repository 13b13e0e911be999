/** The host's --worker flags: the queue (DATABASE_URL or a SQLite file), lease, backoff, concurrency; refusals. */
import { describe, expect, it } from "vitest";
import { HostConfigError, parseHostCommandLine } from "./config.js";

const BASE = [
  ...["--l1-rpc-url", "http://127.0.0.1:8546", "--l2-rpc-url", "http://127.0.0.1:8545"],
  ...["--l2-chain-id", "8453", "--vsock-cid", "/tmp/e.sock"],
];

function worker(argv: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseHostCommandLine([...BASE, ...argv], env);
  if (parsed.kind !== "run") throw new Error("expected a configuration");
  return parsed.config.worker;
}

function refusedFlag(argv: readonly string[], env: NodeJS.ProcessEnv = {}): unknown {
  try {
    worker(argv, env);
  } catch (error) {
    if (error instanceof HostConfigError) return error.details.flag;
    throw error;
  }
  throw new Error("not refused");
}

describe("host --worker flags", () => {
  it("is no worker without --worker, even with DATABASE_URL set", () => {
    expect(worker([], { DATABASE_URL: "postgres://db/proofs" })).toBeUndefined();
  });

  it("takes the PostgreSQL queue from DATABASE_URL, with a 90 s lease, 5 s backoff and one job at once", () => {
    expect(worker(["--worker"], { DATABASE_URL: "postgres://db/proofs" })).toEqual({
      databaseUrl: "postgres://db/proofs",
      sqlitePath: undefined,
      concurrency: 1,
      leaseMs: 90_000,
      backoffMs: 5_000,
    });
  });

  it("reads the SQLite queue, lease, backoff and concurrency from flags or PROVER_ twins", () => {
    expect(
      worker([], {
        PROVER_WORKER: "1",
        PROVER_JOB_QUEUE_SQLITE: "/tmp/jobs.db",
        PROVER_JOB_LEASE: "8",
        PROVER_JOB_RETRY_BACKOFF: "0.5",
        PROVER_WORKER_CONCURRENCY: "2",
      }),
    ).toEqual({
      databaseUrl: undefined,
      sqlitePath: "/tmp/jobs.db",
      concurrency: 2,
      leaseMs: 8_000,
      backoffMs: 500,
    });
  });

  it("refuses a worker without a queue, a non-PostgreSQL URL and bad values", () => {
    expect(refusedFlag(["--worker"])).toBe("worker");
    expect(refusedFlag(["--worker", "--database-url", "sqlite:jobs.db"])).toBe("database-url");
    expect(refusedFlag(["--worker", "--job-queue-sqlite", "q.db", "--job-lease", "0"])).toBe("job-lease");
    expect(refusedFlag(["--worker", "--job-queue-sqlite", "q.db", "--worker-concurrency", "0"])).toBe(
      "worker-concurrency",
    );
  });
});
