/**
 * The node's bounds on the cost of one request (docs/node/limits.md, "Limits"): every method whose work or output
 * grows with a parameter checks it here, and a request over a limit is answered -32005 with a message that
 * names the flag setting it. The server-core limits (bodies, batches, response bytes, subscriptions per
 * connection) are set from the same flags by src/node/server.ts.
 */
import { availableParallelism } from "node:os";
import { type ErrorDetails } from "../../errors/index.js";
import type { BatchBudget, RpcLimits } from "../../rpc/index.js";
import { NodeError } from "../errors.js";
import { toNodeRpcError } from "./errors.js";

export interface NodeRpcLimits {
  /** Largest serialized response of one call, bytes. */
  readonly maxResponseBytes: number;
  /** Largest sum of one batch's responses, bytes (geth: 25 MB). */
  readonly maxBatchResponseBytes: number;
  /** Largest request body / websocket message, bytes (geth: 5 MiB). */
  readonly maxBodyBytes: number;
  /** Most calls in one batch (geth: 1000). */
  readonly maxBatchLength: number;
  /** Subscriptions one websocket connection may hold. */
  readonly maxSubscriptionsPerConnection: number;
  /** Blocks one eth_feeHistory covers; a larger blockCount is cut to it (geth's behaviour). */
  readonly feeHistoryMaxBlocks: number;
  /** Reward percentiles one eth_feeHistory may ask for (geth: 100). */
  readonly feeHistoryMaxPercentiles: number;
  /** Blocks one eth_getLogs / eth_getFilterLogs range may span. */
  readonly logsMaxBlockRange: number;
  /** Logs one eth_getLogs / eth_getFilterLogs may return. */
  readonly logsMaxResults: number;
  /** Addresses one log filter may list (geth: 1000). */
  readonly logsMaxAddresses: number;
  /** Alternatives one topic position of a log filter may list (geth: 1000). */
  readonly logsMaxTopicOptions: number;
  /** Storage keys one eth_getProof may ask for. */
  readonly proofMaxKeys: number;
  /** Storage keys all eth_getProof calls of one batch may ask for together. */
  readonly proofMaxKeysPerBatch: number;
  /**
   * debug_executionWitness and debug_executePayload calls executing at once; more wait in arrival order. Base's node
   * runs 3 on separate threads; this node executes on its one thread, where calls running together only interleave
   * and each answers later, so its default is 1.
   */
  readonly witnessMaxConcurrent: number;
}

/** One line of the limits table: field, flag, environment variable, default, and what it bounds. */
export interface LimitSpec {
  readonly field: keyof NodeRpcLimits;
  readonly flag: string;
  readonly env: string;
  readonly default: number;
  readonly help: string;
}

/**
 * Witness executions at once by default: Base's node runs 3 (on separate threads), here on the call pool's witness
 * workers, never more than the machine has cores.
 */
export const DEFAULT_WITNESS_MAX_CONCURRENT = Math.max(1, Math.min(3, availableParallelism()));

export const LIMIT_SPECS: readonly LimitSpec[] = [
  {
    field: "maxResponseBytes",
    flag: "--rpc-max-response-bytes",
    env: "NODE_RPC_MAX_RESPONSE_BYTES",
    default: 25_000_000,
    help: "largest JSON-RPC response of one call, bytes (-32005 beyond)",
  },
  {
    field: "maxBatchResponseBytes",
    flag: "--rpc-max-batch-response-bytes",
    env: "NODE_RPC_MAX_BATCH_RESPONSE_BYTES",
    default: 25_000_000,
    help: "largest sum of one batch's responses, bytes (geth's 25 MB; later calls get -32005)",
  },
  {
    field: "maxBodyBytes",
    flag: "--rpc-max-body-bytes",
    env: "NODE_RPC_MAX_BODY_BYTES",
    default: 5 * 1024 * 1024,
    help: "largest request body or websocket message, bytes (geth's 5 MiB)",
  },
  {
    field: "maxBatchLength",
    flag: "--rpc-max-batch-length",
    env: "NODE_RPC_MAX_BATCH_LENGTH",
    default: 1000,
    help: "most calls in one batch (geth's 1000)",
  },
  {
    field: "maxSubscriptionsPerConnection",
    flag: "--rpc-max-subscriptions",
    env: "NODE_RPC_MAX_SUBSCRIPTIONS",
    default: 128,
    help: "subscriptions one websocket connection may hold",
  },
  {
    field: "feeHistoryMaxBlocks",
    flag: "--rpc-fee-history-max-blocks",
    env: "NODE_RPC_FEE_HISTORY_MAX_BLOCKS",
    default: 1024,
    help: "blocks one eth_feeHistory covers (a larger count is cut to it, as geth does)",
  },
  {
    field: "feeHistoryMaxPercentiles",
    flag: "--rpc-fee-history-max-percentiles",
    env: "NODE_RPC_FEE_HISTORY_MAX_PERCENTILES",
    default: 100,
    help: "reward percentiles one eth_feeHistory may ask for (geth's 100)",
  },
  {
    field: "logsMaxBlockRange",
    flag: "--rpc-logs-max-block-range",
    env: "NODE_RPC_LOGS_MAX_BLOCK_RANGE",
    default: 10_000,
    help: "blocks one eth_getLogs range may span",
  },
  {
    field: "logsMaxResults",
    flag: "--rpc-logs-max-results",
    env: "NODE_RPC_LOGS_MAX_RESULTS",
    default: 10_000,
    help: "logs one eth_getLogs may return",
  },
  {
    field: "logsMaxAddresses",
    flag: "--rpc-logs-max-addresses",
    env: "NODE_RPC_LOGS_MAX_ADDRESSES",
    default: 1000,
    help: "addresses one log filter may list (geth's 1000)",
  },
  {
    field: "logsMaxTopicOptions",
    flag: "--rpc-logs-max-topic-options",
    env: "NODE_RPC_LOGS_MAX_TOPIC_OPTIONS",
    default: 1000,
    help: "alternatives one topic position of a log filter may list (geth's 1000)",
  },
  {
    field: "proofMaxKeys",
    flag: "--rpc-proof-max-keys",
    env: "NODE_RPC_PROOF_MAX_KEYS",
    default: 1024,
    help: "storage keys one eth_getProof may ask for",
  },
  {
    field: "proofMaxKeysPerBatch",
    flag: "--rpc-proof-max-keys-per-batch",
    env: "NODE_RPC_PROOF_MAX_KEYS_PER_BATCH",
    default: 10_000,
    help: "storage keys all eth_getProof calls of one batch may ask for together",
  },
  {
    field: "witnessMaxConcurrent",
    flag: "--rpc-witness-max-concurrent",
    env: "NODE_RPC_WITNESS_MAX_CONCURRENT",
    default: DEFAULT_WITNESS_MAX_CONCURRENT,
    help: "debug_executionWitness / debug_executePayload calls executing at once, each on a witness worker thread (default: Base's 3, at most the machine's cores); more wait their turn in arrival order. With --call-workers 0 they share the node's one thread, where 1 is the choice",
  },
];

