/**
 * geth's txpool namespace over the node's pool: counts, contents and one-line summaries, with each
 * transaction classed as pending (executable now: consecutive from its sender's pending nonce) or
 * queued (behind a nonce gap).
 */
import { getAddress } from "viem";
import type { NodeHandlers } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { bytesEqual, toHex } from "../../chain/index.js";
import type { ChainNode } from "../chain-node.js";
import type { PooledTransaction } from "../pool.js";
import { formatTransaction } from "./format.js";

export type TxPoolHandlers = Pick<
  NodeHandlers,
  "txpool_status" | "txpool_content" | "txpool_contentFrom" | "txpool_inspect"
>;

/** geth's summary: `<to>: <value> wei + <gas> gas × <fee cap> wei`. */
function summary(tx: PooledTransaction): string {
  const body = tx.decoded.body;
  if (body.kind !== "signed") return "deposit";
  const to = body.tx.to === undefined ? "contract creation" : getAddress(toHex(body.tx.to.bytes));
  return `${to}: ${body.tx.value} wei + ${tx.gasLimit} gas × ${tx.feeCap} wei`;
}

/** Groups transactions by checksummed sender, then by decimal nonce. */
function bySenderAndNonce<V>(
  txs: readonly PooledTransaction[],
  value: (tx: PooledTransaction) => V,
): Record<string, Record<string, V>> {
  const out: Record<string, Record<string, V>> = Object.create(null);
  for (const tx of txs) {
    const sender = getAddress(toHex(tx.sender));
    (out[sender] ??= Object.create(null) as Record<string, V>)[tx.nonce.toString()] = value(tx);
  }
  return out;
}

function byNonce<V>(
  txs: readonly PooledTransaction[],
  value: (tx: PooledTransaction) => V,
): Record<string, V> {
  const out: Record<string, V> = Object.create(null);
  for (const tx of txs) out[tx.nonce.toString()] = value(tx);
  return out;
}

export function createTxPoolHandlers(node: ChainNode): TxPoolHandlers {
  const classify = () => {
    const state = node.admissionState();
    return node.producer.pool.classify((sender) => state.nonce(sender));
  };
  const full = (tx: PooledTransaction): T.Transaction => formatTransaction(tx.decoded, { sender: tx.sender });
  return {
    txpool_status: () => {
      const { pending, queued } = classify();
      return { pending: BigInt(pending.length), queued: BigInt(queued.length) };
    },
    txpool_content: () => {
      const { pending, queued } = classify();
      return { pending: bySenderAndNonce(pending, full), queued: bySenderAndNonce(queued, full) };
    },
    txpool_contentFrom: ({ address }) => {
      const { pending, queued } = classify();
      const from = (txs: PooledTransaction[]) => txs.filter((tx) => bytesEqual(tx.sender, address));
      return { pending: byNonce(from(pending), full), queued: byNonce(from(queued), full) };
    },
    txpool_inspect: () => {
      const { pending, queued } = classify();
      return { pending: bySenderAndNonce(pending, summary), queued: bySenderAndNonce(queued, summary) };
    },
  };
}
