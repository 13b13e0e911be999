/**
 * Orders of the merchant service: one order per (chainId, token, authorizer, nonce), holding the
 * buyer's signed authorization, and the state machine of docs/merchant.md:
 *
 *   authorized -> capturing -> captured
 *   authorized -> voided -> expired          (once a sealed block's timestamp >= validBefore)
 *   authorized -> cancelling -> cancelled
 *   * -> failed                              (the decision can no longer succeed)
 *
 * The chain is the arbiter: when the reconciler sees that the nonce was consumed by someone else
 * (a capture anyone submitted, a cancel the buyer relayed), the order moves to what actually
 * happened (captured or cancelled) from whatever non-final state it was in.
 */
import type { Address, Hash, Hex } from "viem";
import type { AuthorizationKind } from "../payments/index.js";

export const ORDER_STATES = [
  "authorized",
  "capturing",
  "captured",
  "voided",
  "expired",
  "cancelling",
  "cancelled",
  "failed",
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export function isOrderState(value: unknown): value is OrderState {
  return typeof value === "string" && (ORDER_STATES as readonly string[]).includes(value);
}

/** States no request moves an order out of. `expired` can still become cancelled if the buyer cancels the nonce onchain. */
export const FINAL_STATES: readonly OrderState[] = ["captured", "cancelled", "expired", "failed"];

/** States with a transaction of ours possibly in flight. */
export const IN_FLIGHT_STATES: readonly OrderState[] = ["capturing", "cancelling"];

/** States whose nonce the reconciler still watches onchain (anyone may consume it). */
export const WATCHED_STATES: readonly OrderState[] = [
  "authorized",
  "capturing",
  "voided",
  "cancelling",
  "failed",
  "expired",
];

/** Identity of an authorization: unique across orders. */
export interface OrderKey {
  chainId: bigint;
  token: Address;
  authorizer: Address;
  nonce: Hex;
}

export interface Order extends OrderKey {
  id: string;
  kind: AuthorizationKind;
  /** The payee. */
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  /** 65 bytes r | s | v (v in 27/28): the buyer's authorization signature. */
  signature: Hex;
  state: OrderState;
  /** Incremented by every transition: the compare-and-set witness. */
  version: number;
  /** The buyer's CancelAuthorization signature, stored with the move to `cancelling`. */
  cancelSignature: Hex | null;
  /** Our latest transaction for this order (recorded before it was broadcast). */
  txHash: Hash | null;
  /** The transaction that consumed the nonce onchain, whoever sent it. */
  settledTxHash: Hash | null;
  /** Why the order is failed, or how a lost race was resolved. */
  note: string | null;
  /**
   * The block whose contents moved the order to what the chain shows (captured, cancelled, expired, failed by a
   * reverted transaction), and the state it was in before: if that block leaves the chain the order goes back
   * to `settledFrom` and is evaluated again. Null for orders no block settled.
   */
  settledBlock: bigint | null;
  settledFrom: OrderState | null;
  /** Latest block when the order was accepted: nothing can have consumed the nonce at or before it. */
  createdBlock: bigint;
  createdAt: Date;
  updatedAt: Date;
}

/** What a new order is made of; the store assigns state `authorized`, version 1 and the timestamps. */
export type NewOrder = Omit<
  Order,
  | "state"
  | "version"
  | "cancelSignature"
  | "txHash"
  | "settledTxHash"
  | "note"
  | "settledBlock"
  | "settledFrom"
  | "createdAt"
  | "updatedAt"
>;

export type AttemptKind = "capture" | "cancel";
/**
 * prepared: signed and recorded, maybe not broadcast; broadcast: the node accepted it; mined:
 * receipt status success; reverted: receipt status failure; dropped: the node will never mine it
 * (its relayer nonce was taken by another transaction).
 */
export type AttemptStatus = "prepared" | "broadcast" | "mined" | "reverted" | "dropped";

/** The outbox: one row per transaction we signed for an order, committed before it is sent. */
export interface Attempt {
  txHash: Hash;
  orderId: string;
  kind: AttemptKind;
  relayer: Address;
  relayerNonce: number;
  rawTransaction: Hex;
  status: AttemptStatus;
  createdAt: Date;
  updatedAt: Date;
}

export type NewAttempt = Omit<Attempt, "status" | "createdAt" | "updatedAt">;

/** Fields a transition may set alongside the state (null clears a field). */
export interface TransitionPatch {
  cancelSignature?: Hex;
  txHash?: Hash;
  settledTxHash?: Hash | null;
  note?: string;
  /** Decimal block number. */
  settledBlock?: string | null;
  settledFrom?: OrderState | null;
}

export interface Transition {
  id: string;
  /** The states the order must be in for the transition to apply (compare-and-set). */
  from: readonly OrderState[];
  to: OrderState;
  patch?: TransitionPatch;
}

/** The transitions requests may make; the reconciler may also settle to what the chain shows. */
export const REQUEST_TRANSITIONS: Readonly<Record<"capture" | "void" | "cancel", readonly OrderState[]>> = {
  capture: ["authorized"],
  void: ["authorized"],
  cancel: ["authorized"],
};