export const DEFAULT_NODE_RPC_LIMITS: NodeRpcLimits = Object.fromEntries(
  LIMIT_SPECS.map((s) => [s.field, s.default]),
) as unknown as NodeRpcLimits;

/** The flag that sets a limit, as errors name it. */
export function limitFlag(field: keyof NodeRpcLimits): string {
  return LIMIT_SPECS.find((s) => s.field === field)!.flag;
}

/** A request asks for more than one of the node's limits allows (answered -32005 by the RPC edge). */
export class NodeLimitExceededError extends NodeError {
  readonly limit: keyof NodeRpcLimits;
  readonly max: number;
  readonly requested: number;
  /** What was counted, as the message names it. */
  readonly what: string;

  constructor(limit: keyof NodeRpcLimits, max: number, requested: number, what: string) {
    const details: ErrorDetails = { limit: limitFlag(limit), max, requested };
    super(
      `query exceeds the limit: ${what}: ${requested} requested, at most ${max} (${limitFlag(limit)})`,
      "limit-exceeded",
      { details },
    );
    this.limit = limit;
    this.max = max;
    this.requested = requested;
    this.what = what;
  }
}

/**
 * Throws when `requested` is over the limit: a LimitExceededError (-32005) whose cause is the
 * NodeLimitExceededError carrying the limit's flag, its value and what was asked.
 */
export function enforceLimit(
  limits: NodeRpcLimits,
  limit: keyof NodeRpcLimits,
  requested: number,
  what: string,
): void {
  const max = limits[limit];
  if (requested <= max) return;
  throw toNodeRpcError(new NodeLimitExceededError(limit, max, requested, what));
}

/** A log filter's criteria as the limits see them (eth_getLogs, eth_newFilter, eth_subscribe logs). */
export interface FilterCriteria {
  readonly address?: Uint8Array | Uint8Array[] | null | undefined;
  readonly topics?: readonly (Uint8Array | Uint8Array[] | null | undefined)[] | null | undefined;
}

/** Bounds what matching a log filter costs per log: addresses and alternatives per topic position. */
export function enforceFilterLimits(limits: NodeRpcLimits, filter: FilterCriteria | undefined): void {
  if (filter === undefined) return;
  if (Array.isArray(filter.address))
    enforceLimit(limits, "logsMaxAddresses", filter.address.length, "addresses in one log filter");
  for (const position of filter.topics ?? []) {
    if (Array.isArray(position))
      enforceLimit(limits, "logsMaxTopicOptions", position.length, "alternatives of one topic position");
  }
}

/** The storage keys an eth_getProof call asks for, read from its raw params (0 when malformed). */
export function proofKeyCount(method: string, params: unknown): number {
  if (method !== "eth_getProof") return 0;
  const keys: unknown = Array.isArray(params)
    ? params[1]
    : typeof params === "object" && params !== null
      ? (params as { storageKeys?: unknown }).storageKeys
      : undefined;
  return Array.isArray(keys) ? keys.length : 0;
}

/** The server-core options these limits set: its limits, their flag names, the per-batch proof keys. */
export function rpcServerLimits(limits: NodeRpcLimits): {
  limits: Partial<RpcLimits>;
  limitNames: Partial<Record<keyof RpcLimits, string>>;
  batchBudgets: BatchBudget[];
} {
  const core = [
    "maxResponseBytes",
    "maxBatchResponseBytes",
    "maxBodyBytes",
    "maxBatchLength",
    "maxSubscriptionsPerConnection",
  ] as const;
  return {
    limits: Object.fromEntries(core.map((k) => [k, limits[k]])),
    limitNames: Object.fromEntries(core.map((k) => [k, limitFlag(k)])),
    batchBudgets: [
      {
        name: `eth_getProof storage keys (${limitFlag("proofMaxKeysPerBatch")})`,
        limit: limits.proofMaxKeysPerBatch,
        cost: proofKeyCount,
      },
    ],
  };
}
