/**
 * The proof_jobs table for both engines. Times are milliseconds since the epoch from the database's own clock (so
 * machines sharing a PostgreSQL queue never compare their own clocks); block numbers fit in 53 bits.
 */

const COLUMNS = (id: string, int: string): string => `
  id ${id},
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
  UNIQUE (start_block, end_block),
  CHECK ((state = 'leased') = (lease_token IS NOT NULL)),
  CHECK ((state = 'succeeded') = (result IS NOT NULL))`;

const INDEXES = [
  "CREATE INDEX IF NOT EXISTS proof_jobs_claimable ON proof_jobs (start_block, id) WHERE state = 'queued'",
  "CREATE INDEX IF NOT EXISTS proof_jobs_leases ON proof_jobs (lease_expires_at_ms) WHERE state = 'leased'",
  "CREATE INDEX IF NOT EXISTS proof_jobs_state ON proof_jobs (state, created_at_ms)",
];

export const POSTGRES_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS proof_jobs (${COLUMNS("BIGSERIAL PRIMARY KEY", "BIGINT")})`,
  ...INDEXES,
];

export const SQLITE_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS proof_jobs (${COLUMNS("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER")})`,
  ...INDEXES,
];
