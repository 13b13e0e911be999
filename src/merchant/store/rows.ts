/** Row <-> record mapping shared by both stores: the same columns, uint256 values as decimal text. */
import type { Address, Hash, Hex } from "viem";
import type {
  Attempt,
  AttemptKind,
  AttemptStatus,
  NewAttempt,
  NewOrder,
  Order,
  OrderState,
} from "../order.js";
import type { AuthorizationKind } from "../../payments/index.js";
import type { ApiKeyRecord, ApiScope } from "../api-keys.js";

export interface OrderRow {
  id: string;
  chain_id: string;
  token: string;
  authorizer: string;
  nonce: string;
  kind: string;
  payee: string;
  value: string;
  valid_after: string;
  valid_before: string;
  signature: string;
  state: string;
  version: number;
  cancel_signature: string | null;
  tx_hash: string | null;
  settled_tx_hash: string | null;
  note: string | null;
  settled_block: string | null;
  settled_from: string | null;
  created_block: string;
  created_at_ms: string | number;
  updated_at_ms: string | number;
}

export interface AttemptRow {
  tx_hash: string;
  order_id: string;
  kind: string;
  relayer: string;
  relayer_nonce: number;
  raw_tx: string;
  status: string;
  created_at_ms: string | number;
  updated_at_ms: string | number;
}

export const ORDER_COLUMNS =
  "id, chain_id, token, authorizer, nonce, kind, payee, value, valid_after, valid_before, signature, " +
  "state, version, cancel_signature, tx_hash, settled_tx_hash, note, settled_block, settled_from, created_block, " +
  "created_at_ms, updated_at_ms";

/** How many columns ORDER_COLUMNS names (the insert's placeholders). */
export const ORDER_COLUMN_COUNT = ORDER_COLUMNS.split(",").length;

export function orderFromRow(row: OrderRow): Order {
  return {
    id: row.id,
    chainId: BigInt(row.chain_id),
    token: row.token as Address,
    authorizer: row.authorizer as Address,
    nonce: row.nonce as Hex,
    kind: row.kind as AuthorizationKind,
    to: row.payee as Address,
    value: BigInt(row.value),
    validAfter: BigInt(row.valid_after),
    validBefore: BigInt(row.valid_before),
    signature: row.signature as Hex,
    state: row.state as OrderState,
    version: Number(row.version),
    cancelSignature: row.cancel_signature as Hex | null,
    txHash: row.tx_hash as Hash | null,
    settledTxHash: row.settled_tx_hash as Hash | null,
    note: row.note,
    settledBlock: row.settled_block === null ? null : BigInt(row.settled_block),
    settledFrom: row.settled_from as OrderState | null,
    createdBlock: BigInt(row.created_block),
    createdAt: new Date(Number(row.created_at_ms)),
    updatedAt: new Date(Number(row.updated_at_ms)),
  };
}

/** Insert parameters in ORDER_COLUMNS order. */
export function orderInsertValues(order: NewOrder, nowMs: number): unknown[] {
  return [
    order.id,
    order.chainId.toString(),
    order.token,
    order.authorizer,
    order.nonce.toLowerCase(),
    order.kind,
    order.to,
    order.value.toString(),
    order.validAfter.toString(),
    order.validBefore.toString(),
    order.signature,
    "authorized",
    1,
    null,
    null,
    null,
    null,
    null,
    null,
    order.createdBlock.toString(),
    nowMs,
    nowMs,
  ];
}

export function attemptFromRow(row: AttemptRow): Attempt {
  return {
    txHash: row.tx_hash as Hash,
    orderId: row.order_id,
    kind: row.kind as AttemptKind,
    relayer: row.relayer as Address,
    relayerNonce: Number(row.relayer_nonce),
    rawTransaction: row.raw_tx as Hex,
    status: row.status as AttemptStatus,
    createdAt: new Date(Number(row.created_at_ms)),
    updatedAt: new Date(Number(row.updated_at_ms)),
  };
}

/** The columns a transition patch may set, in a fixed order. */
export const PATCH_COLUMNS = [
  ["cancelSignature", "cancel_signature"],
  ["txHash", "tx_hash"],
  ["settledTxHash", "settled_tx_hash"],
  ["note", "note"],
  ["settledBlock", "settled_block"],
  ["settledFrom", "settled_from"],
] as const;

export function clampLimit(limit: number, max: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) return 1;
  return Math.min(limit, max);
}

export interface ApiKeyRow {
  id: string;
  name: string;
  scope: string;
  secret_sha256: string;
  created_at_ms: string | number;
  ends_at_ms: string | number | null;
}

export const API_KEY_COLUMNS = "id, name, scope, secret_sha256, created_at_ms, ends_at_ms";

export function apiKeyFromRow(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope as ApiScope,
    secretHash: row.secret_sha256,
    createdAt: new Date(Number(row.created_at_ms)),
    endsAt: row.ends_at_ms === null ? null : new Date(Number(row.ends_at_ms)),
  };
}

/** The columns a new attempt sets besides its status and times. */
export const ATTEMPT_INSERT_COLUMNS = "tx_hash, order_id, kind, relayer, relayer_nonce, raw_tx";

/** Insert parameters in ATTEMPT_INSERT_COLUMNS order. */
export function attemptInsertValues(attempt: NewAttempt): unknown[] {
  return [
    attempt.txHash,
    attempt.orderId,
    attempt.kind,
    attempt.relayer,
    attempt.relayerNonce,
    attempt.rawTransaction,
  ];
}

/** Insert parameters in API_KEY_COLUMNS order. */
export function apiKeyInsertValues(key: ApiKeyRecord): unknown[] {
  return [
    key.id,
    key.name,
    key.scope,
    key.secretHash,
    key.createdAt.getTime(),
    key.endsAt?.getTime() ?? null,
  ];
}
