/**
 * The PostgreSQL engine (pg), which several machines share: a connection pool that reconnects by itself after the
 * server restarts (a query in flight then fails and the caller retries), times from the server's clock.
 */
import pg from "pg";
import { POSTGRES_SCHEMA } from "./schema.js";
import type { SqlDialect, SqlDriver } from "./sql-queue.js";

/** An arbitrary fixed key for the advisory lock that serialises migrations. */
const MIGRATION_LOCK = 7_340_112;

export interface PostgresDriverOptions {
  /** Pool size. Default 4: a worker holds at most one statement at a time per job. */
  readonly maxConnections?: number;
  /** Longest wait for a connection or a statement (ms), so a vanished server fails calls instead of hanging them. */
  readonly timeoutMs?: number;
}

export class PostgresDriver implements SqlDriver {
  readonly kind = "postgres";
  readonly dialect: SqlDialect = {
    nowMs: "CAST(EXTRACT(EPOCH FROM now()) * 1000 AS BIGINT)",
    least: "LEAST",
    greatest: "GREATEST",
    skipLocked: " FOR UPDATE SKIP LOCKED",
  };
  private readonly pool: pg.Pool;

  constructor(connectionString: string, options: PostgresDriverOptions = {}) {
    const timeoutMs = options.timeoutMs ?? 30_000;
    this.pool = new pg.Pool({
      connectionString,
      max: options.maxConnections ?? 4,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
    });
    // An idle connection dropped by a server restart must not crash the process; the next query reconnects.
    this.pool.on("error", () => undefined);
  }

  async query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    const values = params.map((value) => (typeof value === "bigint" ? value.toString() : value));
    const result = await this.pool.query(sql, values);
    return result.rows as Row[];
  }

  async migrate(): Promise<void> {
    // Statements sent as one query run as one transaction: the advisory lock is held (and released) with it, so
    // workers starting together do not race on CREATE … IF NOT EXISTS; a failure rolls all of it back.
    await this.pool.query(
      [`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`, ...POSTGRES_SCHEMA].join(";\n"),
    );
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
