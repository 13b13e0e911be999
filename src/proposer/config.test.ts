/**
 * The proposer's queue flags (scheduler mode only with a queue, its twins, defaults and refusals) and its journal
 * version.
 */
import { describe, expect, it } from "vitest";
import { ProposerConfigError } from "./errors.js";
import { parseProposerCommandLine } from "./config.js";

const env = { PROPOSER_PRIVATE_KEY: `0x${"11".repeat(32)}` };
const flags = [
  ...["--l1-rpc-url", "http://127.0.0.1:8546", "--rollup-rpc-url", "http://127.0.0.1:8545"],
  ...["--prover-url", "http://127.0.0.1:7300", "--verifier", "0x5fbdb2315678afecb367f032d93f642f64180aa3"],
];

function config(argv: readonly string[], extraEnv: Record<string, string> = {}) {
  const parsed = parseProposerCommandLine([...flags, ...argv], { ...env, ...extraEnv });
  if (parsed.kind !== "run") throw new Error("expected a configuration");
  return parsed.config;
}

function refusedFlag(argv: readonly string[]): unknown {
  try {
    config(argv);
  } catch (error) {
    if (error instanceof ProposerConfigError) return error.details.flag;
    throw error;
  }
  throw new Error("not refused");
}

describe("proposer queue flags", () => {
  it("runs the direct mode without a queue, even with DATABASE_URL set", () => {
    expect(config([], { DATABASE_URL: "postgres://db/proofs" }).queue).toBeUndefined();
  });

  it("schedules on a PostgreSQL queue from the environment twin, four ranges ahead by default", () => {
    expect(config([], { PROPOSER_DATABASE_URL: "postgresql://db/proofs" }).queue).toEqual({
      databaseUrl: "postgresql://db/proofs",
      sqlitePath: undefined,
      proveAhead: 4,
      metricsListen: undefined,
    });
  });

  it("schedules on a SQLite queue with --prove-ahead and --metrics-listen", () => {
    const queue = config([
      ...["--job-queue-sqlite", "/tmp/jobs.db", "--prove-ahead", "7"],
      ...["--metrics-listen", "127.0.0.1:0"],
    ]).queue;
    expect(queue).toEqual({
      databaseUrl: undefined,
      sqlitePath: "/tmp/jobs.db",
      proveAhead: 7,
      metricsListen: { host: "127.0.0.1", port: 0 },
    });
  });

  it("refuses queue-only flags without a queue, a non-PostgreSQL URL and bad values", () => {
    expect(refusedFlag(["--prove-ahead", "2"])).toBe("prove-ahead");
    expect(refusedFlag(["--metrics-listen", "127.0.0.1:9000"])).toBe("metrics-listen");
    expect(refusedFlag(["--database-url", "mysql://db/proofs"])).toBe("database-url");
    expect(refusedFlag(["--job-queue-sqlite", "q.db", "--prove-ahead", "0"])).toBe("prove-ahead");
    expect(refusedFlag(["--job-queue-sqlite", "q.db", "--metrics-listen", "9000"])).toBe("metrics-listen");
    expect(refusedFlag(["--job-queue-sqlite", "q.db", "--metrics-listen", "h:70000"])).toBe("metrics-listen");
  });
});

describe("proposer --journal-version", () => {
  it("is the spec's by default, schedule-id from the flag or PROPOSER_JOURNAL_VERSION, in both modes", () => {
    expect(config([]).journalVersion).toBe("spec");
    expect(config(["--journal-version", "schedule-id"]).journalVersion).toBe("schedule-id");
    expect(
      config(["--job-queue-sqlite", "q.db"], { PROPOSER_JOURNAL_VERSION: "schedule-id" }).journalVersion,
    ).toBe("schedule-id");
  });

  it("refuses an unknown version", () => {
    expect(refusedFlag(["--journal-version", "v2"])).toBe("journal-version");
  });
});
