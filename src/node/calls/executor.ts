/**
 * How the node runs eth_call, eth_estimateGas and eth_createAccessList, and heavy reads (eth_getProof, full
 * blocks, receipts, log ranges, fee history): on
 * worker threads (CallPool, the default) or on the event loop (InThreadCalls, `--call-workers 0`). Both
 * run the same CallRunner and estimateGas, and the same read functions (reads.ts).
 */
import {
  type CallEnvironment,
  type CallMessage,
  type CallOutcome,
  CallRunner,
  createAccessList,
  estimateGas,
} from "../state/call.js";
import type { Common } from "@ethereumjs/common";
import type { HashSource } from "../state/sources.js";
import type { BlockSource } from "../store/block-store.js";
import { type BlockRead, blockReadJson } from "./block-reads.js";
import type { AccessListResult, EstimateResult } from "./protocol.js";
import { proofJson } from "./reads.js";

/** The nodes written by a block being built: an append-only, content-addressed map. */
export interface PendingOverlay {
  /** Identifies the block being built (a new id starts a new overlay). */
  readonly blockId: string;
  /** By unprefixed hex keccak256. */
  readonly nodes: ReadonlyMap<string, Uint8Array>;
  /** The keys of `nodes` in the order written (append-only): a worker is sent only what is new. */
  readonly keys: readonly string[];
}

/** The block a call runs in: its environment and where its state is read. */
export interface CallContext {
  readonly env: CallEnvironment;
  /** The state for an in-thread run: the store, overlaid with `overlay` for a pending snapshot. */
  readonly source: HashSource;
  /** For a pending snapshot: the block being built's nodes (a worker reads the store itself). */
  readonly overlay: PendingOverlay | undefined;
}

/** The state a read runs on: a state root, where an in-thread read finds its nodes, and a snapshot's overlay. */
export interface ReadContext {
  readonly stateRoot: Uint8Array;
  /** The store, overlaid with `overlay` for a pending snapshot (in-thread reads). */
  readonly source: HashSource;
  /** For a pending snapshot: the block being built's nodes (a worker reads the store itself). */
  readonly overlay: PendingOverlay | undefined;
}

/** Where an in-thread block read finds its blocks and decodes their transactions (a worker has its own). */
export interface BlockReadContext {
  readonly blocks: BlockSource;
  readonly common: Common;
}

export interface CallExecutor {
  call(context: CallContext, msg: CallMessage, signal?: AbortSignal): Promise<CallOutcome>;
  estimate(
    context: CallContext,
    msg: CallMessage,
    cap: bigint,
    signal?: AbortSignal,
  ): Promise<EstimateResult>;
  accessList(context: CallContext, msg: CallMessage, signal?: AbortSignal): Promise<AccessListResult>;
  /** eth_getProof's JSON-RPC result as JSON text (reads.ts `proofJson`). */
  proofJson(
    context: ReadContext,
    address: Uint8Array,
    storageKeys: readonly Uint8Array[],
    signal?: AbortSignal,
  ): Promise<string>;
  /**
   * A block read's JSON-RPC result as JSON text (block-reads.ts `blockReadJson`); a NodeLimitExceededError
   * when a log range counts more than its limit.
   */
  blockReadJson(read: BlockRead, context: BlockReadContext, signal?: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

/** Runs calls on the event loop: a long call delays everything else the node does. */
export class InThreadCalls implements CallExecutor {
  async call(context: CallContext, msg: CallMessage): Promise<CallOutcome> {
    return (await CallRunner.create(context.source, context.env)).run(msg);
  }

  async estimate(context: CallContext, msg: CallMessage, cap: bigint): Promise<EstimateResult> {
    return estimateGas(await CallRunner.create(context.source, context.env), msg, cap);
  }

  async accessList(context: CallContext, msg: CallMessage): Promise<AccessListResult> {
    return createAccessList(await CallRunner.create(context.source, context.env), msg);
  }
  async proofJson(
    context: ReadContext,
    address: Uint8Array,
    storageKeys: readonly Uint8Array[],
  ): Promise<string> {
    return proofJson(context.source, context.stateRoot, address, storageKeys);
  }

  async blockReadJson(read: BlockRead, context: BlockReadContext): Promise<string> {
    return blockReadJson(read, context.blocks, context.common);
  }

  async close(): Promise<void> {}
}
