/**
 * The node's JSON-RPC handlers (the generated NodeHandlers interface): blocks, balances and state at
 * every tag (pending = the latest flashblock snapshot, never null), transactions and receipts
 * (sealed, pre-confirmed or pooled), calls and gas estimates in the selected block's environment,
 * access lists, proofs, fees, logs. The subscription and send-and-wait handlers are in
 * notification-handlers.ts, the polling filters in filter-handlers.ts, the raw debug reads in
 * debug-handlers.ts and the txpool namespace in txpool-handlers.ts.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { decodeAbiParameters } from "viem";
import { bytesEqual, decodeTransaction, toHex, toHexRaw } from "../../chain/index.js";
import { InvalidParamsError, type RequestContext } from "../../rpc/index.js";
import {
  BlockNotFoundError,
  ExecutionFailedError,
  ExecutionRevertedError,
  LimitExceededError,
} from "../../../generated/rpc/errors.js";
import type { NodeHandlers } from "../../../generated/rpc/node.js";
import type * as T from "../../../generated/rpc/types.js";
import { admitTransaction } from "../admission.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
import { type CallMessage, IntrinsicGasError } from "../state/call.js";
import { type BlockContent, formatBlock, formatLogs, formatReceipt, formatTransaction } from "./format.js";
import type { DebugHandlers } from "./debug-handlers.js";
import type { FilterHandlers } from "./filter-handlers.js";
import type { TxPoolHandlers } from "./txpool-handlers.js";
import type { NotificationHandlers } from "./notification-handlers.js";

export const CLIENT_VERSION = "op-enclave-suite-node/0.1.0";
/** Suggested priority fee (wei): op-geth's default minimum suggestion, 0.001 gwei. */
export const SUGGESTED_TIP = 1_000_000n;
export const MAX_LOG_BLOCK_RANGE = 10_000n;
export const MAX_LOGS = 10_000;
/** Storage keys one eth_getProof may ask for. */
export const MAX_PROOF_STORAGE_KEYS = 1024;
export const MAX_FEE_HISTORY_BLOCKS = 1_024n;
/** Upper bound of gas for eth_call / eth_estimateGas. */
export const RPC_GAS_CAP = 50_000_000n;

type Selector = T.BlockNumberOrTagOrHash;

function describeSelector(s: Selector | T.BlockNumberOrTag): string {
  if (typeof s === "string") return s;
  if (typeof s === "bigint") return `0x${s.toString(16)}`;
  if (s instanceof Uint8Array) return toHex(s);
  if ("blockHash" in s) return toHex(s.blockHash);
  return describeSelector(s.blockNumber);
}

/** Marks the response with the snapshot a `pending` answer came from (HTTP headers). */
function tagSnapshot(ctx: RequestContext, r: ResolvedBlock): void {
  if (r.kind !== "pending") return;
  ctx.responseHeaders.set("X-Pending-Block", `0x${r.pending.snapshot.header.number.toString(16)}`);
  ctx.responseHeaders.set("X-Flashblock-Index", String(r.pending.index));
  ctx.responseHeaders.set("X-Flashblock-Payload-Id", toHex(r.pending.payloadId));
  ctx.responseHeaders.set("X-Flashblock-Created-At", r.pending.createdAt.toFixed(3));
}

/** The block a tag, number, hash or EIP-1898 object names, or undefined when there is none. */
export function findSelected(node: ChainNode, s: Selector): ResolvedBlock | undefined {
  if (typeof s === "string" || typeof s === "bigint") return node.resolveTag(s);
  if (s instanceof Uint8Array) return node.blockByHash(s);
  if ("blockHash" in s) return node.blockByHash(s.blockHash);
  return node.resolveTag(s.blockNumber);
}

export function resolveSelector(
  node: ChainNode,
  selector: Selector | undefined,
  fallback = "latest",
): ResolvedBlock {
  const s = selector ?? (fallback as T.BlockTag);
  const resolved = findSelected(node, s);
  if (resolved === undefined) throw new BlockNotFoundError(`block not found: ${describeSelector(s)}`);
  return resolved;
}

function revertMessage(data: Uint8Array): string {
  if (data.length >= 4 && toHexRaw(data.subarray(0, 4)) === "08c379a0") {
    try {
      const [reason] = decodeAbiParameters([{ type: "string" }], toHex(data.subarray(4)));
      return `execution reverted: ${reason}`;
    } catch {
      return "execution reverted";
    }
  }
  return "execution reverted";
}

