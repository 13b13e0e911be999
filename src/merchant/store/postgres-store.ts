/**
 * The PostgreSQL store (pg), for merchants who outgrow one machine: the same schema and
 * guarantees as the SQLite store. A compare-and-set is one statement that locks the row
 * (`SELECT ... FOR UPDATE`), re-checks the state, updates it and appends the transition log, so
 * concurrent service instances on one database cannot both win a transition.
 */
import pg from "pg";
import type { Hash } from "viem";
import type * as model from "../order.js";
import type { ApiKeyRecord } from "../api-keys.js";
import * as table from "./rows.js";
import { StoreError } from "../errors.js";
import { ORDERS_ADDED_COLUMNS, POSTGRES_SCHEMA } from "./schema.js";
import * as store from "./store.js";

function numbered(count: number, start = 1): string {
  return Array.from({ length: count }, (_, i) => `$${i + start}`).join(", ");
}

/** An arbitrary fixed key for the advisory lock that serialises migrations. */
const MIGRATION_LOCK = 5_300_917;

export class PostgresOrderStore implements store.OrderStore {
  readonly kind = "postgres";
  private readonly pool: pg.Pool;

  constructor(
    connectionString: string,
    options: { maxConnections?: number } = {},
    private readonly now: () => number = Date.now,
  ) {
    this.pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 10 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on("error", () => undefined);
  }

  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      for (const statement of POSTGRES_SCHEMA) await client.query(statement);
      for (const [column, type] of ORDERS_ADDED_COLUMNS)
        await client.query(`ALTER TABLE orders ADD COLUMN IF NOT EXISTS ${column} ${type}`);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async insertOrder(order: model.NewOrder): Promise<store.InsertResult> {
    const inserted = await this.pool.query<table.OrderRow>(
      `INSERT INTO orders (${table.ORDER_COLUMNS}) VALUES (${numbered(table.ORDER_COLUMN_COUNT)})
       ON CONFLICT (chain_id, token, authorizer, nonce) DO NOTHING RETURNING ${table.ORDER_COLUMNS}`,
      table.orderInsertValues(order, this.now()),
    );
    const row = inserted.rows[0];
    if (row !== undefined) return { order: table.orderFromRow(row), created: true };
    const existing = await this.getOrderByKey(order);
    if (existing === null) throw new StoreError("conflicting order vanished", { details: { id: order.id } });
    return { order: existing, created: false };
  }

  async getOrder(id: string): Promise<model.Order | null> {
    const result = await this.pool.query<table.OrderRow>(
      `SELECT ${table.ORDER_COLUMNS} FROM orders WHERE id = $1`,
      [id],
    );
    const row = result.rows[0];
    return row === undefined ? null : table.orderFromRow(row);
  }

  async getOrderByKey(key: model.OrderKey): Promise<model.Order | null> {
    const result = await this.pool.query<table.OrderRow>(
      `SELECT ${table.ORDER_COLUMNS} FROM orders WHERE chain_id = $1 AND token = $2 AND authorizer = $3 AND nonce = $4`,
      [key.chainId.toString(), key.token, key.authorizer, key.nonce.toLowerCase()],
    );
    const row = result.rows[0];
    return row === undefined ? null : table.orderFromRow(row);
  }

