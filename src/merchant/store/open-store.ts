/**
 * Picks the store: PostgreSQL when a DATABASE_URL is given, otherwise the SQLite file. The PostgreSQL store (and pg)
 * is imported only when it is the one configured: evaluating pg loads Node's fetch (its Cloudflare check builds a
 * `Response`), ~50 ms of CPU (more on a busy machine) in every process that starts on SQLite.
 */
import { SqliteOrderStore } from "./sqlite-store.js";
import type { OrderStore } from "./store.js";

export interface StoreConfig {
  /** postgres://... ; takes precedence over sqlitePath. */
  databaseUrl?: string;
  sqlitePath: string;
}

/** Opens and migrates the configured store. */
export async function openStore(config: StoreConfig): Promise<OrderStore> {
  const store: OrderStore =
    config.databaseUrl !== undefined && config.databaseUrl !== ""
      ? new (await import("./postgres-store.js")).PostgresOrderStore(config.databaseUrl)
      : new SqliteOrderStore(config.sqlitePath);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
