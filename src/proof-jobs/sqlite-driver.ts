/**
 * The SQLite engine (better-sqlite3), the embedded default for one machine: one file in WAL mode with
 * synchronous=FULL (a stored result survives kill -9 and power loss), shared by the processes of that machine
 * (SQLite's write lock serialises their statements; busy_timeout makes a writer wait its turn).
 */
import Database from "better-sqlite3";
import { SQLITE_NEEDS_UPGRADE, SQLITE_SCHEMA, SQLITE_UPGRADE } from "./schema.js";
import type { SqlDialect, SqlDriver } from "./sql-queue.js";

/** Rewrites `$1`, `$2`… placeholders (better-sqlite3 has no numbered ones) as `?` with the values in order. */
export function positional(sql: string, params: readonly unknown[]): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, index: string) => {
    values.push(params[Number(index) - 1]);
    return "?";
  });
  return { sql: text, values };
}

export class SqliteDriver implements SqlDriver {
  readonly kind = "sqlite";
  readonly dialect: SqlDialect = {
    nowMs: "CAST(unixepoch('subsec') * 1000 AS INTEGER)",
    least: "MIN",
    greatest: "MAX",
    skipLocked: "",
  };
  private readonly db: Database.Database;
  /** Prepared statements by their `$n` text. */
  private readonly statements = new Map<string, Database.Statement>();

  /** `path` is a file path, or ":memory:" for a queue of one process. */
  constructor(readonly path: string) {
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 10000");
  }

  query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    try {
      const { sql: text, values } = positional(sql, params);
      let statement = this.statements.get(sql);
      if (statement === undefined) {
        statement = this.db.prepare(text);
        this.statements.set(sql, statement);
      }
      if (statement.reader) return Promise.resolve(statement.all(...values) as Row[]);
      statement.run(...values);
      return Promise.resolve([]);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  migrate(): Promise<void> {
    try {
      this.db
        .transaction(() => {
          const old = this.db.prepare(SQLITE_NEEDS_UPGRADE).get() !== undefined;
          for (const statement of [...(old ? SQLITE_UPGRADE : []), ...SQLITE_SCHEMA])
            this.db.prepare(statement).run();
        })
        .immediate();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
