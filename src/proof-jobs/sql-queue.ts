/**
 * The queue's state machine in SQL, shared by both engines through a small driver: every transition is one
 * statement that re-checks the state it starts from, so it is atomic on its own (PostgreSQL row locks, SQLite's
 * single writer) and needs no transaction around it. Claims pick the lowest claimable range with
 * `FOR UPDATE SKIP LOCKED` on PostgreSQL, so concurrent claimers never wait on or take the same row. Heartbeats,
 * results, failures and releases name the job and the lease token of their claim and are refused once the lease has
 * expired or another claim replaced it.
 */
import { randomUUID } from "node:crypto";
import type { ProofRequest, ProofResult } from "../../generated/rpc/index.js";
import { JobVanishedError } from "./errors.js";
import {
  checkNamespace,
  checkRange,
  encodeRequest,
  encodeResult,
  type ProofJob,
  type ProofJobLease,
  PROOF_JOB_STATES,
  type ProofJobState,
  type QueuedRange,
} from "./job.js";
import {
  clampLimit,
  type EnqueueOutcome,
  type FailOptions,
  type FailOutcome,
  type ListQuery,
  type ProofJobQueue,
  type ProofJobQueueOptions,
  type QueueStats,
  type ResolvedQueueOptions,
  resolveQueueOptions,
} from "./queue.js";
import { jobFromRow, type ProofJobRow } from "./rows.js";
import { DEFAULT_NAMESPACE } from "./schema.js";

/** The range's key: its namespace (checked; default the proposer's), start and end, as `$1`, `$2`, `$3`. */
function rangeKey(range: QueuedRange): [string, bigint, bigint] {
  const namespace = range.namespace ?? DEFAULT_NAMESPACE;
  checkNamespace(namespace);
  return [namespace, range.startBlock, range.endBlock];
}

const RANGE_IS = "namespace = $1 AND start_block = $2 AND end_block = $3";

/** What differs between the engines' SQL. */
export interface SqlDialect {
  /** The database's clock, in milliseconds since the epoch, as an expression. */
  readonly nowMs: string;
  readonly least: "LEAST" | "MIN";
  readonly greatest: "GREATEST" | "MAX";
  /** Appended to the subquery that picks rows to change, so concurrent writers skip each other's rows. */
  readonly skipLocked: string;
}

/** One engine: runs a statement with `$1`, `$2`… placeholders (bigint values allowed) and returns its rows. */
export interface SqlDriver {
  readonly kind: "postgres" | "sqlite";
  readonly dialect: SqlDialect;
  query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]>;
  /** Runs the schema statements, serialised against other processes migrating at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/** Longest worker name and stored error message: both come from workers, which may be misconfigured. */
const MAX_OWNER_LENGTH = 200;
const MAX_ERROR_LENGTH = 4_000;

const LEASE_CLEARED = "lease_owner = NULL, lease_token = NULL, lease_expires_at_ms = NULL";

export class SqlProofJobQueue implements ProofJobQueue {
  readonly kind: "postgres" | "sqlite";
  readonly options: ResolvedQueueOptions;
  private readonly now: string;

  constructor(
    private readonly driver: SqlDriver,
    options: ProofJobQueueOptions = {},
  ) {
    this.kind = driver.kind;
    this.options = resolveQueueOptions(options);
    this.now = driver.dialect.nowMs;
  }