function callMessage(req: T.CallRequest, gasCap: bigint): CallMessage {
  if (req.input !== undefined && req.data !== undefined && !bytesEqual(req.input, req.data)) {
    throw new InvalidParamsError("transaction: both input and data given with different values");
  }
  const gas = req.gas ?? gasCap;
  if (gas > RPC_GAS_CAP) throw new InvalidParamsError(`transaction.gas: at most ${RPC_GAS_CAP}`);
  return {
    from: req.from ?? new Uint8Array(20),
    to: req.to ?? undefined,
    value: req.value ?? 0n,
    data: req.input ?? req.data ?? new Uint8Array(0),
    gas,
    gasPrice: req.gasPrice ?? 0n,
    accessList: (req.accessList ?? []).map((e) => ({ address: e.address, storageKeys: e.storageKeys })),
  };
}

export function matchesFilter(
  log: T.Log,
  addresses: Uint8Array[] | undefined,
  topics: T.FilterTopic[] | null | undefined,
): boolean {
  if (addresses !== undefined && !addresses.some((a) => bytesEqual(a, log.address))) return false;
  for (let i = 0; i < (topics?.length ?? 0); i++) {
    const want = topics![i];
    if (want === null || want === undefined) continue;
    const have = log.topics[i];
    if (have === undefined) return false;
    const options = Array.isArray(want) ? want : [want];
    if (options.length > 0 && !options.some((t) => bytesEqual(t, have))) return false;
  }
  return true;
}

export function filterAddresses(address: T.FilterAddress | undefined): Uint8Array[] | undefined {
  if (address === undefined || address === null) return undefined;
  return Array.isArray(address) ? address : [address];
}

export function logsOf(
  content: BlockContent,
  addresses: Uint8Array[] | undefined,
  topics: T.FilterTopic[] | null | undefined,
): T.Log[] {
  const out: T.Log[] = [];
  for (let i = 0; i < content.receipts.length; i++) {
    if (content.receipts[i]!.logs.length === 0) continue;
    for (const log of formatLogs(content, i)) if (matchesFilter(log, addresses, topics)) out.push(log);
  }
  return out;
}

function percentile(sorted: { tip: bigint; gas: bigint }[], total: bigint, p: number): bigint {
  if (sorted.length === 0) return 0n;
  const threshold = (BigInt(Math.round(p * 100)) * total) / 10_000n;
  let acc = 0n;
  for (const e of sorted) {
    acc += e.gas;
    if (acc >= threshold) return e.tip;
  }
  return sorted[sorted.length - 1]!.tip;
}

/** EIP-4844 blob gas parameters of Prague (Isthmus): per-block target and the update fraction. */
const BLOB_GAS_TARGET = 786_432n;
const BLOB_BASE_FEE_UPDATE_FRACTION = 5_007_716n;

/** The next block's excess blob gas from its parent's header (EIP-4844). */
function nextExcessBlobGas(parent: { excessBlobGas?: bigint; blobGasUsed?: bigint }): bigint {
  const total = (parent.excessBlobGas ?? 0n) + (parent.blobGasUsed ?? 0n);
  return total > BLOB_GAS_TARGET ? total - BLOB_GAS_TARGET : 0n;
}

/** EIP-4844's fake_exponential(MIN_BASE_FEE_PER_BLOB_GAS = 1, excess, update fraction). */
function blobBaseFee(excessBlobGas: bigint): bigint {
  let output = 0n;
  let accumulator = BLOB_BASE_FEE_UPDATE_FRACTION;
  for (let i = 1n; accumulator > 0n; i++) {
    output += accumulator;
    accumulator = (accumulator * excessBlobGas) / (BLOB_BASE_FEE_UPDATE_FRACTION * i);
  }
  return output / BLOB_BASE_FEE_UPDATE_FRACTION;
}

