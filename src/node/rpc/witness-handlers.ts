/**
 * debug_executionWitness (reth's) and debug_executePayload (Base's node and op-reth's): a block executed again on its
 * parent's state, or built from payload attributes, with every preimage it read answered in reth's ExecutionWitness
 * form; a sealed block inside --witness-window (and a payload that is a sealed block's own) answered from the witness
 * record the node kept instead (docs/node/witnesses.md). At most `witnessMaxConcurrent` executions run at once, the
 * rest wait their turn in arrival order. Base's node holds a semaphore of 3 over separate threads; here each runs on a
 * witness worker of the call pool (its own thread and SQLite reader), or with `--call-workers 0` on the node's one
 * thread, where running several only interleaves them and delays the first answer a prover waits on (set 1 there). The
 * server core bounds the response's size.
 */
import {
  BlockNotFoundError,
  ExecutionFailedError,
  InvalidParamsError,
  type NodeHandlers,
} from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { type BlockHeader, type PayloadAttributes, bytesEqual, toHex } from "../../chain/index.js";
import { CallFailedError, CallPool } from "../calls/call-pool.js";
import type { ChainNode } from "../chain-node.js";
import {
  type BlockWitness,
  WITNESS_NODE_CACHE_BYTES,
  WitnessExecutionError,
  WitnessNodeCache,
} from "../execution-witness.js";
import type { StoredBlock } from "../store/block-store.js";
import { type WitnessRequest, witnessFor } from "../witness-record.js";
import { attributesOf } from "../replica/leader-data.js";
import { ConcurrencyLimit } from "./concurrency-limit.js";
import type { NodeRpcLimits } from "./limits.js";
import { describeSelector, findSelected } from "./shared.js";

export type WitnessHandlers = Pick<NodeHandlers, "debug_executionWitness" | "debug_executePayload">;

/** The witness of a block and the header of the parent it was executed on. */
export interface WitnessOfBlock {
  witness: BlockWitness;
  parent: BlockHeader;
  /** Answered from the block's witness record (src/node/witness-record.ts), not by executing it. */
  recorded: boolean;
}

/** The witness of a payload built on a sealed parent. */
export interface WitnessOfPayload {
  witness: BlockWitness;
  /** Answered from the record of the sealed block the payload builds again, not by executing it. */
  recorded: boolean;
}

/** Told of every witness answered: by which method, and whether from the block's record. */
export type WitnessAnswerListener = (
  method: "debug_executionWitness" | "debug_executePayload",
  recorded: boolean,
) => void;

/** The witness computations behind the handlers; the client surfaces re-shape their answers. */
export interface WitnessService {
  /** Adds a listener told of every witness answered (the node's `node_witnesses_total`). */
  onAnswered(listener: WitnessAnswerListener): void;
  /**
   * The witness of the block `block` names, from its record or by executing it again; BlockNotFoundError when there
   * is none (or it is genesis).
   */
  executionWitness(block: T.BlockNumberOrTag): Promise<WitnessOfBlock>;
  /** Builds a block on the sealed block `parentHash` from `attributes`. */
  executePayload(parentHash: Uint8Array, attributes: T.OpPayloadAttributes): Promise<WitnessOfPayload>;
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

/** A block that cannot be built (here, or on a witness worker) answers -32000 with the reason. */
function executionFailed(e: unknown): unknown {
  if (
    e instanceof WitnessExecutionError ||
    e instanceof RangeError ||
    (e instanceof CallFailedError && WORKER_EXECUTION_FAILURES.has(String(e.details?.name)))
  )
    return new ExecutionFailedError(`execution failed: ${e.message}`, { cause: e });
  return e;
}

/** The names of the errors above, as a witness worker reports them. */
const WORKER_EXECUTION_FAILURES = new Set(["WitnessExecutionError", "RangeError"]);

/** One witness: the built block's hash and its witness (from the sealed block's record when `sealed` has one). */
type RunWitness = (
  input: Omit<WitnessRequest, "store" | "nodeCache">,
) => Promise<{ blockHash: Uint8Array; witness: BlockWitness; recorded: boolean }>;

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a === undefined || b === undefined ? a === b : bytesEqual(a, b);
}

