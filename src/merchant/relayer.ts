/**
 * Sends our transactions for orders, one at a time per relayer account: simulate, sign with the
 * next relayer nonce, commit the attempt (raw transaction and hash, with the order's txHash) to
 * the store while the order is still in the expected state, and only then broadcast.
 */
import type { Hash } from "viem";
import { cancelAuthorizationCall, captureCall, splitSignature, type TokenCall } from "../payments/index.js";
import type { MerchantChain } from "./chain.js";
import { crashPoint } from "./crash-points.js";
import { OrderInvariantError } from "./errors.js";
import type { AttemptKind, Order, OrderState } from "./order.js";
import type { OrderStore } from "./store/store.js";

export interface SubmitResult {
  /** Null when the order left the expected state before the attempt was recorded (nothing sent). */
  txHash: Hash | null;
}

export class Relayer {
  private queue: Promise<unknown> = Promise.resolve();
  private nextNonce: number | undefined;

  constructor(
    private readonly chain: MerchantChain,
    private readonly store: OrderStore,
  ) {}

  private async callFor(order: Order, kind: AttemptKind): Promise<TokenCall> {
    const domain = await this.chain.domain();
    if (kind === "capture") {
      return captureCall(this.chain.token, {
        authorization: {
          kind: order.kind,
          from: order.authorizer,
          to: order.to,
          value: order.value,
          validAfter: order.validAfter,
          validBefore: order.validBefore,
          nonce: order.nonce,
        },
        domain,
        signature: order.signature,
        split: splitSignature(order.signature),
      });
    }
    if (order.cancelSignature === null) {
      throw new OrderInvariantError(`order ${order.id} has no cancellation signature`, { id: order.id });
    }
    return cancelAuthorizationCall(this.chain.token, {
      authorizer: order.authorizer,
      nonce: order.nonce,
      domain,
      signature: order.cancelSignature,
      split: splitSignature(order.cancelSignature),
    });
  }

  /** Runs `task` after every earlier submission of this process has finished. */
  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Simulates the order's capture or cancel (RelaySimulationFailedError when it would revert:
   * nothing is signed or sent), then records and broadcasts it.
   */
  async submit(order: Order, kind: AttemptKind, expectedState: OrderState): Promise<SubmitResult> {
    // Outside the serialized section: the simulation (nothing is signed when it reverts), gas and fees.
    const call = await this.callFor(order, kind);
    await this.chain.simulate(call);
    const [gas, fees] = await Promise.all([
      this.chain.gasLimit(call, order.authorizer),
      this.chain.feesPerGas(),
    ]);
    return this.serialize(async () => {
      const nonce = this.nextNonce ?? (await this.chain.pendingNonce());
      const signed = await this.chain.sign(call, nonce, gas, fees);
      const recorded = await this.store.recordAttempt(
        {
          txHash: signed.hash,
          orderId: order.id,
          kind,
          relayer: this.chain.relayer,
          relayerNonce: nonce,
          rawTransaction: signed.raw,
        },
        expectedState,
      );
      if (!recorded) return { txHash: null };
      // The nonce now belongs to a recorded transaction (re-sent by the reconciler if need be).
      this.nextNonce = nonce + 1;
      crashPoint("after-commit", kind);
      let outcome: Awaited<ReturnType<MerchantChain["broadcast"]>>;
      try {
        outcome = await this.chain.broadcast(signed.raw);
      } catch {
        // The node did not take it (unreachable, overloaded): the attempt stays recorded as
        // prepared and the reconciler re-sends the same bytes.
        return { txHash: signed.hash };
      }
      if (outcome === "nonce-taken") {
        // Someone else used this relayer nonce; the reconciler settles or re-drives the attempt.
        this.nextNonce = undefined;
        return { txHash: signed.hash };
      }
      await this.store.setAttemptStatus(signed.hash, "broadcast");
      crashPoint("after-broadcast", kind);
      return { txHash: signed.hash };
    });
  }

  /** Forgets the local relayer nonce (re-read from the node before the next transaction). */
  resyncNonce(): void {
    this.nextNonce = undefined;
  }

  /** Re-sends a recorded transaction (same bytes, same hash: never a second transaction). */
  rebroadcast(raw: `0x${string}`): ReturnType<MerchantChain["broadcast"]> {
    return this.serialize(() => this.chain.broadcast(raw));
  }
}
