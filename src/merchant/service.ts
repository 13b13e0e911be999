/**
 * The order service: accepts signed authorizations as orders and carries out the merchant's
 * decisions (capture, void offchain, cancel onchain). Every decision is a compare-and-set on the
 * order's state committed before anything is broadcast; the transaction hash is committed (with
 * the signed transaction) before it is sent; replaying a decision returns the order as it is.
 */
import { randomUUID } from "node:crypto";
import { type Address, getAddress, type Hex, isAddressEqual } from "viem";
import {
  authorizationDigest,
  cancellationDigest,
  normaliseSignature,
  type PaymentAuthorization,
} from "../payments/index.js";
import type { MerchantChain } from "./chain.js";
import { driveOrder } from "./drive.js";
import {
  AuthorizationRejectedError,
  InvalidSignatureError,
  InvalidTransitionError,
  NonceAlreadyUsedError,
  OrderConflictError,
  OrderNotFoundError,
} from "./errors.js";
import type { OrderLocks } from "./order-locks.js";
import type { Order, OrderState } from "./order.js";
import type { Reconciler } from "./reconciler.js";
import type { Relayer } from "./relayer.js";
import type { ListOrdersQuery, OrderStore } from "./store/store.js";

/** A buyer's signed authorization, as submitted to create an order. */
export interface CreateOrderInput extends PaymentAuthorization {
  signature: Hex;
  /** When given, must be the service's token and chain (the domain the buyer signed for). */
  token?: Address;
  chainId?: bigint;
}

export interface DecisionResult {
  order: Order;
  /** False when the request replayed a decision already taken (nothing new happened). */
  changed: boolean;
}

export interface OrderServiceOptions {
  store: OrderStore;
  chain: MerchantChain;
  relayer: Relayer;
  reconciler: Reconciler;
  locks: OrderLocks;
  /** Address the authorizations must pay (defaults to the relayer). */
  payee: Address;
}

export class OrderService {
  private readonly store: OrderStore;
  private readonly chain: MerchantChain;
  private readonly relayer: Relayer;
  private readonly reconciler: Reconciler;
  private readonly locks: OrderLocks;
  readonly payee: Address;

  constructor(options: OrderServiceOptions) {
    this.store = options.store;
    this.chain = options.chain;
    this.relayer = options.relayer;
    this.reconciler = options.reconciler;
    this.locks = options.locks;
    this.payee = getAddress(options.payee);
  }

  /** Verifies the authorization against the token's domain and the chain, then stores it (idempotent). */
  async create(input: CreateOrderInput): Promise<DecisionResult> {
    const domain = await this.chain.domain();
    if (input.token !== undefined && !isAddressEqual(input.token, domain.verifyingContract)) {
      throw new AuthorizationRejectedError(
        "wrong_token",
        `this service accepts authorizations for token ${domain.verifyingContract}, not ${input.token}`,
      );
    }
    if (input.chainId !== undefined && input.chainId !== domain.chainId) {
      throw new AuthorizationRejectedError(
        "wrong_chain",
        `this service runs on chain ${domain.chainId}, not ${input.chainId}`,
      );
    }
    if (!isAddressEqual(input.to, this.payee)) {
      throw new AuthorizationRejectedError(
        "wrong_payee",
        `the authorization pays ${input.to}; this merchant is paid at ${this.payee}`,
      );
    }
    if (input.kind === "receive" && !isAddressEqual(input.to, this.chain.relayer)) {
      throw new AuthorizationRejectedError(
        "wrong_payee",
        `a ReceiveWithAuthorization must name the relayer ${this.chain.relayer} as payee (only the payee may submit it)`,
      );
    }
    if (input.validAfter >= input.validBefore) {
      throw new AuthorizationRejectedError("bad_window", "validAfter must be earlier than validBefore");
    }
    const authorization = {
      kind: input.kind,
      from: getAddress(input.from),
      to: getAddress(input.to),
      value: input.value,
      validAfter: input.validAfter,
      validBefore: input.validBefore,
      nonce: input.nonce.toLowerCase() as Hex,
    };
    const [verdict, head, used] = await Promise.all([
      this.chain.verifySignature(
        authorization.from,
        authorizationDigest(domain, authorization),
        input.signature,
      ),
      this.chain.head(),
      this.chain.authorizationUsed(authorization.from, authorization.nonce),
    ]);
    if (!verdict.valid) {
      throw new InvalidSignatureError(
        `the authorization signature is not valid for ${authorization.from} under token ${domain.verifyingContract} (${domain.name} v${domain.version}, chain ${domain.chainId})`,
        verdict.detail,
      );
    }
    const signature = signatureForStorage(input.signature);
    const key = { chainId: domain.chainId, token: domain.verifyingContract, ...authorization };
    const existing = await this.store.getOrderByKey({ ...key, authorizer: authorization.from });
    if (existing !== null)
      return { order: sameTermsOrThrow(existing, authorization, signature), changed: false };

    if (head.timestamp >= authorization.validBefore) {
      throw new AuthorizationRejectedError(
        "expired",
        `the authorization expired: block ${head.number} has timestamp ${head.timestamp} >= validBefore ${authorization.validBefore}`,
      );
    }
    if (used) throw new NonceAlreadyUsedError();
    const inserted = await this.store.insertOrder({
      id: randomUUID(),
      chainId: domain.chainId,
      token: domain.verifyingContract,
      authorizer: authorization.from,
      nonce: authorization.nonce,
      kind: authorization.kind,
      to: authorization.to,
      value: authorization.value,
      validAfter: authorization.validAfter,
      validBefore: authorization.validBefore,
      signature,
      createdBlock: head.number,
    });
    if (!inserted.created) {
      return { order: sameTermsOrThrow(inserted.order, authorization, signature), changed: false };
    }
    return { order: inserted.order, changed: true };
  }

