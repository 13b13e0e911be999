/** Driving one decided order (capturing or cancelling) to its transaction. */
import { RelaySimulationFailedError } from "../payments/index.js";
import type { Order } from "./order.js";
import type { Relayer } from "./relayer.js";
import type { OrderStore } from "./store/store.js";

/** Settles an order from the chain's logs (the Reconciler). */
export interface ChainSettler {
  settleFromChain(order: Order, note: string): Promise<unknown>;
}

/**
 * Sends the transaction of an order in capturing/cancelling (the caller holds its lock). A
 * simulation that reverts sends nothing: "used or canceled" is settled from the chain's logs (a
 * lost race is reported as what happened); any other reason fails the order with the token's words.
 */
export async function driveOrder(
  relayer: Relayer,
  reconciler: ChainSettler,
  store: OrderStore,
  order: Order,
  kind: "capture" | "cancel",
): Promise<void> {
  try {
    await relayer.submit(order, kind, order.state);
  } catch (error) {
    if (!(error instanceof RelaySimulationFailedError)) throw error;
    if (error.revert === "authorization-used-or-canceled") {
      await reconciler.settleFromChain(order, `simulation of our ${kind}: ${error.reason}`);
    } else {
      await store.transition({
        id: order.id,
        from: [order.state],
        to: "failed",
        patch: { note: `${kind} would revert, nothing was sent: ${error.reason}` },
      });
    }
  }
}
