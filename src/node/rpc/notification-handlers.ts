/**
 * The node's subscriptions (part of the generated NodeHandlers): eth_subscribe / eth_unsubscribe (websocket
 * only: newHeads, logs, newPendingTransactions, newFlashblocks), pushed as the sequencer seals blocks, the
 * pool accepts transactions and snapshots are taken.
 */
import { BlockCodec, LogCodec, type NodeHandlers } from "../../../generated/rpc/index.js";
import { InvalidParamsError, RawJsonResult, RpcError } from "../../rpc/index.js";
import type { ChainNode } from "../chain-node.js";
import type { PendingSnapshot } from "../sequencer.js";
import type { StoredBlock } from "../store/block-store.js";
import { formatBlock } from "./format.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceFilterLimits } from "./limits.js";
import { filterAddresses, logsOf } from "./shared.js";

/**
 * eth_subscribe over HTTP (error SubscriptionsNeedWebsocket of spec/typespec/errors.tsp, -32601: a standard code, so the
 * codegen emits no class for it).
 */
export class SubscriptionsNeedWebsocketError extends RpcError {
  constructor() {
    super(-32601, "eth_subscribe needs a websocket connection (notifications are not supported over HTTP)");
  }
}

export type NotificationHandlers = Pick<NodeHandlers, "eth_subscribe" | "eth_unsubscribe">;

export function createNotificationHandlers(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): NotificationHandlers {
  const seq = node.sequencer;
  // A sealed block or snapshot is serialized once for all the subscriptions it is pushed to (a fan-out
  // to hundreds of subscriptions runs inside the sequencer's loop: docs/node.md "Block production under load").
  const headJson = lastOnly((b: StoredBlock) =>
    JSON.stringify(
      BlockCodec.encode(formatBlock(node.content({ kind: "sealed", block: b }), false, node.common)),
    ),
  );
  const snapshotJson = lastOnly((p: PendingSnapshot) => JSON.stringify(p.message));
  return {
    eth_subscribe: ({ kind, filter }, ctx) => {
      const host = ctx.subscriptions;
      if (host === undefined) throw new SubscriptionsNeedWebsocketError();
      if (kind !== "logs" && filter !== undefined)
        throw new InvalidParamsError(`invalid params: ${kind} takes no filter`);
      enforceFilterLimits(limits, filter);
      let stop: () => void = () => {};
      const subscription = host.open(() => stop());
      if (kind === "newHeads") {
        stop = seq.onSealed((b) => {
          subscription.push(new RawJsonResult(headJson(b)));
        });
      } else if (kind === "logs") {
        const addresses = filterAddresses(filter?.address);
        stop = seq.onSealed((b) => {
          for (const log of logsOf(node.content({ kind: "sealed", block: b }), addresses, filter?.topics)) {
            subscription.push(LogCodec.encode(log));
          }
        });
      } else if (kind === "newPendingTransactions") {
        stop = seq.pool.onAdded((tx) => {
          subscription.push(`0x${tx.hashHex}`);
        });
      } else {
        stop = seq.onSnapshot((p) => {
          subscription.push(new RawJsonResult(snapshotJson(p)));
        });
      }
      return subscription.id;
    },
    eth_unsubscribe: ({ subscriptionId }, ctx) => ctx.subscriptions?.cancel(subscriptionId) ?? false,
  };
}

/** `f` remembering its last argument's answer (each sealed block or snapshot is pushed to every subscription in turn). */
function lastOnly<K extends object>(f: (key: K) => string): (key: K) => string {
  let last: { key: K; value: string } | undefined;
  return (key) => {
    if (last?.key !== key) last = { key, value: f(key) };
    return last.value;
  };
}
