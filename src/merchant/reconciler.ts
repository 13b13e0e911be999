/**
 * Settles orders from what the chain shows. Each pass, against the node's `safe` block (or `finalized`, by
 * configuration; on an OP chain `safe` is derived from batches on L1):
 * 0. blocks that left the chain: the hash stored beside the log cursor (a checkpoint) is compared with the chain's
 *    block at that height; when it differs, the newest checkpoint still on the chain is the fork point, every
 *    order settled in a block above it goes back to the state it was settled from (our attempts of it are
 *    checked again, and re-sent when their receipt is gone), and the cursor moves back to the fork point;
 * 1. our recorded attempts: a missing receipt means re-sending the same signed bytes (never a new
 *    transaction); a mined one is marked mined/reverted;
 * 2. the token's AuthorizationUsed / AuthorizationCanceled logs since the last pass: an order whose
 *    nonce was consumed becomes captured or cancelled, whoever sent the transaction (a buyer's own
 *    cancel, someone else's capture, or ours); a lost race is noted as what happened;
 * 3. reverted attempts with no consumption log fail their order with the reason;
 * 4. voided orders expire once the safe head's timestamp >= validBefore (strict rule; the nonce
 *    stays unused onchain);
 * 5. orders left in capturing/cancelling with no live attempt (a crash before the attempt was
 *    recorded, or a dropped transaction) are driven again.
 */
import type { Hash } from "viem";
import { isExpiredAt } from "../payments/index.js";
import type { ConsumptionLog, MerchantChain, SettleAt } from "./chain.js";
import type { Logger } from "../log/index.js";
import type { OrderLocks } from "./order-locks.js";
import {
  FINAL_STATES,
  IN_FLIGHT_STATES,
  type Attempt,
  type Order,
  type OrderState,
  WATCHED_STATES,
} from "./order.js";
import type { Relayer } from "./relayer.js";
import { driveOrder } from "./drive.js";
import type { OrderStore } from "./store/store.js";

export interface ReconcilerOptions {
  store: OrderStore;
  chain: MerchantChain;
  relayer: Relayer;
  locks: OrderLocks;
  logger: Logger;
  /** The block tag whose block settles orders: safe (default) or finalized. */
  settleAt?: SettleAt;
  /** Blocks per eth_getLogs request (default 5000). */
  maxLogRange?: bigint;
  /**
   * An attempt's receipt is looked up once it has been unchanged this long (default 1000 ms); the
   * log scan settles orders meanwhile. The first pass after start checks every attempt.
   */
  attemptCheckAfterMs?: number;
}

export interface ReconcileReport {
  safeHead: bigint;
  /** Orders moved back because the block that settled them left the chain. */
  rewound: number;
  settled: number;
  expired: number;
  rebroadcast: number;
  redriven: number;
}

export class Reconciler {
  private readonly store: OrderStore;
  private readonly chain: MerchantChain;
  private readonly relayer: Relayer;
  private readonly locks: OrderLocks;
  private readonly logger: Logger;
  readonly settleAt: SettleAt;
  private readonly maxLogRange: bigint;
  private readonly attemptCheckAfterMs: number;
  private recovered = false;
  private running: Promise<ReconcileReport> | undefined;
  private rerun = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(options: ReconcilerOptions) {
    this.store = options.store;
    this.chain = options.chain;
    this.relayer = options.relayer;
    this.locks = options.locks;
    this.logger = options.logger;
    this.settleAt = options.settleAt ?? "safe";
    this.maxLogRange = options.maxLogRange ?? 5000n;
    this.attemptCheckAfterMs = options.attemptCheckAfterMs ?? 1000;
  }

  /** Passes every `intervalMs` until stop(). */
  start(intervalMs: number): void {
    const loop = (): void => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.pass()
          .catch((error: unknown) => this.logger.warn({ err: error }, "reconcile pass failed"))
          .finally(loop);
      }, intervalMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Asks for a pass soon (after a request sent a transaction). */
  poke(): void {
    if (this.stopped) return;
    setImmediate(() => {
      this.pass().catch((error: unknown) => this.logger.warn({ err: error }, "reconcile pass failed"));
    });
  }

  /** One pass; concurrent callers share the running pass (and one more runs after it). */
  pass(): Promise<ReconcileReport> {
    if (this.running !== undefined) {
      this.rerun = true;
      return this.running;
    }
    this.running = this.runPass().finally(() => {
      this.running = undefined;
      if (this.rerun && !this.stopped) {
        this.rerun = false;
        this.poke();
      }
    });
    return this.running;
  }

