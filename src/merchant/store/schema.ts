/**
 * The schema, written once per SQL dialect with the same tables, columns and constraints.
 * uint256 values and block numbers are decimal TEXT (exact in both engines); times are epoch ms.
 */
const COMMON_ORDERS = `
  id TEXT PRIMARY KEY,
  chain_id TEXT NOT NULL,
  token TEXT NOT NULL,
  authorizer TEXT NOT NULL,
  nonce TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('transfer', 'receive')),
  payee TEXT NOT NULL,
  value TEXT NOT NULL,
  valid_after TEXT NOT NULL,
  valid_before TEXT NOT NULL,
  signature TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('authorized','capturing','captured','voided','expired','cancelling','cancelled','failed')),
  version INTEGER NOT NULL,
  cancel_signature TEXT,
  tx_hash TEXT,
  settled_tx_hash TEXT,
  note TEXT,
  settled_block TEXT,
  settled_from TEXT,
  created_block TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  UNIQUE (chain_id, token, authorizer, nonce)`;

const COMMON_ATTEMPTS = `
  tx_hash TEXT PRIMARY KEY,
  order_id TEXT NOT NULL REFERENCES orders(id),
  kind TEXT NOT NULL CHECK (kind IN ('capture', 'cancel')),
  relayer TEXT NOT NULL,
  relayer_nonce INTEGER NOT NULL,
  raw_tx TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('prepared','broadcast','mined','reverted','dropped')),
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL`;

const COMMON_CURSOR = `
  chain_id TEXT NOT NULL,
  token TEXT NOT NULL,
  last_block TEXT NOT NULL,
  PRIMARY KEY (chain_id, token)`;

/** Block hashes beside the cursor: the blocks the reconciler scanned up to, to notice when they leave the chain. */
const COMMON_CHECKPOINTS = `
  chain_id TEXT NOT NULL,
  token TEXT NOT NULL,
  block TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (chain_id, token, block)`;

/** Columns added to `orders` after its first version: added to an existing table when missing. */
export const ORDERS_ADDED_COLUMNS: readonly (readonly [string, string])[] = [
  ["settled_block", "TEXT"],
  ["settled_from", "TEXT"],
];

const COMMON_API_KEYS = `
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
  secret_sha256 TEXT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  ends_at_ms BIGINT`;

function statements(transitionId: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS orders (${COMMON_ORDERS})`,
    `CREATE INDEX IF NOT EXISTS orders_state ON orders (state)`,
    `CREATE INDEX IF NOT EXISTS orders_created ON orders (created_at_ms, id)`,
    `CREATE TABLE IF NOT EXISTS attempts (${COMMON_ATTEMPTS})`,
    `CREATE INDEX IF NOT EXISTS attempts_order ON attempts (order_id)`,
    `CREATE INDEX IF NOT EXISTS attempts_status ON attempts (status)`,
    `CREATE TABLE IF NOT EXISTS order_transitions (
      ${transitionId},
      order_id TEXT NOT NULL REFERENCES orders(id),
      from_state TEXT NOT NULL,
      to_state TEXT NOT NULL,
      version INTEGER NOT NULL,
      note TEXT,
      at_ms BIGINT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS reconciler_cursor (${COMMON_CURSOR})`,
    `CREATE TABLE IF NOT EXISTS api_keys (${COMMON_API_KEYS})`,
    `CREATE TABLE IF NOT EXISTS reconciler_checkpoints (${COMMON_CHECKPOINTS})`,
  ];
}

export const SQLITE_SCHEMA: readonly string[] = statements("id INTEGER PRIMARY KEY AUTOINCREMENT");
export const POSTGRES_SCHEMA: readonly string[] = statements("id BIGSERIAL PRIMARY KEY");
