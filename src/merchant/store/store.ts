/**
 * Storage of orders and their transaction attempts behind one interface, with two
 * implementations of the same schema and guarantees: SQLite (better-sqlite3, the default) and
 * PostgreSQL (pg). Guarantees:
 * - (chainId, token, authorizer, nonce) is unique: inserting a second order for it returns the first;
 * - `transition` is a compare-and-set on the state, committed before it resolves;
 * - `recordAttempt` commits the signed transaction (and its hash on the order) before it resolves,
 *   so callers broadcast only what is already durable.
 */
import type { Hash } from "viem";
import type { ApiKeyStore } from "../api-keys.js";
import type {
  Attempt,
  AttemptStatus,
  NewAttempt,
  NewOrder,
  Order,
  OrderKey,
  OrderState,
  Transition,
} from "../order.js";

export interface ListOrdersQuery {
  state?: OrderState;
  /** At most this many (the store caps it at MAX_LIST_LIMIT). */
  limit: number;
  /** Keyset pagination: orders created after the order with this id (ordered by creation). */
  after?: string;
}

export const MAX_LIST_LIMIT = 500;

/** A block the reconciler scanned up to, with its hash then. */
export interface Checkpoint {
  block: bigint;
  hash: Hash;
}

/** Checkpoints kept per (chainId, token): how far back a replaced chain can be traced to the block it shares. */
export const CHECKPOINTS_KEPT = 256;

export interface InsertResult {
  order: Order;
  /** False when an order for the same (chainId, token, authorizer, nonce) already existed. */
  created: boolean;
}

/** Orders, their attempts and the reconciler's cursor; also the API keys (ApiKeyStore), in the same database. */
export interface OrderStore extends ApiKeyStore {
  /** "sqlite" or "postgres". */
  readonly kind: string;
  /** Creates the tables if missing. */
  migrate(): Promise<void>;
  insertOrder(order: NewOrder): Promise<InsertResult>;
  getOrder(id: string): Promise<Order | null>;
  getOrderByKey(key: OrderKey): Promise<Order | null>;
  listOrders(query: ListOrdersQuery): Promise<Order[]>;
  /** Every order in one of `states` (the reconciler's working set). */
  ordersInStates(states: readonly OrderState[]): Promise<Order[]>;
  /** Compare-and-set: applies when the order is in one of `from`; null otherwise. */
  transition(transition: Transition): Promise<Order | null>;
  /**
   * Records a signed transaction for an order and sets the order's txHash, atomically, provided the
   * order is still in `expectedState`; false (nothing written) otherwise.
   */
  recordAttempt(attempt: NewAttempt, expectedState: OrderState): Promise<boolean>;
  setAttemptStatus(txHash: Hash, status: AttemptStatus): Promise<void>;
  attemptsOf(orderId: string): Promise<Attempt[]>;
  /** Attempts in one of `statuses`, oldest relayer nonce first. */
  attemptsInStatus(statuses: readonly AttemptStatus[]): Promise<Attempt[]>;
  /** The last block whose token logs the reconciler has applied, per (chainId, token). */
  getCursor(chainId: bigint, token: string): Promise<bigint | null>;
  /**
   * Moves the cursor to `block` and stores its hash beside it (a checkpoint); only the newest CHECKPOINTS_KEPT
   * checkpoints are kept.
   */
  setCursor(chainId: bigint, token: string, block: bigint, hash: Hash): Promise<void>;
  /** The stored checkpoints, newest first. */
  checkpoints(chainId: bigint, token: string): Promise<Checkpoint[]>;
  /** Moves the cursor back to `block` and forgets the checkpoints above it (their blocks left the chain). */
  rewindCursor(chainId: bigint, token: string, block: bigint): Promise<void>;
  close(): Promise<void>;
}

export { StoreError } from "../errors.js";
