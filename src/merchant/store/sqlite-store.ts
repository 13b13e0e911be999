/**
 * The embedded store: one SQLite file through better-sqlite3 (WAL journal, synchronous=FULL so a
 * commit survives kill -9 and power loss). better-sqlite3 is synchronous; each method runs in one
 * SQLite transaction, so a compare-and-set cannot interleave with another.
 */
import Database from "better-sqlite3";
import type { Hash } from "viem";
import type * as model from "../order.js";
import type { ApiKeyRecord } from "../api-keys.js";
import * as table from "./rows.js";
import { StoreError } from "../errors.js";
import { ORDERS_ADDED_COLUMNS, SQLITE_SCHEMA } from "./schema.js";
import * as store from "./store.js";

function placeholders(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}

export class SqliteOrderStore implements store.OrderStore {
  readonly kind = "sqlite";
  private readonly db: Database.Database;

  /** `path` is a file path, or ":memory:" for a throwaway store. */
  constructor(
    readonly path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.pragma("foreign_keys = ON");
    this.db.pragma("busy_timeout = 5000");
  }

  migrate(): Promise<void> {
    this.db.transaction(() => {
      for (const statement of SQLITE_SCHEMA) this.db.prepare(statement).run();
      const existing = new Set(
        (this.db.prepare("PRAGMA table_info(orders)").all() as { name: string }[]).map((c) => c.name),
      );
      for (const [column, type] of ORDERS_ADDED_COLUMNS)
        if (!existing.has(column)) this.db.prepare(`ALTER TABLE orders ADD COLUMN ${column} ${type}`).run();
    })();
    return Promise.resolve();
  }

  insertOrder(order: model.NewOrder): Promise<store.InsertResult> {
    const run = this.db.transaction((): store.InsertResult => {
      const inserted = this.db
        .prepare(
          `INSERT INTO orders (${table.ORDER_COLUMNS}) VALUES (${placeholders(table.ORDER_COLUMN_COUNT)})
           ON CONFLICT (chain_id, token, authorizer, nonce) DO NOTHING`,
        )
        .run(...table.orderInsertValues(order, this.now()));
      const existing = this.selectByKey(order);
      if (existing === null)
        throw new StoreError("order vanished after insert", { details: { id: order.id } });
      return { order: existing, created: inserted.changes === 1 };
    });
    return Promise.resolve(run.immediate());
  }

  getOrder(id: string): Promise<model.Order | null> {
    const row = this.db.prepare(`SELECT ${table.ORDER_COLUMNS} FROM orders WHERE id = ?`).get(id) as
      table.OrderRow | undefined;
    return Promise.resolve(row === undefined ? null : table.orderFromRow(row));
  }

  private selectByKey(key: model.OrderKey): model.Order | null {
    const row = this.db
      .prepare(
        `SELECT ${table.ORDER_COLUMNS} FROM orders WHERE chain_id = ? AND token = ? AND authorizer = ? AND nonce = ?`,
      )
      .get(key.chainId.toString(), key.token, key.authorizer, key.nonce.toLowerCase()) as
      table.OrderRow | undefined;
    return row === undefined ? null : table.orderFromRow(row);
  }

  getOrderByKey(key: model.OrderKey): Promise<model.Order | null> {
    return Promise.resolve(this.selectByKey(key));
  }