/** Whether two sets of attributes are the same, field for field (an absent field equals only an absent one). */
function sameAttributes(a: PayloadAttributes, b: PayloadAttributes): boolean {
  return (
    a.timestamp === b.timestamp &&
    bytesEqual(a.prevRandao, b.prevRandao) &&
    bytesEqual(a.suggestedFeeRecipient, b.suggestedFeeRecipient) &&
    a.gasLimit === b.gasLimit &&
    sameBytes(a.parentBeaconBlockRoot, b.parentBeaconBlockRoot) &&
    sameBytes(a.eip1559Params, b.eip1559Params) &&
    a.minBaseFee === b.minBaseFee
  );
}

/**
 * The sealed child of `parent` that `attributes` and `transactions` build again, if there is one: the same attributes
 * its header gives (those debug_executionWitness executes it with) and the same transactions byte for byte. Execution
 * is deterministic, so the payload's block is that block and its witness is that block's.
 */
function sealedChildBuiltBy(
  node: ChainNode,
  parent: StoredBlock,
  attributes: PayloadAttributes,
  transactions: readonly Uint8Array[],
): StoredBlock | undefined {
  const child = node.store.blockByNumber(parent.header.number + 1n);
  if (child === undefined || !bytesEqual(child.header.parentHash, parent.hash)) return undefined;
  if (child.transactions.length !== transactions.length) return undefined;
  for (let i = 0; i < transactions.length; i++)
    if (!bytesEqual(child.transactions[i]!, transactions[i]!)) return undefined;
  let sealedAttributes: PayloadAttributes;
  try {
    sealedAttributes = attributesOf(node.config, child.header.number, child.header);
  } catch {
    return undefined;
  }
  return sameAttributes(sealedAttributes, attributes) ? child : undefined;
}

/**
 * Where witness executions run: on the call pool's witness workers (each with its own SQLite reader and trie-node
 * cache), so they run side by side on several cores and never hold the event loop the sequencer seals on; with
 * `--call-workers 0` on the event loop, one trie-node cache kept between them.
 */
function witnessRunner(node: ChainNode): RunWitness {
  const calls = node.calls;
  if (calls instanceof CallPool) return (input) => calls.witness(input);
  const nodeCache = new WitnessNodeCache(WITNESS_NODE_CACHE_BYTES);
  return (input) => witnessFor({ ...input, store: node.store, nodeCache });
}

export function createWitnessService(node: ChainNode, limits: NodeRpcLimits): WitnessService {
  const slots = new ConcurrencyLimit(limits.witnessMaxConcurrent);
  const run = witnessRunner(node);
  const listeners: WitnessAnswerListener[] = [];
  const answered = (method: Parameters<WitnessAnswerListener>[0], recorded: boolean): void => {
    for (const listener of listeners) listener(method, recorded);
  };
  return {
    onAnswered: (listener) => {
      listeners.push(listener);
    },
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
        const { blockHash, witness, recorded } = await run({
          config: node.config,
          parent: parent.header,
          attributes: attributesOf(node.config, h.number, h),
          transactions: content.transactions,
          ...(resolved?.kind === "sealed" ? { sealed: content.hash } : {}),
        }).catch((e: unknown) => {
          throw executionFailed(e);
        });
        // The block executed again must be the block asked for; anything else is the node's own fault.
        if (toHex(blockHash) !== toHex(content.hash))
          throw new Error(
            `re-executing block ${h.number} gave ${toHex(blockHash)}, not ${toHex(content.hash)}`,
          );
        answered("debug_executionWitness", recorded);
        return { witness, parent: parent.header, recorded };
      }),
    executePayload: (parentHash, a) =>
      slots.run(async () => {
        const resolved = node.blockByHash(parentHash);
        if (resolved === undefined || resolved.kind !== "sealed")
          throw new BlockNotFoundError(`block not found: ${toHex(parentHash)}`);
        const { attributes, transactions } = payloadAttributes(a);
        const sealed = sealedChildBuiltBy(node, resolved.block, attributes, transactions);
        const { witness, recorded } = await run({
          config: node.config,
          parent: resolved.block.header,
          attributes,
          transactions,
          ...(sealed === undefined ? {} : { sealed: sealed.hash }),
        }).catch((e: unknown) => {
          throw executionFailed(e);
        });
        answered("debug_executePayload", recorded);
        return { witness, recorded };
      }),
  };
}

export function createWitnessHandlers(service: WitnessService): WitnessHandlers {
  return {
    debug_executionWitness: async ({ block }) => (await service.executionWitness(block)).witness,
    debug_executePayload: async ({ parentHash, attributes }) =>
      (await service.executePayload(parentHash, attributes)).witness,
  };
}
