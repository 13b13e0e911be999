/**
 * Fees: the suggested gas price and tip, eth_feeHistory over sealed blocks (and the pending one), and
 * the EIP-4844 blob base fee of the next block.
 */
import { BlockNotFoundError, type NodeHandlers } from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import { PRAGUE_BLOB_SCHEDULE, blobBaseFee, nextExcessBlobGas } from "../../chain/index.js";
import { InvalidParamsError } from "../../rpc/index.js";
import type { ChainNode } from "../chain-node.js";
import { DEFAULT_NODE_RPC_LIMITS, type NodeRpcLimits, enforceLimit } from "./limits.js";
import { describeSelector } from "./shared.js";

/** Suggested priority fee (wei): op-geth's default minimum suggestion, 0.001 gwei. */
export const SUGGESTED_TIP = 1_000_000n;

export type FeeHandlers = Pick<
  NodeHandlers,
  "eth_gasPrice" | "eth_maxPriorityFeePerGas" | "eth_feeHistory" | "eth_blobBaseFee"
>;

/** eth_feeHistory reads this many blocks between two turns of the event loop. */
const YIELD_EVERY_BLOCKS = 32n;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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

export function createFeeHandlers(
  node: ChainNode,
  limits: NodeRpcLimits = DEFAULT_NODE_RPC_LIMITS,
): FeeHandlers {
  const maxBlocks = BigInt(limits.feeHistoryMaxBlocks);
  return {
    eth_gasPrice: () => node.nextBaseFee() + SUGGESTED_TIP,
    eth_maxPriorityFeePerGas: () => SUGGESTED_TIP,
    async eth_feeHistory({ blockCount, newestBlock, rewardPercentiles }) {
      if (blockCount === 0n) return { oldestBlock: 0n, baseFeePerGas: [], gasUsedRatio: [] };
      const percentiles = rewardPercentiles ?? [];
      // Checked before anything else: the work and the response grow with blocks × percentiles.
      enforceLimit(
        limits,
        "feeHistoryMaxPercentiles",
        percentiles.length,
        "eth_feeHistory reward percentiles",
      );
      for (let i = 0; i < percentiles.length; i++) {
        const p = percentiles[i]!;
        if (!(p >= 0 && p <= 100) || (i > 0 && p < percentiles[i - 1]!)) {
          throw new InvalidParamsError("rewardPercentiles: increasing numbers between 0 and 100 expected");
        }
      }
      const newest = node.resolveTag(newestBlock);
      if (newest === undefined)
        throw new BlockNotFoundError(`block not found: ${describeSelector(newestBlock)}`);
      const newestNumber = node.content(newest).header.number;
      // As geth does, a count over the limit is cut to it (clients ask for "as many as you have").
      const count = blockCount > maxBlocks ? maxBlocks : blockCount;
      const oldest = newestNumber + 1n > count ? newestNumber + 1n - count : 0n;
      // The base fee after the newest block, read now: the loop below yields, and the chain moves meanwhile.
      const nextBaseFee =
        newest.kind === "pending" || newestNumber === node.head.header.number
          ? node.nextBaseFee()
          : (node.store.blockByNumber(newestNumber + 1n)?.header.baseFeePerGas ?? 0n);
      const baseFeePerGas: bigint[] = [];
      const gasUsedRatio: number[] = [];
      const reward: bigint[][] = [];
      for (let n = oldest; n <= newestNumber; n++) {
        // Up to 1024 block reads: the event loop gets a turn every YIELD_EVERY_BLOCKS blocks, so the
        // sequencer's snapshots do not wait for a whole batch of these (docs/node.md "Block production under load").
        if (n > oldest && (n - oldest) % YIELD_EVERY_BLOCKS === 0n) await yieldToEventLoop();
        const r = n === newestNumber ? newest : node.resolveTag(n);
        if (r === undefined) break;
        const c = node.content(r);
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
      baseFeePerGas.push(nextBaseFee);
      const out: T.FeeHistory = { oldestBlock: oldest, baseFeePerGas, gasUsedRatio };
      if (rewardPercentiles !== undefined) out.reward = reward;
      return out;
    },
    // Isthmus blocks follow Prague's blob schedule (EIP-7691).
    eth_blobBaseFee: () =>
      blobBaseFee(nextExcessBlobGas(node.head.header), PRAGUE_BLOB_SCHEDULE.baseFeeUpdateFraction),
  };
}
