/**
 * Test fixtures of the proof job queue: requests for a range, a deterministic stand-in for proving (the result is
 * a pure function of the request and a tag, so a test can tell which worker's result was stored), a SQLite or
 * PostgreSQL queue per test, and polling of the database for a condition.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProofRequest, ProofResult } from "../../generated/rpc/index.js";
import {
  startThrowawayCluster,
  type ThrowawayCluster,
} from "../../test/merchant/support/throwaway-cluster.js";
import type { ProofJob, ProofRange } from "./job.js";
import { openProofJobQueue } from "./open-queue.js";
import { PostgresDriver } from "./postgres-driver.js";
import type { ProofJobQueue, ProofJobQueueOptions } from "./queue.js";
import type { SqlDriver } from "./sql-queue.js";
import { SqliteDriver } from "./sqlite-driver.js";

const filled = (length: number, byte: number): Uint8Array => new Uint8Array(length).fill(byte & 0xff);

/** The range [start, start + length]. */
export const range = (startBlock: number, length = 10): ProofRange => ({
  startBlock: BigInt(startBlock),
  endBlock: BigInt(startBlock + length),
});

export function requestFor(range: ProofRange, l1HeadNumber = 100n): ProofRequest {
  const end = Number(range.endBlock);
  return {
    l1_head: filled(32, 0xa0 + end),
    l1_head_number: l1HeadNumber,
    agreed_l2_head_hash: filled(32, Number(range.startBlock)),
    agreed_l2_output_root: filled(32, 0x40 + Number(range.startBlock)),
    claimed_l2_output_root: filled(32, 0x40 + end),
    claimed_l2_block_number: range.endBlock,
    proposer: filled(20, 0x55),
    intermediate_block_interval: 2n,
  };
}

/** What "proving" a request yields in these tests: the claim signed with a signature made of `tag` bytes. */
export function deterministicResult(request: ProofRequest, tag = 1): ProofResult {
  const proposal = {
    output_root: request.claimed_l2_output_root,
    signature: filled(65, tag),
    l1_origin_hash: request.l1_head,
    l1_origin_number: request.l1_head_number,
    l2_block_number: request.claimed_l2_block_number,
    prev_output_root: request.agreed_l2_output_root,
    config_hash: filled(32, 0x77),
  };
  return { Tee: { aggregate_proposal: proposal, proposals: [proposal] } };
}

/** The tag a stored result was made with (see deterministicResult). */
export const resultTag = (job: ProofJob): number | undefined =>
  job.result?.Tee.aggregate_proposal.signature[0];

export type Backend = "sqlite" | "postgres";
export const BACKENDS: readonly Backend[] = ["sqlite", "postgres"];

/** Fresh databases per test: SQLite files in a temp folder, PostgreSQL databases in one throwaway cluster. */
export class QueueDatabases {
  private cluster: ThrowawayCluster | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), "proof-jobs-"));
  private count = 0;

  async clusterStarted(): Promise<ThrowawayCluster> {
    this.cluster ??= await startThrowawayCluster();
    return this.cluster;
  }

  /** A new, empty database of `backend`: what openProofJobQueue takes. */
  async create(backend: Backend): Promise<QueueDatabase> {
    this.count += 1;
    const sqlitePath = join(this.dir, `queue-${this.count}.db`);
    if (backend === "sqlite") return { sqlitePath };
    const cluster = await this.clusterStarted();
    return { databaseUrl: await cluster.createDatabase(`proof_jobs_${this.count}`), sqlitePath };
  }

  async open(backend: Backend, options?: ProofJobQueueOptions): Promise<ProofJobQueue> {
    return openProofJobQueue({ ...(await this.create(backend)), options });
  }

  async close(): Promise<void> {
    await this.cluster?.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface QueueDatabase {
  readonly databaseUrl?: string;
  readonly sqlitePath: string;
}

/** A connection of its own to a queue's database, for tests that change rows behind the queue's back. */
export const rawDriver = (database: QueueDatabase): SqlDriver =>
  database.databaseUrl === undefined
    ? new SqliteDriver(database.sqlitePath)
    : new PostgresDriver(database.databaseUrl);

/** Polls `probe` until it returns a value other than undefined; generous timeout for a loaded machine. */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
