/**
 * The proof_jobs table for both engines. Times are milliseconds since the epoch from the database's own clock (so
 * machines sharing a PostgreSQL queue never compare their own clocks); block numbers fit in 53 bits. A range is
 * unique within its namespace (the proposer's ranges, one challenger's disputed intervals, …).
 *
 * Tables made before namespaces existed (one range per table, every job the proposer's) are upgraded in place:
 * their jobs join the proposer's namespace.
 */

/** The namespace of the proposer's ranges, and of every job a table made before namespaces held. */
export const DEFAULT_NAMESPACE = "proposer";

const COLUMNS = (id: string, int: string): string => `
  id ${id},
  namespace TEXT NOT NULL DEFAULT '${DEFAULT_NAMESPACE}',
  start_block ${int} NOT NULL,
  end_block ${int} NOT NULL,
  request TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'succeeded', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_token TEXT,
  lease_expires_at_ms ${int},
  available_at_ms ${int} NOT NULL,
  result TEXT,
  error TEXT,
  created_at_ms ${int} NOT NULL,
  updated_at_ms ${int} NOT NULL,
  finished_at_ms ${int},
  CHECK ((state = 'leased') = (lease_token IS NOT NULL)),
  CHECK ((state = 'succeeded') = (result IS NOT NULL))`;

const INDEXES = [
  "CREATE UNIQUE INDEX IF NOT EXISTS proof_jobs_range ON proof_jobs (namespace, start_block, end_block)",
  "CREATE INDEX IF NOT EXISTS proof_jobs_claimable ON proof_jobs (start_block, id) WHERE state = 'queued'",
  "CREATE INDEX IF NOT EXISTS proof_jobs_leases ON proof_jobs (lease_expires_at_ms) WHERE state = 'leased'",
  "CREATE INDEX IF NOT EXISTS proof_jobs_state ON proof_jobs (state, created_at_ms)",
];

/** Every statement is idempotent: an up-to-date table is left as it is, an older one gains the namespace. */
export const POSTGRES_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS proof_jobs (${COLUMNS("BIGSERIAL PRIMARY KEY", "BIGINT")})`,
  `ALTER TABLE proof_jobs ADD COLUMN IF NOT EXISTS namespace TEXT NOT NULL DEFAULT '${DEFAULT_NAMESPACE}'`,
  "ALTER TABLE proof_jobs DROP CONSTRAINT IF EXISTS proof_jobs_start_block_end_block_key",
  ...INDEXES,
];

const SQLITE_TABLE = `CREATE TABLE IF NOT EXISTS proof_jobs (${COLUMNS("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER")})`;

export const SQLITE_SCHEMA: readonly string[] = [SQLITE_TABLE, ...INDEXES];

/** Whether the SQLite table predates namespaces (no row: no table yet, or an up-to-date one). */
export const SQLITE_NEEDS_UPGRADE = `SELECT 1 AS old FROM sqlite_master WHERE type = 'table' AND name = 'proof_jobs'
  AND NOT EXISTS (SELECT 1 FROM pragma_table_info('proof_jobs') WHERE name = 'namespace')`;

const OLD_COLUMNS =
  "id, start_block, end_block, request, state, attempts, lease_owner, lease_token, lease_expires_at_ms, " +
  "available_at_ms, result, error, created_at_ms, updated_at_ms, finished_at_ms";

/**
 * SQLite cannot drop the old table's UNIQUE (start_block, end_block), so the table is rebuilt (in the caller's
 * transaction): the old one renamed and its indexes dropped, the new one made, the jobs copied with their ids.
 */
export const SQLITE_UPGRADE: readonly string[] = [
  "ALTER TABLE proof_jobs RENAME TO proof_jobs_before_namespaces",
  ...["proof_jobs_claimable", "proof_jobs_leases", "proof_jobs_state"].map(
    (index) => `DROP INDEX IF EXISTS ${index}`,
  ),
  SQLITE_TABLE,
  `INSERT INTO proof_jobs (${OLD_COLUMNS}) SELECT ${OLD_COLUMNS} FROM proof_jobs_before_namespaces`,
  "DROP TABLE proof_jobs_before_namespaces",
];