/** Finds a transaction: sealed, pre-confirmed, then pooled. */
export function findTransaction(
  node: ChainNode,
  hash: Uint8Array,
):
  | { content: BlockContent; index: number }
  | { preconfirmed: BlockContent; index: number }
  | { pooled: true }
  | undefined {
  const loc = node.store.transactionLocation(hash);
  if (loc !== undefined) {
    const block = node.store.blockByNumber(loc.number);
    if (block !== undefined) return { content: node.content({ kind: "sealed", block }), index: loc.index };
  }
  const p = node.pending;
  if (p !== undefined) {
    const idx = p.snapshot.transactionHashes.findIndex((h) => bytesEqual(h, hash));
    if (idx >= 0) {
      const c = node.content({ kind: "pending", pending: p });
      // With --preconfirmed-receipts false a pre-confirmed transaction looks pooled until sealed.
      return node.options.preconfirmedReceipts ? { content: c, index: idx } : { preconfirmed: c, index: idx };
    }
  }
  return node.sequencer.pool.get(toHexRaw(hash)) !== undefined ? { pooled: true } : undefined;
}

/**
 * Every NodeHandlers method but the notification (createNotificationHandlers), filter
 * (createFilterHandlers), debug (createDebugHandlers) and txpool (createTxPoolHandlers) ones.
 */
export function createNodeHandlers(
  node: ChainNode,
): Omit<
  NodeHandlers,
  keyof NotificationHandlers | keyof FilterHandlers | keyof DebugHandlers | keyof TxPoolHandlers
