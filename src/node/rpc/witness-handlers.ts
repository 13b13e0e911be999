/**
 * debug_executionWitness (reth's) and debug_executePayload (Base's node and op-reth's): a block executed
 * again on its parent's state, or built from payload attributes, with every preimage it read answered in
 * reth's ExecutionWitness form. At most `witnessMaxConcurrent` executions run at once, the rest wait their turn
 * in arrival order. Base's node holds a semaphore of 3 over separate threads; here executions share the node's
 * thread, so running several only interleaves them and delays the first answer a prover waits on (default 1).
 * The server core bounds the response's size.
 */
import {
  BlockNotFoundError,
  ExecutionFailedError,
  InvalidParamsError,
  type NodeHandlers,
} from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { type BlockHeader, type PayloadAttributes, toHex } from "../../chain/index.js";
import type { ChainNode } from "../chain-node.js";
import {
  type BlockWitness,
  WitnessExecutionError,
  WitnessNodeCache,
  executeWithWitness,
} from "../execution-witness.js";
import { attributesOf } from "../replica/leader-data.js";
import { ConcurrencyLimit } from "./concurrency-limit.js";
import type { NodeRpcLimits } from "./limits.js";
import { describeSelector, findSelected } from "./shared.js";

export type WitnessHandlers = Pick<NodeHandlers, "debug_executionWitness" | "debug_executePayload">;

/** The witness of a block and the header of the parent it was executed on. */
export interface WitnessOfBlock {
  witness: BlockWitness;
  parent: BlockHeader;
}

/** The witness computations behind the handlers; the client surfaces re-shape their answers. */
export interface WitnessService {
  /** Re-executes the block `block` names; BlockNotFoundError when there is none (or it is genesis). */
  executionWitness(block: T.BlockNumberOrTag): Promise<WitnessOfBlock>;
  /** Builds a block on the sealed block `parentHash` from `attributes`. */
  executePayload(parentHash: Uint8Array, attributes: T.OpPayloadAttributes): Promise<BlockWitness>;
}

/** Engine API attributes as the block builder takes them; InvalidParams for what this node cannot honour. */
function payloadAttributes(a: T.OpPayloadAttributes): {
  attributes: PayloadAttributes;
  transactions: Uint8Array[];
} {
  if (a.noTxPool === false)
    throw new InvalidParamsError(
      "invalid params: noTxPool false: this node builds only the attributes' transactions",
    );
  if (a.withdrawals !== undefined && a.withdrawals !== null && a.withdrawals.length > 0)
    throw new InvalidParamsError("invalid params: withdrawals must be empty on an OP Stack chain");
  const attributes: PayloadAttributes = {
    timestamp: a.timestamp,
    prevRandao: a.prevRandao,
    suggestedFeeRecipient: a.suggestedFeeRecipient,
    gasLimit: a.gasLimit,
  };
  if (a.parentBeaconBlockRoot !== undefined && a.parentBeaconBlockRoot !== null)
    attributes.parentBeaconBlockRoot = a.parentBeaconBlockRoot;
  if (a.eip1559Params !== undefined && a.eip1559Params !== null) attributes.eip1559Params = a.eip1559Params;
  if (a.minBaseFee !== undefined && a.minBaseFee !== null) attributes.minBaseFee = a.minBaseFee;
  return { attributes, transactions: a.transactions ?? [] };
}

/** A block that cannot be built answers -32000 with the reason. */
function executionFailed(e: unknown): unknown {
  if (e instanceof WitnessExecutionError || e instanceof RangeError)
    return new ExecutionFailedError(`execution failed: ${e.message}`, { cause: e });
  return e;
}

/** Bytes of trie nodes the witness executions keep between them (WitnessNodeCache). */
export const WITNESS_NODE_CACHE_BYTES = 64 * 2 ** 20;

export function createWitnessService(node: ChainNode, limits: NodeRpcLimits): WitnessService {
  const slots = new ConcurrencyLimit(limits.witnessMaxConcurrent);
  const nodeCache = new WitnessNodeCache(WITNESS_NODE_CACHE_BYTES);
  return {
    executionWitness: (selector) =>
      slots.run(async () => {
        const resolved = findSelected(node, selector);
        const content = resolved === undefined ? undefined : node.content(resolved);
        const parent =
          content === undefined || content.header.number === 0n
            ? undefined
            : node.store.blockByNumber(content.header.number - 1n);
        if (content === undefined || parent === undefined)
          throw new BlockNotFoundError(`block not found: ${describeSelector(selector)}`);
        const h = content.header;
        const { block, witness } = await executeWithWitness({
          config: node.config,
          store: node.store,
          parent: parent.header,
          attributes: attributesOf(node.config, h.number, h),
          transactions: content.transactions,
          nodeCache,
        }).catch((e: unknown) => {
          throw executionFailed(e);
        });
        // The block executed again must be the block asked for; anything else is the node's own fault.
        if (toHex(block.blockHash) !== toHex(content.hash))
          throw new Error(
            `re-executing block ${h.number} gave ${toHex(block.blockHash)}, not ${toHex(content.hash)}`,
          );
        return { witness, parent: parent.header };
      }),
    executePayload: (parentHash, a) =>
      slots.run(async () => {
        const resolved = node.blockByHash(parentHash);
        if (resolved === undefined || resolved.kind !== "sealed")
          throw new BlockNotFoundError(`block not found: ${toHex(parentHash)}`);
        const { attributes, transactions } = payloadAttributes(a);
        const { witness } = await executeWithWitness({
          config: node.config,
          store: node.store,
          parent: resolved.block.header,
          attributes,
          transactions,
          nodeCache,
        }).catch((e: unknown) => {
          throw executionFailed(e);
        });
        return witness;
      }),
  };
}

export function createWitnessHandlers(service: WitnessService): WitnessHandlers {
  return {
    debug_executionWitness: async ({ block }) => (await service.executionWitness(block)).witness,
    debug_executePayload: ({ parentHash, attributes }) => service.executePayload(parentHash, attributes),
  };
}
