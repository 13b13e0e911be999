/**
 * Methods the node serves beyond the node OpenRPC document, built from the same generated codecs:
 * eth_subscribe / eth_unsubscribe (websocket only: newHeads, logs, newFlashblocks),
 * eth_sendRawTransactionSync (waits for the pre-confirmation), eth_accounts and eth_syncing.
 * They belong in spec/typespec/node.tsp; until the spec has them they are declared here.
 */
import * as C from "../../../generated/rpc/codecs.js";
import { TransactionRejectedError } from "../../../generated/rpc/errors.js";
import { defineMethod } from "../../../generated/rpc/method-runtime.js";
import type * as T from "../../../generated/rpc/types.js";
import * as wire from "../../../generated/rpc/wire.js";
import { toHexRaw } from "../../chain/hex.js";
import { type BoundMethod, RpcError, bindMethod } from "../../rpc/index.js";
import { admitTransaction } from "../admission.js";
import type { ChainNode } from "../chain-node.js";
import { filterAddresses, logsOf } from "./handlers.js";
import { formatBlock, formatReceipt } from "./format.js";

export type SubscriptionKind = "newHeads" | "logs" | "newFlashblocks";

interface SubscribeParams {
  kind: SubscriptionKind;
  filter?: T.Filter;
}

export const eth_subscribe = defineMethod<SubscribeParams, string>({
  name: "eth_subscribe",
  paramStructure: "by-position",
  params: [
    {
      name: "kind",
      codec: wire.union(
        [wire.literal("newHeads"), wire.literal("logs"), wire.literal("newFlashblocks")],
        "newHeads, logs or newFlashblocks",
      ),
      required: true,
    },
    { name: "filter", codec: C.FilterCodec, required: false },
  ],
  result: wire.string,
});

export const eth_unsubscribe = defineMethod<{ id: string }, boolean>({
  name: "eth_unsubscribe",
  paramStructure: "by-position",
  params: [{ name: "id", codec: wire.string, required: true }],
  result: wire.boolean,
});

/** Default and maximum wait of eth_sendRawTransactionSync. */
export const SYNC_DEFAULT_TIMEOUT_MS = 6_000;
export const SYNC_MAX_TIMEOUT_MS = 60_000;

export const eth_sendRawTransactionSync = defineMethod<
  { transaction: T.Data; timeoutMs?: number },
  T.Receipt
>({
  name: "eth_sendRawTransactionSync",
  paramStructure: "by-position",
  params: [
    { name: "transaction", codec: C.DataCodec, required: true },
    { name: "timeoutMs", codec: wire.number, required: false },
  ],
  result: C.ReceiptCodec,
});

export const eth_accounts = defineMethod<Record<string, never>, T.Address[]>({
  name: "eth_accounts",
  paramStructure: "by-position",
  params: [],
  result: wire.array(C.AddressCodec),
});

export const eth_syncing = defineMethod<Record<string, never>, boolean>({
  name: "eth_syncing",
  paramStructure: "by-position",
  params: [],
  result: wire.boolean,
});

/** The transaction did not reach a pre-confirmation in time (EIP-7966's code 4). */
export class PreconfirmationTimeoutError extends RpcError {
  constructor(hashHex: string, ms: number) {
    super(4, `transaction 0x${hashHex} was not pre-confirmed within ${ms} ms; it stays in the pool`);
  }
}

export function extraMethods(node: ChainNode): BoundMethod[] {
  const seq = node.sequencer;
  return [
    bindMethod(eth_subscribe, ({ kind, filter }, ctx) => {
      const host = ctx.subscriptions;
      if (host === undefined)
        throw new RpcError(
          -32601,
          "eth_subscribe needs a websocket connection (notifications are not supported over HTTP)",
        );
      if (kind !== "logs" && filter !== undefined)
        throw new RpcError(-32602, `invalid params: ${kind} takes no filter`);
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
      } else {
        stop = seq.onSnapshot((p) => {
          subscription.push(p.message);
        });
      }
      return subscription.id;
    }),
    bindMethod(eth_unsubscribe, ({ id }, ctx) => ctx.subscriptions?.cancel(id) ?? false),
    bindMethod(eth_sendRawTransactionSync, async ({ transaction, timeoutMs }, ctx) => {
      const limit = timeoutMs ?? SYNC_DEFAULT_TIMEOUT_MS;
      if (!Number.isInteger(limit) || limit <= 0 || limit > SYNC_MAX_TIMEOUT_MS) {
        throw new RpcError(
          -32602,
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
          () => finish(() => reject(new PreconfirmationTimeoutError(toHexRaw(hash), limit))),
          limit,
        );
        const onAbort = () => finish(() => reject(new RpcError(-32000, "request aborted")));
        ctx.signal.addEventListener("abort", onAbort);
      });
    }),
    bindMethod(eth_accounts, () => []),
    bindMethod(eth_syncing, () => false),
  ];
}
