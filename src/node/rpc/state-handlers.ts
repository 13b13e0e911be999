/**
 * Account state at any block (pending = the latest flashblock snapshot's state): balances, nonces (the
 * `pending` nonce counts the sender's pooled transactions), code, storage and EIP-1186 proofs.
 */
import { LimitExceededError, type NodeHandlers } from "../../../generated/rpc/index.js";
import { toHexRaw } from "../../chain/index.js";
import type { ChainNode } from "../chain-node.js";
import { resolveSelector, tagSnapshot } from "./shared.js";

/** Storage keys one eth_getProof may ask for. */
export const MAX_PROOF_STORAGE_KEYS = 1024;

export type StateHandlers = Pick<
  NodeHandlers,
  "eth_getBalance" | "eth_getTransactionCount" | "eth_getCode" | "eth_getStorageAt" | "eth_getProof"
>;

export function createStateHandlers(node: ChainNode): StateHandlers {
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
      if (storageKeys.length > MAX_PROOF_STORAGE_KEYS) {
        throw new LimitExceededError(
          `query exceeds the limit: at most ${MAX_PROOF_STORAGE_KEYS} storage keys per eth_getProof`,
        );
      }
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      return node.stateOf(r).proof(address, storageKeys);
    },
  };
}
