/**
 * A proof worker as its own OS process, for the tests that kill one or run two against one queue. The proving is
 * the deterministic stand-in of fixtures.test-support.ts (what is tested is the queue and the worker loop): mode
 * `echo` proves in PROOF_JOBS_PROVE_MS and signs with PROOF_JOBS_TAG; mode `hang` never finishes (a worker to
 * kill -9 mid-proof). With PROOF_JOBS_HOLD_PEERS=n a proof starts only once n jobs are leased (or none is left
 * queued), so that every worker of a test gets a share. Every worker event is one JSON line on stdout; SIGTERM
 * stops the worker and exits.
 */
import { setTimeout } from "node:timers/promises";
import { deterministicResult } from "./fixtures.test-support.js";
import type { ProofJob } from "./job.js";
import { openProofJobQueue } from "./open-queue.js";
import { ProofWorker, type ProofWorkerEvent } from "./worker.js";

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const owner = env("PROOF_JOBS_OWNER");
const mode = env("PROOF_JOBS_MODE", "echo");
const proveMs = Number(env("PROOF_JOBS_PROVE_MS", "0"));
const holdPeers = Number(env("PROOF_JOBS_HOLD_PEERS", "0"));
const tag = Number(env("PROOF_JOBS_TAG", "1"));

const print = (line: Record<string, unknown>): void => {
  process.stdout.write(
    `${JSON.stringify(line, (_, value: unknown) => (typeof value === "bigint" ? value.toString() : value))}\n`,
  );
};

const queue = await openProofJobQueue({
  databaseUrl: process.env.PROOF_JOBS_DATABASE_URL,
  sqlitePath: env("PROOF_JOBS_SQLITE"),
  options: {
    leaseMs: Number(env("PROOF_JOBS_LEASE_MS")),
    backoffMs: Number(env("PROOF_JOBS_BACKOFF_MS", "100")),
    maxBackoffMs: Number(env("PROOF_JOBS_BACKOFF_MS", "100")),
  },
});

/** Resolves after `ms`; rejects (an AbortError) when the signal fires first. */
const wait = (ms: number, signal: AbortSignal): Promise<void> => setTimeout(ms, undefined, { signal });

async function prove(job: ProofJob, signal: AbortSignal) {
  if (mode === "hang") await wait(2 ** 31 - 1, signal);
  while (holdPeers > 0) {
    const { depth } = await queue.stats();
    if (depth.leased >= holdPeers || depth.queued === 0) break;
    await wait(25, signal);
  }
  await wait(proveMs, signal);
  return deterministicResult(job.request, tag);
}

const describeEvent = (event: ProofWorkerEvent): Record<string, unknown> =>
  event.type === "queue-error"
    ? { type: event.type, operation: event.operation, error: String(event.error) }
    : event;

const worker = new ProofWorker({
  queue,
  owner,
  prove,
  pollIntervalMs: 50,
  onEvent: (event) => print({ owner, ...describeEvent(event) }),
}).start();

process.once("SIGTERM", () => {
  void worker
    .stop()
    .then(() => queue.close())
    .then(() => process.exit(0));
});
print({ owner, type: "ready" });
