/**
 * Account state at any block (pending = the latest flashblock snapshot's state): balances, nonces (the
 * `pending` nonce counts the sender's pooled transactions), code, storage and EIP-1186 proofs.
 */
import type { NodeHandlers } from "../../../generated/rpc/index.js";
import { toHexRaw } from "../../chain/index.js";
import type { ChainNode } from "../chain-node.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceLimit } from "./limits.js";
import { resolveSelector, tagSnapshot } from "./shared.js";

export type StateHandlers = Pick<
  NodeHandlers,
  "eth_getBalance" | "eth_getTransactionCount" | "eth_getCode" | "eth_getStorageAt" | "eth_getProof"
>;

export function createStateHandlers(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): StateHandlers {
  return {
    eth_getBalance({ address, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      return node.stateOf(r).balance(address);
    },
    eth_getTransactionCount({ address, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      const nonce = node.stateOf(r).nonce(address);
      const isPendingTag =
        block === "pending" ||
        (typeof block === "object" &&
          !(block instanceof Uint8Array) &&
          "blockNumber" in block &&
          block.blockNumber === "pending");
      return isPendingTag ? node.sequencer.pool.pendingNonce(toHexRaw(address), nonce) : nonce;
    },
    eth_getCode({ address, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      return node.stateOf(r).code(address);
    },
    eth_getStorageAt({ address, slot, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      return node.stateOf(r).storage(address, slot);
    },
    eth_getProof({ address, storageKeys, block }, ctx) {
      enforceLimit(limits, "proofMaxKeys", storageKeys.length, "storage keys of one eth_getProof");
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      return node.stateOf(r).proof(address, storageKeys);
    },
  };
}