  migrate(): Promise<void> {
    return this.driver.migrate();
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  /**
   * The delay before attempt `attempts + 1`, doubling from `backoffMs` up to `maxBackoffMs`; params $a, $b. With
   * `afterExpiry`, the delay after an expired lease: none the first time (the job already waited out a whole lease
   * for its dead worker, so a killed worker delays its range by one lease), then doubling from `backoffMs` as after a
   * failure, so a range whose workers keep dying still backs off.
   */
  private backoff(base: string, max: string, afterExpiry = false): string {
    const { least, greatest } = this.driver.dialect;
    const doublings = afterExpiry ? "attempts - 2" : "attempts - 1";
    const delay = `${least}(CAST(${base} AS BIGINT) * (CAST(1 AS BIGINT) << ${least}(${greatest}(${doublings}, 0), 30)), CAST(${max} AS BIGINT))`;
    return afterExpiry ? `CASE WHEN attempts <= 1 THEN CAST(0 AS BIGINT) ELSE ${delay} END` : delay;
  }

  private async one(sql: string, params: readonly unknown[]): Promise<ProofJobRow | undefined> {
    const rows = await this.driver.query<ProofJobRow>(sql, params);
    return rows[0];
  }

  async enqueue(range: QueuedRange, request: ProofRequest): Promise<EnqueueOutcome> {
    checkRange(range, request);
    const inserted = await this.one(
      `INSERT INTO proof_jobs (namespace, start_block, end_block, request, state, attempts, available_at_ms, created_at_ms, updated_at_ms)
       VALUES ($1, $2, $3, $4, 'queued', 0, ${this.now}, ${this.now}, ${this.now})
       ON CONFLICT (namespace, start_block, end_block) DO NOTHING RETURNING *`,
      [...rangeKey(range), encodeRequest(request)],
    );
    if (inserted !== undefined) return { job: jobFromRow(inserted), created: true };
    const existing = await this.get(range);
    // Jobs are never deleted: the row that conflicted is still there unless someone removed it by hand.
    if (existing === null) throw new JobVanishedError(range);
    return { job: existing, created: false };
  }

  /**
   * Returns every expired lease to the queue (at once the first time, then after a backoff), or fails the job when
   * its attempts are spent.
   */
  private async reapExpiredLeases(): Promise<void> {
    await this.driver.query(
      `UPDATE proof_jobs SET
         state = CASE WHEN attempts >= $1 THEN 'failed' ELSE 'queued' END,
         available_at_ms = lease_expires_at_ms + ${this.backoff("$2", "$3", true)},
         error = 'the lease of ' || lease_owner || ' expired',
         finished_at_ms = CASE WHEN attempts >= $1 THEN ${this.now} ELSE NULL END,
         updated_at_ms = ${this.now}, ${LEASE_CLEARED}
       WHERE id IN (SELECT id FROM proof_jobs WHERE state = 'leased' AND lease_expires_at_ms <= ${this.now}${this.driver.dialect.skipLocked})
         AND state = 'leased' AND lease_expires_at_ms <= ${this.now}`,
      [this.options.maxAttempts, this.options.backoffMs, this.options.maxBackoffMs],
    );
  }

  async claim(owner: string): Promise<ProofJobLease | null> {
    const name = owner.slice(0, MAX_OWNER_LENGTH);
    await this.reapExpiredLeases();
    const token = randomUUID();
    const row = await this.one(
      `UPDATE proof_jobs SET state = 'leased', attempts = attempts + 1, lease_owner = $1, lease_token = $2,
         lease_expires_at_ms = ${this.now} + CAST($3 AS BIGINT), updated_at_ms = ${this.now}
       WHERE id = (SELECT id FROM proof_jobs WHERE state = 'queued' AND available_at_ms <= ${this.now}
                   ORDER BY start_block, id LIMIT 1${this.driver.dialect.skipLocked})
         AND state = 'queued'
       RETURNING *`,
      [name, token, this.options.leaseMs],
    );
    if (row === undefined) return null;
    const job = jobFromRow(row);
    return { job, owner: name, token, expiresAtMs: Number(row.lease_expires_at_ms) };
  }

  /** The condition that a lease is the job's current one and has not expired: params $1 (id) and $2 (token). */
  private readonly current = `id = $1 AND state = 'leased' AND lease_token = $2`;

  async heartbeat(lease: ProofJobLease): Promise<{ expiresAtMs: number } | null> {
    const rows = await this.driver.query<{ lease_expires_at_ms: number | string }>(
      `UPDATE proof_jobs SET lease_expires_at_ms = ${this.now} + CAST($3 AS BIGINT), updated_at_ms = ${this.now}
       WHERE ${this.current} AND lease_expires_at_ms > ${this.now} RETURNING lease_expires_at_ms`,
      [lease.job.id, lease.token, this.options.leaseMs],
    );
    const row = rows[0];
    return row === undefined ? null : { expiresAtMs: Number(row.lease_expires_at_ms) };
  }

  async complete(lease: ProofJobLease, result: ProofResult): Promise<boolean> {
    const rows = await this.driver.query(
      `UPDATE proof_jobs SET state = 'succeeded', result = $3, finished_at_ms = ${this.now},
         updated_at_ms = ${this.now}, ${LEASE_CLEARED}
       WHERE ${this.current} AND lease_expires_at_ms > ${this.now} RETURNING id`,
      [lease.job.id, lease.token, encodeResult(result)],
    );
    return rows.length === 1;
  }

  async fail(lease: ProofJobLease, error: string, options: FailOptions = {}): Promise<FailOutcome | null> {
    // A permanent failure spends every attempt: a limit of 0 is always reached.
    const spent = "attempts >= CAST($4 AS INTEGER)";
    const rows = await this.driver.query<{ state: "queued" | "failed"; available_at_ms: number | string }>(
      `UPDATE proof_jobs SET
         state = CASE WHEN ${spent} THEN 'failed' ELSE 'queued' END,
         available_at_ms = ${this.now} + ${this.backoff("$5", "$6")},
         finished_at_ms = CASE WHEN ${spent} THEN ${this.now} ELSE NULL END,
         error = $3, updated_at_ms = ${this.now}, ${LEASE_CLEARED}
       WHERE ${this.current} AND lease_expires_at_ms > ${this.now} RETURNING state, available_at_ms`,
      [
        lease.job.id,
        lease.token,
        error.slice(0, MAX_ERROR_LENGTH),
        options.permanent === true ? 0 : this.options.maxAttempts,
        this.options.backoffMs,
        this.options.maxBackoffMs,
      ],
    );
    const row = rows[0];
    return row === undefined ? null : { state: row.state, availableAtMs: Number(row.available_at_ms) };
  }

  async release(lease: ProofJobLease): Promise<boolean> {
    const rows = await this.driver.query(
      `UPDATE proof_jobs SET state = 'queued', attempts = attempts - 1, available_at_ms = ${this.now},
         updated_at_ms = ${this.now}, ${LEASE_CLEARED}
       WHERE ${this.current} RETURNING id`,
      [lease.job.id, lease.token],
    );
    return rows.length === 1;
  }

  async expireLeasesOf(owner: string): Promise<number> {
    const rows = await this.driver.query(
      `UPDATE proof_jobs SET
         state = CASE WHEN attempts >= $2 THEN 'failed' ELSE 'queued' END,
         available_at_ms = ${this.now} + ${this.backoff("$3", "$4", true)},
         error = 'the worker holding it (' || lease_owner || ') died',
         finished_at_ms = CASE WHEN attempts >= $2 THEN ${this.now} ELSE NULL END,
         updated_at_ms = ${this.now}, ${LEASE_CLEARED}
       WHERE state = 'leased' AND lease_owner = $1 RETURNING id`,
      [
        owner.slice(0, MAX_OWNER_LENGTH),
        this.options.maxAttempts,
        this.options.backoffMs,
        this.options.maxBackoffMs,
      ],
    );
    return rows.length;
  }

  async requeue(range: QueuedRange, request?: ProofRequest): Promise<ProofJob | null> {
    if (request !== undefined) checkRange(range, request);
    const row = await this.one(
      `UPDATE proof_jobs SET state = 'queued', attempts = 0, request = COALESCE($4, request), result = NULL,
         available_at_ms = ${this.now}, finished_at_ms = NULL, updated_at_ms = ${this.now}
       WHERE ${RANGE_IS} AND state IN ('failed', 'succeeded') RETURNING *`,
      [...rangeKey(range), request === undefined ? null : encodeRequest(request)],
    );
    return row === undefined ? null : jobFromRow(row);
  }

  async get(range: QueuedRange): Promise<ProofJob | null> {
    const row = await this.one(`SELECT * FROM proof_jobs WHERE ${RANGE_IS}`, rangeKey(range));
    return row === undefined ? null : jobFromRow(row);
  }

  async list(query: ListQuery = {}): Promise<ProofJob[]> {
    const params: unknown[] = [query.fromBlock ?? 0n];
    let where = "start_block >= $1";
    if (query.namespace !== undefined) {
      params.push(query.namespace);
      where += ` AND namespace = $${params.length}`;
    }
    if (query.states !== undefined) {
      const states = query.states.filter((state) => PROOF_JOB_STATES.includes(state));
      if (states.length === 0) return [];
      const placeholders = states.map((state) => {
        params.push(state);
        return `$${params.length}`;
      });
      where += ` AND state IN (${placeholders.join(", ")})`;
    }
    params.push(clampLimit(query.limit));
    const rows = await this.driver.query<ProofJobRow>(
      `SELECT * FROM proof_jobs WHERE ${where} ORDER BY start_block, id LIMIT $${params.length}`,
      params,
    );
    return rows.map(jobFromRow);
  }

  async stats(namespace?: string): Promise<QueueStats> {
    const rows = await this.driver.query<{
      state: ProofJobState;
      jobs: number | string;
      oldest_ms: number | string;
    }>(
      `SELECT state, COUNT(*) AS jobs, ${this.now} - MIN(created_at_ms) AS oldest_ms FROM proof_jobs
       ${namespace === undefined ? "" : "WHERE namespace = $1"} GROUP BY state`,
      namespace === undefined ? [] : [namespace],
    );
    const depth: Record<ProofJobState, number> = { queued: 0, leased: 0, succeeded: 0, failed: 0 };
    let oldestUnfinishedAgeMs: number | null = null;
    for (const row of rows) {
      depth[row.state] = Number(row.jobs);
      if (row.state === "queued" || row.state === "leased")
        oldestUnfinishedAgeMs = Math.max(oldestUnfinishedAgeMs ?? 0, Number(row.oldest_ms));
    }
    return { depth, oldestUnfinishedAgeMs };
  }
}