  listOrders(query: store.ListOrdersQuery): Promise<model.Order[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.state !== undefined) {
      where.push("state = ?");
      params.push(query.state);
    }
    if (query.after !== undefined) {
      where.push("(created_at_ms, id) > (SELECT created_at_ms, id FROM orders WHERE id = ?)");
      params.push(query.after);
    }
    params.push(table.clampLimit(query.limit, store.MAX_LIST_LIMIT));
    const rows = this.db
      .prepare(
        `SELECT ${table.ORDER_COLUMNS} FROM orders ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY created_at_ms, id LIMIT ?`,
      )
      .all(...params) as table.OrderRow[];
    return Promise.resolve(rows.map(table.orderFromRow));
  }

  ordersInStates(states: readonly model.OrderState[]): Promise<model.Order[]> {
    if (states.length === 0) return Promise.resolve([]);
    const rows = this.db
      .prepare(
        `SELECT ${table.ORDER_COLUMNS} FROM orders WHERE state IN (${placeholders(states.length)}) ORDER BY created_at_ms, id`,
      )
      .all(...states) as table.OrderRow[];
    return Promise.resolve(rows.map(table.orderFromRow));
  }

  transition(transition: model.Transition): Promise<model.Order | null> {
    const run = this.db.transaction((): model.Order | null => {
      const current = this.db.prepare("SELECT state, version FROM orders WHERE id = ?").get(transition.id) as
        { state: string; version: number } | undefined;
      if (current === undefined || !(transition.from as readonly string[]).includes(current.state))
        return null;
      const now = this.now();
      const sets = ["state = ?", "version = version + 1", "updated_at_ms = ?"];
      const params: unknown[] = [transition.to, now];
      for (const [field, column] of table.PATCH_COLUMNS) {
        const value = transition.patch?.[field];
        if (value !== undefined) {
          sets.push(`${column} = ?`);
          params.push(value);
        }
      }
      const updated = this.db
        .prepare(
          `UPDATE orders SET ${sets.join(", ")} WHERE id = ? AND version = ? RETURNING ${table.ORDER_COLUMNS}`,
        )
        .get(...params, transition.id, current.version) as table.OrderRow | undefined;
      if (updated === undefined) return null;
      this.db
        .prepare(
          "INSERT INTO order_transitions (order_id, from_state, to_state, version, note, at_ms) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .run(
          transition.id,
          current.state,
          transition.to,
          updated.version,
          transition.patch?.note ?? null,
          now,
        );
      return table.orderFromRow(updated);
    });
    return Promise.resolve(run.immediate());
  }

  recordAttempt(attempt: model.NewAttempt, expectedState: model.OrderState): Promise<boolean> {
    const run = this.db.transaction((): boolean => {
      const now = this.now();
      const updated = this.db
        .prepare("UPDATE orders SET tx_hash = ?, updated_at_ms = ? WHERE id = ? AND state = ?")
        .run(attempt.txHash, now, attempt.orderId, expectedState);
      if (updated.changes !== 1) return false;
      this.db
        .prepare(
          `INSERT INTO attempts (${table.ATTEMPT_INSERT_COLUMNS}, status, created_at_ms, updated_at_ms)
           VALUES (?, ?, ?, ?, ?, ?, 'prepared', ?, ?)`,
        )
        .run(...table.attemptInsertValues(attempt), now, now);
      return true;
    });
    return Promise.resolve(run.immediate());
  }

  setAttemptStatus(txHash: Hash, status: model.AttemptStatus): Promise<void> {
    this.db
      .prepare("UPDATE attempts SET status = ?, updated_at_ms = ? WHERE tx_hash = ?")
      .run(status, this.now(), txHash);
    return Promise.resolve();
  }

  attemptsOf(orderId: string): Promise<model.Attempt[]> {
    const rows = this.db
      .prepare("SELECT * FROM attempts WHERE order_id = ? ORDER BY created_at_ms, relayer_nonce")
      .all(orderId) as table.AttemptRow[];
    return Promise.resolve(rows.map(table.attemptFromRow));
  }

  attemptsInStatus(statuses: readonly model.AttemptStatus[]): Promise<model.Attempt[]> {
    if (statuses.length === 0) return Promise.resolve([]);
    const rows = this.db
      .prepare(
        `SELECT * FROM attempts WHERE status IN (${placeholders(statuses.length)}) ORDER BY relayer, relayer_nonce`,
      )
      .all(...statuses) as table.AttemptRow[];
    return Promise.resolve(rows.map(table.attemptFromRow));
  }

  getCursor(chainId: bigint, token: string): Promise<bigint | null> {
    const row = this.db
      .prepare("SELECT last_block FROM reconciler_cursor WHERE chain_id = ? AND token = ?")
      .get(chainId.toString(), token) as { last_block: string } | undefined;
    return Promise.resolve(row === undefined ? null : BigInt(row.last_block));
  }

  setCursor(chainId: bigint, token: string, block: bigint, hash: Hash): Promise<void> {
    const [chain, number] = [chainId.toString(), block.toString()];
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO reconciler_cursor (chain_id, token, last_block) VALUES (?, ?, ?)
           ON CONFLICT (chain_id, token) DO UPDATE SET last_block = excluded.last_block`,
        )
        .run(chain, token, number);
      this.db
        .prepare(
          `INSERT INTO reconciler_checkpoints (chain_id, token, block, hash) VALUES (?, ?, ?, ?)
           ON CONFLICT (chain_id, token, block) DO UPDATE SET hash = excluded.hash`,
        )
        .run(chain, token, number, hash);
      this.db
        .prepare(
          `DELETE FROM reconciler_checkpoints WHERE chain_id = ? AND token = ? AND CAST(block AS INTEGER) <= ?`,
        )
        .run(chain, token, (block - BigInt(store.CHECKPOINTS_KEPT)).toString());
    })();
    return Promise.resolve();
  }

  checkpoints(chainId: bigint, token: string): Promise<store.Checkpoint[]> {
    const rows = this.db
      .prepare(
        `SELECT block, hash FROM reconciler_checkpoints WHERE chain_id = ? AND token = ?
         ORDER BY CAST(block AS INTEGER) DESC`,
      )
      .all(chainId.toString(), token) as { block: string; hash: string }[];
    return Promise.resolve(rows.map((row) => ({ block: BigInt(row.block), hash: row.hash as Hash })));
  }

  rewindCursor(chainId: bigint, token: string, block: bigint): Promise<void> {
    const [chain, number] = [chainId.toString(), block.toString()];
    this.db.transaction(() => {
      this.db
        .prepare("UPDATE reconciler_cursor SET last_block = ? WHERE chain_id = ? AND token = ?")
        .run(number, chain, token);
      this.db
        .prepare(
          "DELETE FROM reconciler_checkpoints WHERE chain_id = ? AND token = ? AND CAST(block AS INTEGER) > ?",
        )
        .run(chain, token, number);
    })();
    return Promise.resolve();
  }

  insertApiKey(key: ApiKeyRecord): Promise<void> {
    this.db
      .prepare(`INSERT INTO api_keys (${table.API_KEY_COLUMNS}) VALUES (${placeholders(6)})`)
      .run(...table.apiKeyInsertValues(key));
    return Promise.resolve();
  }

  getApiKey(id: string): Promise<ApiKeyRecord | null> {
    const row = this.db.prepare(`SELECT ${table.API_KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(id) as
      table.ApiKeyRow | undefined;
    return Promise.resolve(row === undefined ? null : table.apiKeyFromRow(row));
  }

  listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = this.db
      .prepare(`SELECT ${table.API_KEY_COLUMNS} FROM api_keys ORDER BY created_at_ms, id`)
      .all() as table.ApiKeyRow[];
    return Promise.resolve(rows.map(table.apiKeyFromRow));
  }

  endApiKey(id: string, at: Date): Promise<boolean> {
    const result = this.db
      .prepare("UPDATE api_keys SET ends_at_ms = MIN(COALESCE(ends_at_ms, ?), ?) WHERE id = ?")
      .run(at.getTime(), at.getTime(), id);
    return Promise.resolve(result.changes === 1);
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
