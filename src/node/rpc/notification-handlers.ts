/**
 * The node's subscriptions (part of the generated NodeHandlers): eth_subscribe / eth_unsubscribe (websocket
 * only: newHeads, logs, newPendingTransactions, newFlashblocks), pushed as the sequencer seals blocks, the
 * pool accepts transactions and snapshots are taken.
 */
import { BlockCodec, LogCodec, type NodeHandlers } from "../../../generated/rpc/index.js";
import { InvalidParamsError, RawJsonResult, RpcError } from "../../rpc/index.js";
import type { ChainNode } from "../chain-node.js";
import type { PendingSnapshot } from "../block-in-progress.js";
import type { StoredBlock } from "../store/block-store.js";
import { formatBlock } from "./format.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceFilterLimits } from "./limits.js";
import { filterAddresses, logsOf, matchesFilter } from "./shared.js";

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
  const seq = node.producer;
  // A sealed block or snapshot is serialized once for all the subscriptions it is pushed to (a fan-out
  // to hundreds of subscriptions runs inside the sequencer's loop: docs/node/limits.md "Block production under load").
  const headJson = lastOnly((b: StoredBlock) =>
    JSON.stringify(
      BlockCodec.encode(formatBlock(node.content({ kind: "sealed", block: b }), false, node.common)),
    ),
  );
  const snapshotJson = lastOnly((p: PendingSnapshot) => JSON.stringify(p.message));
  // A sealed block's logs, formatted and serialized once for every `logs` subscription (each filters them).
  const blockLogs = lastOnly((b: StoredBlock) =>
    logsOf(node.content({ kind: "sealed", block: b }), undefined, undefined).map((log) => ({
      log,
      json: new RawJsonResult(JSON.stringify(LogCodec.encode(log))),
    })),
  );
  const fanout = new Fanout((error) =>
    node.options.logger.warn({ err: error }, "a subscription push failed"),
  );
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
          fanout.add(() => subscription.push(new RawJsonResult(headJson(b))));
        });
      } else if (kind === "logs") {
        const addresses = filterAddresses(filter?.address);
        stop = seq.onSealed((b) => {
          fanout.add(() => {
            for (const { log, json } of blockLogs(b))
              if (matchesFilter(log, addresses, filter?.topics)) subscription.push(json);
          });
        });
      } else if (kind === "newPendingTransactions") {
        stop = seq.pool.onAdded((tx) => {
          const hash = `0x${tx.hashHex}`;
          fanout.add(() => subscription.push(hash));
        });
      } else {
        stop = seq.onSnapshot((p) => {
          fanout.add(() => subscription.push(new RawJsonResult(snapshotJson(p))));
        });
      }
      return subscription.id;
    },
    eth_unsubscribe: ({ subscriptionId }, ctx) => ctx.subscriptions?.cancel(subscriptionId) ?? false,
  };
}

/** Most milliseconds one turn of the event loop spends pushing notifications. */
const FANOUT_SLICE_MS = 4;

/**
 * Pushes to subscriptions outside the sequencer's step, in slices of at most FANOUT_SLICE_MS between
 * turns of the event loop (docs/node/limits.md "Block production under load"): thousands of subscriptions (each
 * push is a websocket frame) no longer hold the sequencer's timers. Pushes run in the order they were
 * added, so each subscription sees its blocks and snapshots in order.
 */
class Fanout {
  private queue: (() => void)[] = [];
  private next = 0;
  private scheduled = false;

  constructor(private readonly onError: (error: unknown) => void) {}

  add(push: () => void): void {
    this.queue.push(push);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    const until = performance.now() + FANOUT_SLICE_MS;
    let n = 0;
    while (this.next < this.queue.length) {
      // One push is a frame or a few: read the clock every 16 of them.
      if (++n % 16 === 0 && performance.now() > until) break;
      try {
        this.queue[this.next++]!();
      } catch (error) {
        this.onError(error);
      }
    }
    if (this.next < this.queue.length) {
      setImmediate(() => this.drain());
      return;
    }
    this.queue = [];
    this.next = 0;
    this.scheduled = false;
  }
}

/** `f` remembering its last argument's answer (each sealed block or snapshot is pushed to every subscription in turn). */
function lastOnly<K extends object, V>(f: (key: K) => V): (key: K) => V {
  let last: { key: K; value: V } | undefined;
  return (key) => {
    if (last?.key !== key) last = { key, value: f(key) };
    return last.value;
  };
}
