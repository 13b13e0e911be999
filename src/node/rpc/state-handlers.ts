/**
 * Account state at any block (pending = the latest flashblock snapshot's state): balances, nonces (the
 * `pending` nonce counts the sender's pooled transactions), code, storage and EIP-1186 proofs.
 *
 * eth_getProof (up to 1024 keys a call, 10 000 a batch) is the heaviest read within the limits: the
 * server serves it from `createOffloadedStateMethods`, which resolves the block on the event loop and
 * has a call worker build the proofs and serialize the result (docs/node/limits.md "Block production under
 * load"). The typed `eth_getProof` handler below computes the same answer on the calling thread.
 */
import { eth_getProof as ethGetProofSpec, type NodeHandlers } from "../../../generated/rpc/index.js";
import { toHexRaw } from "../../chain/index.js";
import type { BoundMethod } from "../../rpc/index.js";
import type { ReadContext } from "../calls/executor.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceLimit } from "./limits.js";
import { bindRawMethod } from "./raw-methods.js";
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
      return isPendingTag ? node.producer.pool.pendingNonce(toHexRaw(address), nonce) : nonce;
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

/**
 * The state methods the server runs off the event loop: eth_getProof on the node's call executor (a
 * worker thread by default), answered as the JSON text the worker serialized, byte for byte what the
 * typed handler's result encodes to.
 */
export function createOffloadedStateMethods(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): BoundMethod[] {
  return [
    bindRawMethod(ethGetProofSpec, async ({ address, storageKeys, block }, ctx) => {
      enforceLimit(limits, "proofMaxKeys", storageKeys.length, "storage keys of one eth_getProof");
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      return node.calls.proofJson(readContext(node, r), address, storageKeys, ctx.signal);
    }),
  ];
}

/** Where a read at `r` finds its state: a sealed block's root in the store, or a snapshot's with its overlay. */
function readContext(node: ChainNode, r: ResolvedBlock): ReadContext {
  if (r.kind === "sealed")
    return { stateRoot: r.block.header.stateRoot, source: node.store, overlay: undefined };
  const { env, source, overlay } = node.callContext(r);
  return { stateRoot: env.stateRoot, source, overlay };
}