  async get(id: string): Promise<Order> {
    const order = await this.store.getOrder(id);
    if (order === null) throw new OrderNotFoundError(id);
    return order;
  }

  list(query: ListOrdersQuery): Promise<Order[]> {
    return this.store.listOrders(query);
  }

  /** Offchain void: the signature will never be submitted by us. No transaction. */
  async void(id: string): Promise<DecisionResult> {
    const order = await this.get(id);
    const moved = await this.store.transition({ id, from: ["authorized"], to: "voided" });
    if (moved !== null) return { order: moved, changed: true };
    return this.replayOrThrow("void", order.id, ["voided", "expired"]);
  }

  /** Capture: authorized -> capturing (committed), then simulate, record, broadcast. */
  async capture(id: string): Promise<DecisionResult> {
    await this.get(id);
    const release = this.locks.acquire(id);
    try {
      const moved = await this.store.transition({ id, from: ["authorized"], to: "capturing" });
      if (moved === null) return await this.replayOrThrow("capture", id, ["capturing", "captured"]);
      return { order: await this.drive(moved, "capture"), changed: true };
    } finally {
      release();
    }
  }

  /** Onchain cancel with the buyer's signed CancelAuthorization: verified before anything else. */
  async cancel(id: string, cancelSignature: Hex): Promise<DecisionResult> {
    const order = await this.get(id);
    if (order.state === "cancelling" || order.state === "cancelled") return { order, changed: false };
    const domain = await this.chain.domain();
    const verdict = await this.chain.verifySignature(
      order.authorizer,
      cancellationDigest(domain, { from: order.authorizer, nonce: order.nonce }),
      cancelSignature,
    );
    if (!verdict.valid) {
      throw new InvalidSignatureError(
        `the cancellation must be signed by the authorizer ${order.authorizer}`,
        verdict.detail,
      );
    }
    const release = this.locks.acquire(id);
    try {
      const moved = await this.store.transition({
        id,
        from: ["authorized"],
        to: "cancelling",
        patch: { cancelSignature: signatureForStorage(cancelSignature) },
      });
      if (moved === null) return await this.replayOrThrow("cancel", id, ["cancelling", "cancelled"]);
      return { order: await this.drive(moved, "cancel"), changed: true };
    } finally {
      release();
    }
  }

  private async replayOrThrow(
    action: string,
    id: string,
    replayStates: readonly OrderState[],
  ): Promise<DecisionResult> {
    const current = await this.get(id);
    if (replayStates.includes(current.state)) return { order: current, changed: false };
    throw new InvalidTransitionError(action, current.state, id);
  }

  private async drive(order: Order, kind: "capture" | "cancel"): Promise<Order> {
    await driveOrder(this.relayer, this.reconciler, this.store, order, kind);
    this.reconciler.poke();
    return this.get(order.id);
  }
}

function signatureForStorage(signature: Hex): Hex {
  // ECDSA signatures are stored with v in {27, 28}; EIP-1271 signatures of other shapes as given.
  try {
    return normaliseSignature(signature);
  } catch {
    return signature.toLowerCase() as Hex;
  }
}

function sameTermsOrThrow(
  existing: Order,
  authorization: { kind: string; to: Address; value: bigint; validAfter: bigint; validBefore: bigint },
  signature: Hex,
): Order {
  const same =
    existing.kind === authorization.kind &&
    isAddressEqual(existing.to, authorization.to) &&
    existing.value === authorization.value &&
    existing.validAfter === authorization.validAfter &&
    existing.validBefore === authorization.validBefore &&
    existing.signature.toLowerCase() === signature.toLowerCase();
  if (!same) throw new OrderConflictError(existing.id);
  return existing;
}
