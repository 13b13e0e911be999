/** Picks the store: PostgreSQL when a DATABASE_URL is given, otherwise the SQLite file. */
import { PostgresOrderStore } from "./postgres-store.js";
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
      ? new PostgresOrderStore(config.databaseUrl)
      : new SqliteOrderStore(config.sqlitePath);
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
