/**
 * Fees: the suggested gas price and tip, eth_feeHistory over sealed blocks (and the pending one), and
 * the EIP-4844 blob base fee of the next block.
 */
import {
  BlockNotFoundError,
  type EthFeeHistoryParams,
  eth_feeHistory,
  type NodeHandlers,
} from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { PRAGUE_BLOB_SCHEDULE, blobBaseFee, nextExcessBlobGas } from "../../chain/index.js";
import { type BoundMethod, InvalidParamsError } from "../../rpc/index.js";
import { type BlockRead, type FeeRow, feeHistoryResult, feeRow } from "../calls/block-reads.js";
import type { ChainNode, ResolvedBlock } from "../chain-node.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceLimit } from "./limits.js";
import { bindRawMethod } from "./raw-methods.js";
import { describeSelector } from "./shared.js";

/** Suggested priority fee (wei): op-geth's default minimum suggestion, 0.001 gwei. */
export const SUGGESTED_TIP = 1_000_000n;

export type FeeHandlers = Pick<
  NodeHandlers,
  "eth_gasPrice" | "eth_maxPriorityFeePerGas" | "eth_feeHistory" | "eth_blobBaseFee"
>;

/** eth_feeHistory (in-thread) reads this many blocks between two turns of the event loop. */
const YIELD_EVERY_BLOCKS = 32n;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An eth_feeHistory checked and resolved on the event loop: the blocks `oldest..newest` and what follows. */
interface FeePlan {
  oldest: bigint;
  newest: ResolvedBlock;
  newestNumber: bigint;
  nextBaseFee: bigint;
  percentiles: number[] | undefined;
}

/** Checks the params and limits and resolves the range; undefined for a zero block count. */
function planFeeHistory(
  node: ChainNode,
  limits: NodeRpcLimits,
  { blockCount, newestBlock, rewardPercentiles }: EthFeeHistoryParams,
): FeePlan | undefined {
  if (blockCount === 0n) return undefined;
  const percentiles = rewardPercentiles ?? [];
  // Checked before anything else: the work and the response grow with blocks × percentiles.
  enforceLimit(limits, "feeHistoryMaxPercentiles", percentiles.length, "eth_feeHistory reward percentiles");
  for (let i = 0; i < percentiles.length; i++) {
    const p = percentiles[i]!;
    if (!(p >= 0 && p <= 100) || (i > 0 && p < percentiles[i - 1]!)) {
      throw new InvalidParamsError("rewardPercentiles: increasing numbers between 0 and 100 expected");
    }
  }
  const newest = node.resolveTag(newestBlock);
  if (newest === undefined) throw new BlockNotFoundError(`block not found: ${describeSelector(newestBlock)}`);
  const newestNumber = node.content(newest).header.number;
  // As geth does, a count over the limit is cut to it (clients ask for "as many as you have").
  const maxBlocks = BigInt(limits.feeHistoryMaxBlocks);
  const count = blockCount > maxBlocks ? maxBlocks : blockCount;
  const oldest = newestNumber + 1n > count ? newestNumber + 1n - count : 0n;
  // The base fee after the newest block, read now: the chain moves while the blocks are read.
  const nextBaseFee =
    newest.kind === "pending" || newestNumber === node.head.header.number
      ? node.nextBaseFee()
      : (node.store.blockByNumber(newestNumber + 1n)?.header.baseFeePerGas ?? 0n);
  return { oldest, newest, newestNumber, nextBaseFee, percentiles: rewardPercentiles };
}

const EMPTY_HISTORY: T.FeeHistory = { oldestBlock: 0n, baseFeePerGas: [], gasUsedRatio: [] };

export function createFeeHandlers(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): FeeHandlers {
  return {
    eth_gasPrice: () => node.nextBaseFee() + SUGGESTED_TIP,
    eth_maxPriorityFeePerGas: () => SUGGESTED_TIP,
    async eth_feeHistory(params) {
      const plan = planFeeHistory(node, limits, params);
      if (plan === undefined) return EMPTY_HISTORY;
      const { oldest, newest, newestNumber, percentiles } = plan;
      const rows: FeeRow[] = [];
      for (let n = oldest; n <= newestNumber; n++) {
        // Up to 1024 block reads: the event loop gets a turn every YIELD_EVERY_BLOCKS blocks.
        if (n > oldest && (n - oldest) % YIELD_EVERY_BLOCKS === 0n) await yieldToEventLoop();
        const r = n === newestNumber ? newest : node.resolveTag(n);
        if (r === undefined) break;
        rows.push(feeRow(node.content(r), percentiles));
      }
      return feeHistoryResult(oldest, rows, plan.nextBaseFee, percentiles !== undefined);
    },
    // Isthmus blocks follow Prague's blob schedule (EIP-7691).
    eth_blobBaseFee: () =>
      blobBaseFee(nextExcessBlobGas(node.head.header), PRAGUE_BLOB_SCHEDULE.baseFeeUpdateFraction),
  };
}

/**
 * eth_feeHistory as the server binds it: params, limits and the newest block are checked on the event
 * loop; the sealed blocks' rows are read and the answer serialized where calls run (a worker by default:
 * docs/node/limits.md "Block production under load"), with the pending newest block's row computed here. Byte
 * for byte the typed handler's answer.
 */
export function createOffloadedFeeMethods(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): BoundMethod[] {
  return [
    bindRawMethod(eth_feeHistory, async (params, ctx) => {
      const plan = planFeeHistory(node, limits, params);
      if (plan === undefined) return JSON.stringify(eth_feeHistory.encodeResult(EMPTY_HISTORY));
      const pending = plan.newest.kind === "pending";
      const read: BlockRead = {
        method: "eth_feeHistory",
        oldest: plan.oldest,
        lastSealed: pending ? plan.newestNumber - 1n : plan.newestNumber,
        percentiles: plan.percentiles,
        tail: pending ? feeRow(node.content(plan.newest), plan.percentiles) : undefined,
        nextBaseFee: plan.nextBaseFee,
      };
      return node.calls.blockReadJson(read, { blocks: node.store, common: node.common }, ctx.signal);
    }),
  ];
}
