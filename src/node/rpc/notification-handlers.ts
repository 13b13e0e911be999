/**
 * The node's handlers that wait on the sequencer (part of the generated NodeHandlers):
 * eth_subscribe / eth_unsubscribe (websocket only: newHeads, logs, newPendingTransactions, newFlashblocks) and
 * eth_sendRawTransactionSync (answers once the transaction is pre-confirmed).
 */
import * as C from "../../../generated/rpc/codecs.js";
import { PreconfirmationTimeoutError, TransactionRejectedError } from "../../../generated/rpc/errors.js";
import type { NodeHandlers } from "../../../generated/rpc/node.js";
import type * as T from "../../../generated/rpc/types.js";
import { toHexRaw } from "../../chain/index.js";
import { InvalidParamsError, RpcError } from "../../rpc/index.js";
import { admitTransaction } from "../admission.js";
import type { ChainNode } from "../chain-node.js";
import { filterAddresses, logsOf } from "./handlers.js";
import { formatBlock, formatReceipt } from "./format.js";

/** Default and maximum wait of eth_sendRawTransactionSync. */
export const SYNC_DEFAULT_TIMEOUT_MS = 6_000;
export const SYNC_MAX_TIMEOUT_MS = 60_000;

/**
 * eth_subscribe over HTTP (spec error SubscriptionsNeedWebsocket, -32601: a standard code, so the
 * codegen emits no class for it).
 */
export class SubscriptionsNeedWebsocketError extends RpcError {
  constructor() {
    super(-32601, "eth_subscribe needs a websocket connection (notifications are not supported over HTTP)");
  }
}

export type NotificationHandlers = Pick<
  NodeHandlers,
  "eth_subscribe" | "eth_unsubscribe" | "eth_sendRawTransactionSync"
>;

export function createNotificationHandlers(node: ChainNode): NotificationHandlers {
  const seq = node.sequencer;
  return {
    eth_subscribe: ({ kind, filter }, ctx) => {
      const host = ctx.subscriptions;
      if (host === undefined) throw new SubscriptionsNeedWebsocketError();
      if (kind !== "logs" && filter !== undefined)
        throw new InvalidParamsError(`invalid params: ${kind} takes no filter`);
      let stop: () => void = () => {};
      const subscription = host.open(() => stop());
      if (kind === "newHeads") {
        stop = seq.onSealed((b) => {
          subscription.push(
            C.BlockCodec.encode(formatBlock(node.content({ kind: "sealed", block: b }), false, node.common)),
          );
        });
      } else if (kind === "logs") {
        const addresses = filterAddresses(filter?.address);
        stop = seq.onSealed((b) => {
          for (const log of logsOf(node.content({ kind: "sealed", block: b }), addresses, filter?.topics)) {
            subscription.push(C.LogCodec.encode(log));
          }
        });
      } else if (kind === "newPendingTransactions") {
        stop = seq.pool.onAdded((tx) => {
          subscription.push(`0x${tx.hashHex}`);
        });
      } else {
        stop = seq.onSnapshot((p) => {
          subscription.push(p.message);
        });
      }
      return subscription.id;
    },
    eth_unsubscribe: ({ subscriptionId }, ctx) => ctx.subscriptions?.cancel(subscriptionId) ?? false,
    eth_sendRawTransactionSync: async ({ transaction, timeoutMs }, ctx) => {
      const limit = timeoutMs ?? SYNC_DEFAULT_TIMEOUT_MS;
      if (!Number.isInteger(limit) || limit <= 0 || limit > SYNC_MAX_TIMEOUT_MS) {
        throw new InvalidParamsError(
          `invalid params: timeoutMs must be an integer between 1 and ${SYNC_MAX_TIMEOUT_MS}`,
        );
      }
      const pooled = admitTransaction(node, transaction);
      const hash = pooled.decoded.hash;
      return new Promise<T.Receipt>((resolve, reject) => {
        const finish = (fn: () => void) => {
          clearTimeout(timer);
          unsubscribe();
          ctx.signal.removeEventListener("abort", onAbort);
          fn();
        };
        const unsubscribe = seq.onSnapshot((p) => {
          const idx = p.snapshot.transactionHashes.findIndex((h) => toHexRaw(h) === pooled.hashHex);
          if (idx >= 0)
            finish(() => resolve(formatReceipt(node.content({ kind: "pending", pending: p }), idx)));
          else {
            const reason = seq.dropped.get(pooled.hashHex);
            if (reason !== undefined) finish(() => reject(new TransactionRejectedError(reason)));
          }
        });
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(
                new PreconfirmationTimeoutError(
                  `transaction 0x${toHexRaw(hash)} was not pre-confirmed within ${limit} ms; it stays in the pool`,
                ),
              ),
            ),
          limit,
        );
        const onAbort = () => finish(() => reject(new RpcError(-32000, "request aborted")));
        ctx.signal.addEventListener("abort", onAbort);
      });
    },
  };
}