  async listOrders(query: store.ListOrdersQuery): Promise<model.Order[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.state !== undefined) {
      params.push(query.state);
      where.push(`state = $${params.length}`);
    }
    if (query.after !== undefined) {
      params.push(query.after);
      where.push(`(created_at_ms, id) > (SELECT created_at_ms, id FROM orders WHERE id = $${params.length})`);
    }
    params.push(table.clampLimit(query.limit, store.MAX_LIST_LIMIT));
    const result = await this.pool.query<table.OrderRow>(
      `SELECT ${table.ORDER_COLUMNS} FROM orders ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY created_at_ms, id LIMIT $${params.length}`,
      params,
    );
    return result.rows.map(table.orderFromRow);
  }

  async ordersInStates(states: readonly model.OrderState[]): Promise<model.Order[]> {
    if (states.length === 0) return [];
    const result = await this.pool.query<table.OrderRow>(
      `SELECT ${table.ORDER_COLUMNS} FROM orders WHERE state = ANY($1::text[]) ORDER BY created_at_ms, id`,
      [states],
    );
    return result.rows.map(table.orderFromRow);
  }

  async transition(transition: model.Transition): Promise<model.Order | null> {
    const params: unknown[] = [
      transition.id,
      transition.from,
      transition.to,
      this.now(),
      transition.patch?.note ?? null,
    ];
    const sets = ["state = $3", "version = o.version + 1", "updated_at_ms = $4"];
    for (const [field, column] of table.PATCH_COLUMNS) {
      const value = transition.patch?.[field];
      if (value !== undefined) {
        params.push(value);
        sets.push(`${column} = $${params.length}`);
      }
    }
    const result = await this.pool.query<table.OrderRow>(
      `WITH prev AS (
         SELECT id, state FROM orders WHERE id = $1 AND state = ANY($2::text[]) FOR UPDATE
       ), upd AS (
         UPDATE orders o SET ${sets.join(", ")} FROM prev
         WHERE o.id = prev.id AND o.state = ANY($2::text[])
         RETURNING ${table.ORDER_COLUMNS.split(", ")
           .map((c) => `o.${c}`)
           .join(", ")}, prev.state AS prev_state
       ), log AS (
         INSERT INTO order_transitions (order_id, from_state, to_state, version, note, at_ms)
         SELECT id, prev_state, state, version, $5, $4 FROM upd
       )
       SELECT * FROM upd`,
      params,
    );
    const row = result.rows[0];
    return row === undefined ? null : table.orderFromRow(row);
  }

  async recordAttempt(attempt: model.NewAttempt, expectedState: model.OrderState): Promise<boolean> {
    const now = this.now();
    const result = await this.pool.query(
      `WITH upd AS (
         UPDATE orders SET tx_hash = $1, updated_at_ms = $7 WHERE id = $2 AND state = $8 RETURNING id
       )
       INSERT INTO attempts (${table.ATTEMPT_INSERT_COLUMNS}, status, created_at_ms, updated_at_ms)
       SELECT $1, id, $3, $4, $5, $6, 'prepared', $7, $7 FROM upd`,
      [...table.attemptInsertValues(attempt), now, expectedState],
    );
    return result.rowCount === 1;
  }

  async setAttemptStatus(txHash: Hash, status: model.AttemptStatus): Promise<void> {
    await this.pool.query("UPDATE attempts SET status = $1, updated_at_ms = $2 WHERE tx_hash = $3", [
      status,
      this.now(),
      txHash,
    ]);
  }

  async attemptsOf(orderId: string): Promise<model.Attempt[]> {
    const result = await this.pool.query<table.AttemptRow>(
      "SELECT * FROM attempts WHERE order_id = $1 ORDER BY created_at_ms, relayer_nonce",
      [orderId],
    );
    return result.rows.map(table.attemptFromRow);
  }

  async attemptsInStatus(statuses: readonly model.AttemptStatus[]): Promise<model.Attempt[]> {
    if (statuses.length === 0) return [];
    const result = await this.pool.query<table.AttemptRow>(
      "SELECT * FROM attempts WHERE status = ANY($1::text[]) ORDER BY relayer, relayer_nonce",
      [statuses],
    );
    return result.rows.map(table.attemptFromRow);
  }

  async getCursor(chainId: bigint, token: string): Promise<bigint | null> {
    const result = await this.pool.query<{ last_block: string }>(
      "SELECT last_block FROM reconciler_cursor WHERE chain_id = $1 AND token = $2",
      [chainId.toString(), token],
    );
    const row = result.rows[0];
    return row === undefined ? null : BigInt(row.last_block);
  }

  async setCursor(chainId: bigint, token: string, block: bigint, hash: Hash): Promise<void> {
    await this.pool.query(
      `WITH cursor AS (
         INSERT INTO reconciler_cursor (chain_id, token, last_block) VALUES ($1, $2, $3)
         ON CONFLICT (chain_id, token) DO UPDATE SET last_block = excluded.last_block
       ), pruned AS (
         DELETE FROM reconciler_checkpoints WHERE chain_id = $1 AND token = $2 AND CAST(block AS NUMERIC) <= CAST($5::text AS NUMERIC)
       )
       INSERT INTO reconciler_checkpoints (chain_id, token, block, hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chain_id, token, block) DO UPDATE SET hash = excluded.hash`,
      [
        chainId.toString(),
        token,
        block.toString(),
        hash,
        (block - BigInt(store.CHECKPOINTS_KEPT)).toString(),
      ],
    );
  }

  async checkpoints(chainId: bigint, token: string): Promise<store.Checkpoint[]> {
    const result = await this.pool.query<{ block: string; hash: string }>(
      `SELECT block, hash FROM reconciler_checkpoints WHERE chain_id = $1 AND token = $2
       ORDER BY CAST(block AS NUMERIC) DESC`,
      [chainId.toString(), token],
    );
    return result.rows.map((row) => ({ block: BigInt(row.block), hash: row.hash as Hash }));
  }

  async rewindCursor(chainId: bigint, token: string, block: bigint): Promise<void> {
    await this.pool.query(
      `WITH cursor AS (
         UPDATE reconciler_cursor SET last_block = $3::text WHERE chain_id = $1 AND token = $2
       )
       DELETE FROM reconciler_checkpoints
       WHERE chain_id = $1 AND token = $2 AND CAST(block AS NUMERIC) > CAST($3::text AS NUMERIC)`,
      [chainId.toString(), token, block.toString()],
    );
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO api_keys (${table.API_KEY_COLUMNS}) VALUES (${numbered(6)})`,
      table.apiKeyInsertValues(key),
    );
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | null> {
    const result = await this.pool.query<table.ApiKeyRow>(
      `SELECT ${table.API_KEY_COLUMNS} FROM api_keys WHERE id = $1`,
      [id],
    );
    const row = result.rows[0];
    return row === undefined ? null : table.apiKeyFromRow(row);
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const result = await this.pool.query<table.ApiKeyRow>(
      `SELECT ${table.API_KEY_COLUMNS} FROM api_keys ORDER BY created_at_ms, id`,
    );
    return result.rows.map(table.apiKeyFromRow);
  }

  async endApiKey(id: string, at: Date): Promise<boolean> {
    const result = await this.pool.query(
      "UPDATE api_keys SET ends_at_ms = LEAST(COALESCE(ends_at_ms, $1), $1) WHERE id = $2",
      [at.getTime(), id],
    );
    return result.rowCount === 1;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
