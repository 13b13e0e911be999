/**
 * Opens the configured queue: PostgreSQL when a database URL is given (several machines), else a SQLite file. The
 * PostgreSQL driver (and pg) is imported only when it is the one configured: evaluating pg loads Node's fetch (its
 * Cloudflare check builds a `Response`), ~50 ms of CPU (more on a busy machine) in every host on SQLite.
 */
import { UnsupportedDatabaseUrlError } from "./errors.js";
import { type ProofJobQueue, type ProofJobQueueOptions, resolveQueueOptions } from "./queue.js";
import { SqlProofJobQueue } from "./sql-queue.js";
import { SqliteDriver } from "./sqlite-driver.js";

export interface ProofJobQueueConfig {
  /** `postgres://…` or `postgresql://…` (the `DATABASE_URL` convention); takes precedence over `sqlitePath`. */
  readonly databaseUrl?: string;
  /** The SQLite file of the embedded queue (":memory:" for one process). */
  readonly sqlitePath: string;
  readonly options?: ProofJobQueueOptions;
}

/** Opens and migrates the queue; closes it again if migrating fails. */
export async function openProofJobQueue(config: ProofJobQueueConfig): Promise<ProofJobQueue> {
  const options = resolveQueueOptions(config.options);
  const url = config.databaseUrl ?? "";
  let queue: ProofJobQueue;
  if (url !== "") {
    const scheme = url.slice(0, Math.max(0, url.indexOf(":")));
    if (scheme !== "postgres" && scheme !== "postgresql") throw new UnsupportedDatabaseUrlError(scheme);
    const { PostgresDriver } = await import("./postgres-driver.js");
    queue = new SqlProofJobQueue(new PostgresDriver(url), options);
  } else {
    queue = new SqlProofJobQueue(new SqliteDriver(config.sqlitePath), options);
  }
  try {
    await queue.migrate();
  } catch (error) {
    await queue.close().catch(() => undefined);
    throw error;
  }
  return queue;
}