  private async runPass(): Promise<ReconcileReport> {
    const report: ReconcileReport = {
      safeHead: 0n,
      rewound: 0,
      settled: 0,
      expired: 0,
      rebroadcast: 0,
      redriven: 0,
    };
    const sealed = await this.chain.blockAtTag(this.settleAt);
    const safeHead = sealed.number;
    report.safeHead = safeHead;
    const domain = await this.chain.domain();

    // 0. Blocks that left the chain.
    report.rewound = await this.rewindReplacedBlocks(domain.chainId, domain.verifyingContract);

    // 1. Our attempts.
    const reverted: { attempt: Attempt; block: bigint }[] = [];
    const checkBefore = this.recovered ? Date.now() - this.attemptCheckAfterMs : Number.POSITIVE_INFINITY;
    this.recovered = true;
    for (const attempt of await this.store.attemptsInStatus(["prepared", "broadcast"])) {
      if (attempt.updatedAt.getTime() > checkBefore) continue;
      const receipt = await this.chain.receipt(attempt.txHash);
      if (receipt === null) {
        const outcome = await this.relayer.rebroadcast(attempt.rawTransaction);
        if (outcome === "nonce-taken") {
          const late = await this.chain.receipt(attempt.txHash);
          if (late === null) {
            await this.store.setAttemptStatus(attempt.txHash, "dropped");
            this.logger.warn(
              { txHash: attempt.txHash, order: attempt.orderId },
              "attempt dropped: relayer nonce taken",
            );
          }
        } else {
          if (attempt.status === "prepared") await this.store.setAttemptStatus(attempt.txHash, "broadcast");
          if (outcome === "accepted") report.rebroadcast += 1;
        }
        continue;
      }
      if (receipt.blockNumber > safeHead) continue;
      await this.store.setAttemptStatus(attempt.txHash, receipt.status === "success" ? "mined" : "reverted");
      if (receipt.status === "reverted") reverted.push({ attempt, block: receipt.blockNumber });
    }

    // 2. Consumption logs since the cursor.
    const cursor = await this.store.getCursor(domain.chainId, domain.verifyingContract);
    let from = cursor === null ? 0n : cursor + 1n;
    while (from <= safeHead) {
      const to = from + this.maxLogRange - 1n < safeHead ? from + this.maxLogRange - 1n : safeHead;
      const hash = to === safeHead ? sealed.hash : await this.chain.blockHash(to);
      if (hash === null) break;
      const logs = await this.chain.consumptionLogs(from, to);
      // The logs belong to the block `hash` only if the chain still holds it: otherwise the next pass looks again.
      if ((await this.chain.blockHash(to)) !== hash) break;
      for (const log of logs) {
        if (await this.applyConsumption(log)) report.settled += 1;
      }
      await this.store.setCursor(domain.chainId, domain.verifyingContract, to, hash);
      from = to + 1n;
    }

    // 3. Reverted attempts whose order no log settled.
    for (const { attempt, block } of reverted) {
      const order = await this.store.getOrder(attempt.orderId);
      if (order === null || (order.state !== "capturing" && order.state !== "cancelling")) continue;
      if (order.txHash !== attempt.txHash) continue;
      await this.settleFromChain(order, `our ${attempt.kind} ${attempt.txHash} reverted`, safeHead);
      const after = await this.store.getOrder(order.id);
      if (after?.state === order.state) {
        await this.store.transition({
          id: order.id,
          from: [order.state],
          to: "failed",
          patch: {
            note: `our ${attempt.kind} ${attempt.txHash} reverted and the nonce is unused`,
            settledBlock: block.toString(),
            settledFrom: order.state,
          },
        });
      }
      report.settled += 1;
    }

    // 4. Expiry of voided orders on sealed chain time.
    for (const order of await this.store.ordersInStates(["voided"])) {
      if (!isExpiredAt(order, sealed.timestamp)) continue;
      const moved = await this.store.transition({
        id: order.id,
        from: ["voided"],
        to: "expired",
        patch: {
          note: `block ${sealed.number} timestamp ${sealed.timestamp} >= validBefore ${order.validBefore}; nonce unused`,
          settledBlock: sealed.number.toString(),
          settledFrom: "voided",
        },
      });
      if (moved !== null) report.expired += 1;
    }

    // 5. In-flight orders without a live attempt.
    for (const order of await this.store.ordersInStates(["capturing", "cancelling"])) {
      const release = this.locks.tryAcquire(order.id);
      if (release === null) continue;
      try {
        const attempts = await this.store.attemptsOf(order.id);
        if (attempts.some((a) => a.status !== "dropped")) continue;
        const current = await this.store.getOrder(order.id);
        if (current === null || (current.state !== "capturing" && current.state !== "cancelling")) continue;
        this.logger.info(
          { order: order.id, state: current.state },
          "re-driving an order with no live attempt",
        );
        await driveOrder(
          this.relayer,
          this,
          this.store,
          current,
          current.state === "capturing" ? "capture" : "cancel",
        );
        report.redriven += 1;
      } finally {
        release();
      }
    }
    return report;
  }