> {
  const content = (r: ResolvedBlock) => node.content(r);

  /** A block's transaction at `index`, with its placement and receipt-derived fields. */
  const placedTransaction = (c: BlockContent, index: number): T.Transaction => {
    return formatTransaction(decodeTransaction(c.transactions[index]!, node.common), {
      placement: {
        blockHash: c.hash,
        blockNumber: c.header.number,
        blockTimestamp: c.header.timestamp,
        index,
      },
      details: c.details[index],
      receipt: c.receipts[index],
    });
  };
  const transactionAt = (r: ResolvedBlock | undefined, index: bigint): T.Transaction | null => {
    if (r === undefined) return null;
    const c = content(r);
    return index < BigInt(c.transactions.length) ? placedTransaction(c, Number(index)) : null;
  };
  const transactionCount = (r: ResolvedBlock | undefined): bigint | null =>
    r === undefined ? null : BigInt(content(r).transactions.length);

  return {
    eth_getBlockByNumber({ block, fullTransactions }, ctx) {
      const r = node.resolveTag(block);
      if (r === undefined) return null;
      tagSnapshot(ctx, r);
      return formatBlock(content(r), fullTransactions, node.common);
    },
    eth_getBlockByHash({ blockHash, fullTransactions }, ctx) {
      const r = node.blockByHash(blockHash);
      if (r === undefined) return null;
      tagSnapshot(ctx, r);
      return formatBlock(content(r), fullTransactions, node.common);
    },
    eth_getBalance({ address, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      return node.stateOf(r).balance(address);
    },
    eth_chainId: () => node.config.l2ChainId,
    eth_blockNumber: () => node.head.header.number,
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
    eth_sendRawTransaction({ transaction }) {
      return admitTransaction(node, transaction).decoded.hash;
    },
    eth_getTransactionByHash({ transactionHash }) {
      const found = findTransaction(node, transactionHash);
      if (found === undefined) return null;
      if ("preconfirmed" in found) {
        const c = found.preconfirmed;
        return formatTransaction(decodeTransaction(c.transactions[found.index]!, node.common), {
          sender: c.details[found.index]!.from,
        });
      }
      if ("pooled" in found) {
        const pooled = node.sequencer.pool.get(toHexRaw(transactionHash))!;
        return formatTransaction(pooled.decoded, { sender: pooled.sender });
      }
      return placedTransaction(found.content, found.index);
    },
    eth_getTransactionReceipt({ transactionHash }) {
      const found = findTransaction(node, transactionHash);
      if (found === undefined || !("content" in found)) return null;
      return formatReceipt(found.content, found.index);
    },
    eth_getBlockReceipts({ block }, ctx) {
      const r = findSelected(node, block);
      if (r === undefined) return null;
      // Without pre-confirmed receipts, a transaction of the block being built has none yet.
      if (r.kind === "pending" && !node.options.preconfirmedReceipts) return null;
      tagSnapshot(ctx, r);
      const c = content(r);
      return c.receipts.map((_, i) => formatReceipt(c, i));
    },
    eth_getBlockTransactionCountByNumber({ block }, ctx) {
      const r = node.resolveTag(block);
      if (r !== undefined) tagSnapshot(ctx, r);
      return transactionCount(r);
    },
    eth_getBlockTransactionCountByHash: ({ blockHash }) => transactionCount(node.blockByHash(blockHash)),
    eth_getTransactionByBlockNumberAndIndex({ block, index }, ctx) {
      const r = node.resolveTag(block);
      if (r !== undefined) tagSnapshot(ctx, r);
      return transactionAt(r, index);
    },
    eth_getTransactionByBlockHashAndIndex: ({ blockHash, index }) =>
      transactionAt(node.blockByHash(blockHash), index),
    eth_getUncleCountByBlockNumber: ({ block }) => (node.resolveTag(block) === undefined ? null : 0n),
    eth_getUncleCountByBlockHash: ({ blockHash }) => (node.blockByHash(blockHash) === undefined ? null : 0n),
    async eth_call({ transaction, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      const context = node.callContext(r);
      const { gasLimit } = context.env;
      const msg = callMessage(transaction, gasLimit < RPC_GAS_CAP ? gasLimit : RPC_GAS_CAP);
      let outcome;
      try {
        outcome = await node.calls.call(context, msg, ctx.signal);
      } catch (e) {
        if (e instanceof IntrinsicGasError) throw new ExecutionFailedError(e.message);
        throw e;
      }
      if (outcome.reverted)
        throw new ExecutionRevertedError(revertMessage(outcome.returnData), { data: outcome.returnData });
      if (!outcome.success) throw new ExecutionFailedError(`execution failed: ${outcome.error}`);
      return outcome.returnData;
    },
    async eth_estimateGas({ transaction, block }, ctx) {
      // Like reth, estimate against the pending block unless told otherwise.
      const r = resolveSelector(node, block, "pending");
      tagSnapshot(ctx, r);
      const context = node.callContext(r);
      let cap = transaction.gas ?? context.env.gasLimit;
      const msg = callMessage(transaction, cap);
      const feeCap = transaction.maxFeePerGas ?? transaction.gasPrice ?? 0n;
      if (feeCap > 0n) {
        const balance = node.stateOf(r).balance(msg.from);
        const affordable = balance > msg.value ? (balance - msg.value) / feeCap : 0n;
        if (affordable < cap) cap = affordable;
      }
      let result;
      try {
        result = await node.calls.estimate(context, { ...msg, gas: cap }, cap, ctx.signal);
      } catch (e) {
        if (e instanceof IntrinsicGasError)
          throw new ExecutionFailedError(`gas required exceeds allowance (${cap})`);
        throw e;
      }
      if ("failure" in result) {
        const f = result.failure;
        if (f.reverted) throw new ExecutionRevertedError(revertMessage(f.returnData), { data: f.returnData });
        throw new ExecutionFailedError(
          f.error === "out of gas"
            ? `gas required exceeds allowance (${cap})`
            : `execution failed: ${f.error}`,
        );
      }
      return result.gas;
    },
    async eth_createAccessList({ transaction, block }, ctx) {
      const r = resolveSelector(node, block);
      tagSnapshot(ctx, r);
      const context = node.callContext(r);
      const { gasLimit } = context.env;
      const msg = callMessage(transaction, gasLimit < RPC_GAS_CAP ? gasLimit : RPC_GAS_CAP);
      let result;
      try {
        result = await node.calls.accessList(context, msg, ctx.signal);
      } catch (e) {
        if (e instanceof IntrinsicGasError) throw new ExecutionFailedError(e.message);
        throw e;
      }
      const { accessList, outcome } = result;
      const out: T.AccessListResult = { accessList, gasUsed: outcome.gasUsed };
      if (outcome.reverted) out.error = revertMessage(outcome.returnData);
      else if (!outcome.success) out.error = `execution failed: ${outcome.error}`;
      return out;
    },
    eth_gasPrice: () => node.nextBaseFee() + SUGGESTED_TIP,
    eth_maxPriorityFeePerGas: () => SUGGESTED_TIP,
    eth_feeHistory({ blockCount, newestBlock, rewardPercentiles }) {
      if (blockCount === 0n) return { oldestBlock: 0n, baseFeePerGas: [], gasUsedRatio: [] };
      const percentiles = rewardPercentiles ?? [];
      for (let i = 0; i < percentiles.length; i++) {
        const p = percentiles[i]!;
        if (!(p >= 0 && p <= 100) || (i > 0 && p < percentiles[i - 1]!)) {
          throw new InvalidParamsError("rewardPercentiles: increasing numbers between 0 and 100 expected");
        }
      }
      const newest = node.resolveTag(newestBlock);
      if (newest === undefined)
        throw new BlockNotFoundError(`block not found: ${describeSelector(newestBlock)}`);
      const newestNumber = content(newest).header.number;
      const count = blockCount > MAX_FEE_HISTORY_BLOCKS ? MAX_FEE_HISTORY_BLOCKS : blockCount;
      const oldest = newestNumber + 1n > count ? newestNumber + 1n - count : 0n;
      const baseFeePerGas: bigint[] = [];
      const gasUsedRatio: number[] = [];
      const reward: bigint[][] = [];
      for (let n = oldest; n <= newestNumber; n++) {
        const r = n === newestNumber ? newest : node.resolveTag(n);
        if (r === undefined) break;
        const c = content(r);
        const baseFee = c.header.baseFeePerGas ?? 0n;
        baseFeePerGas.push(baseFee);
        gasUsedRatio.push(Number(c.header.gasUsed) / Number(c.header.gasLimit));
        if (rewardPercentiles !== undefined) {
          const tips = c.details
            .map((d) => ({
              tip: d.effectiveGasPrice > baseFee ? d.effectiveGasPrice - baseFee : 0n,
              gas: d.gasUsed,
            }))
            .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
          const total = tips.reduce((s, e) => s + e.gas, 0n);
          reward.push(percentiles.map((p) => percentile(tips, total, p)));
        }
      }
      baseFeePerGas.push(
        newest.kind === "pending" || newestNumber === node.head.header.number
          ? node.nextBaseFee()
          : (node.store.blockByNumber(newestNumber + 1n)?.header.baseFeePerGas ?? 0n),
      );
      const out: T.FeeHistory = { oldestBlock: oldest, baseFeePerGas, gasUsedRatio };
      if (rewardPercentiles !== undefined) out.reward = reward;
      return out;
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
    eth_getLogs({ filter }) {
      const addresses = filterAddresses(filter.address);
      if (filter.blockHash !== undefined) {
        if (filter.fromBlock !== undefined || filter.toBlock !== undefined) {
          throw new InvalidParamsError("filter: blockHash cannot be combined with fromBlock/toBlock");
        }
        const r = node.blockByHash(filter.blockHash);
        if (r === undefined) throw new BlockNotFoundError(`block not found: ${toHex(filter.blockHash)}`);
        return logsOf(content(r), addresses, filter.topics);
      }
      // A range may end at (or start from) the number of the block being built: that is pending.
      const rangeEnd = (tag: T.BlockNumberOrTag): ResolvedBlock | undefined => {
        const p = node.pending;
        if (typeof tag === "bigint" && p !== undefined && tag === p.snapshot.header.number)
          return { kind: "pending", pending: p };
        return node.resolveTag(tag);
      };
      const from = rangeEnd(filter.fromBlock ?? "latest");
      const to = rangeEnd(filter.toBlock ?? "latest");
      if (from === undefined || to === undefined) {
        throw new BlockNotFoundError(
          `block not found: ${describeSelector((from === undefined ? filter.fromBlock : filter.toBlock) ?? "latest")}`,
        );
      }
      const fromN = content(from).header.number;
      const toContent = content(to);
      const toN = toContent.header.number;
      if (fromN > toN) throw new InvalidParamsError("filter: fromBlock is after toBlock");
      if (toN - fromN + 1n > MAX_LOG_BLOCK_RANGE) {
        throw new LimitExceededError(
          `query exceeds the limit: at most ${MAX_LOG_BLOCK_RANGE} blocks per eth_getLogs`,
        );
      }
      const logs: T.Log[] = [];
      for (let n = fromN; n <= toN; n++) {
        const r = n === toN ? to : n === fromN ? from : node.resolveTag(n);
        if (r === undefined) continue;
        const c = n === toN ? toContent : content(r);
        logs.push(...logsOf(c, addresses, filter.topics));
        if (logs.length > MAX_LOGS)
          throw new LimitExceededError(`query exceeds the limit: more than ${MAX_LOGS} logs`);
      }
      return logs;
    },
    net_version: () => node.config.l2ChainId,
    web3_clientVersion: () => CLIENT_VERSION,
    eth_accounts: () => [],
    eth_syncing: () => false,
    eth_blobBaseFee: () => blobBaseFee(nextExcessBlobGas(node.head.header)),
    net_listening: () => true,
    net_peerCount: () => 0n,
    web3_sha3: ({ data }) => keccak_256(data),
  };
}