  /**
   * Step 0: when the block at the newest checkpoint is no longer the chain's, finds the newest checkpoint that
   * still is (the fork point; 0 when none is: everything is evaluated again), moves every order settled above it
   * back to the state it was settled from, and the cursor back to the fork point. Returns the orders moved.
   */
  private async rewindReplacedBlocks(chainId: bigint, token: string): Promise<number> {
    const checkpoints = await this.store.checkpoints(chainId, token);
    const newest = checkpoints[0];
    if (newest === undefined || (await this.chain.blockHash(newest.block)) === newest.hash) return 0;
    let fork = 0n;
    for (const checkpoint of checkpoints.slice(1)) {
      if ((await this.chain.blockHash(checkpoint.block)) === checkpoint.hash) {
        fork = checkpoint.block;
        break;
      }
    }
    if (fork === 0n)
      this.logger.error(
        { oldestCheckpoint: checkpoints.at(-1)?.block },
        "the chain changed below every stored checkpoint: every settled order is evaluated again",
      );
    else this.logger.warn({ replacedAbove: fork, was: newest }, "blocks left the chain: rewinding");
    let rewound = 0;
    for (const order of await this.store.ordersInStates([...FINAL_STATES, ...IN_FLIGHT_STATES])) {
      const reopened = order.settledBlock !== null && order.settledBlock > fork && order.settledFrom !== null;
      if (reopened) {
        const moved = await this.store.transition({
          id: order.id,
          from: [order.state],
          to: order.settledFrom as OrderState,
          patch: {
            settledTxHash: null,
            settledBlock: null,
            settledFrom: null,
            note: `block ${order.settledBlock} that settled it left the chain (replaced above block ${fork}): back to ${order.settledFrom}, evaluated again`,
          },
        });
        if (moved === null) continue;
        rewound += 1;
        this.logger.warn(
          { order: order.id, from: order.state, to: moved.state, block: order.settledBlock },
          "order rewound: its block left the chain",
        );
      } else if (!IN_FLIGHT_STATES.includes(order.state)) continue;
      // Our transactions for it are checked again (re-sent, the same bytes, when their receipt is gone).
      for (const attempt of await this.store.attemptsOf(order.id))
        if (attempt.status === "mined" || attempt.status === "reverted")
          await this.store.setAttemptStatus(attempt.txHash, "broadcast");
    }
    await this.store.rewindCursor(chainId, token, fork);
    return rewound;
  }

  /** Moves the order of a consumption log to what happened; true when it changed. */
  private async applyConsumption(log: ConsumptionLog): Promise<boolean> {
    const domain = await this.chain.domain();
    const order = await this.store.getOrderByKey({
      chainId: domain.chainId,
      token: domain.verifyingContract,
      authorizer: log.authorizer,
      nonce: log.nonce,
    });
    if (order === null) return false;
    return this.settle(order, log.kind, log.transactionHash, "", log.blockNumber);
  }

  /**
   * Looks up what consumed the order's nonce (from the order's creation block) and settles the
   * order to it. Leaves the order alone when the nonce is unused.
   */
  async settleFromChain(order: Order, context: string, toBlock?: bigint): Promise<boolean> {
    const last = toBlock ?? (await this.chain.blockAtTag(this.settleAt)).number;
    const consumer = await this.chain.consumer(order.authorizer, order.nonce, order.createdBlock, last);
    if (consumer === null) return false;
    return this.settle(order, consumer.kind, consumer.transactionHash, context, consumer.blockNumber);
  }

  private async settle(
    order: Order,
    kind: "used" | "canceled",
    txHash: Hash,
    context: string,
    block: bigint,
  ): Promise<boolean> {
    const to: OrderState = kind === "used" ? "captured" : "cancelled";
    const from = WATCHED_STATES.filter(
      (state) => state !== to && (to === "cancelled" || state !== "expired"),
    );
    // Cross-check with the token's own record before calling it final.
    if (!(await this.chain.authorizationUsed(order.authorizer, order.nonce))) return false;
    // The state it is settled from is recorded (a rewind returns to it): compare-and-set on that one state.
    let current: Order | null = order;
    for (let tries = 0; tries < 3 && current !== null && from.includes(current.state); tries++) {
      const moved = await this.store.transition({
        id: current.id,
        from: [current.state],
        to,
        patch: {
          settledTxHash: txHash,
          note: settlementNote(current, kind, txHash, context),
          settledBlock: block.toString(),
          settledFrom: current.state,
        },
      });
      if (moved !== null) {
        this.logger.info(
          { order: order.id, from: current.state, to, txHash },
          "order settled from the chain",
        );
        return true;
      }
      current = await this.store.getOrder(order.id);
    }
    return false;
  }
}

function settlementNote(order: Order, kind: "used" | "canceled", txHash: Hash, context: string): string {
  const ours = order.txHash !== null && order.txHash.toLowerCase() === txHash.toLowerCase();
  const what = kind === "used" ? "captured" : "cancelled";
  return ours
    ? `${what} by our transaction ${txHash}`
    : `${what} onchain by transaction ${txHash}, not ours${lostRace(order.state, kind)}${context === "" ? "" : ` (${context})`}`;
}

function lostRace(state: OrderState, kind: "used" | "canceled"): string {
  if (state === "cancelling" && kind === "used") return ": our cancel lost the race, the buyer paid";
  if (state === "capturing" && kind === "canceled") return ": our capture lost the race, the buyer cancelled";
  if (state === "voided" && kind === "used")
    return ": the voided authorization was captured by someone holding the signature";
  return "";
}
