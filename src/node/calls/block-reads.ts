/**
 * Block reads that run where eth_call runs (a call worker, or the event loop with `--call-workers 0`):
 * full blocks, a block's receipts, log ranges and fee history over sealed blocks, each answered as the
 * JSON text of its JSON-RPC `result`, the bytes the typed handler's result encodes to (docs/node/limits.md "Block
 * production under load"). The main thread resolves tags to block numbers and adds what only it holds
 * (the pending snapshot's logs or fee row); a worker reads the sealed blocks from the store's SQLite file.
 */
import type { Common } from "@ethereumjs/common";
import {
  eth_feeHistory,
  eth_getBlockByHash,
  eth_getBlockByNumber,
  eth_getBlockReceipts,
  eth_getLogs,
} from "../../../generated/rpc/index.js";
import type * as T from "../../../generated/rpc/index.js";
import type { BlockContent } from "../block-content.js";
import { formatBlock, formatReceipt } from "../rpc/format.js";
import { NodeLimitExceededError } from "../rpc/limits.js";
import { logsOf } from "../rpc/log-match.js";
import type { BlockSource } from "../store/block-store.js";

/** One block's eth_feeHistory entry. */
export interface FeeRow {
  baseFee: bigint;
  gasUsedRatio: number;
  /** One tip per requested percentile (absent when no percentiles were asked). */
  reward: bigint[] | undefined;
}

export type BlockRead =
  /** eth_getBlockByNumber / eth_getBlockByHash with full transactions, of sealed block `number`. */
  | { method: "eth_getBlockByNumber" | "eth_getBlockByHash"; number: bigint }
  /** eth_getBlockReceipts of sealed block `number`. */
  | { method: "eth_getBlockReceipts"; number: bigint }
  /**
   * eth_getLogs over sealed blocks `from..to` (none when `to < from`), then `tail` (the pending snapshot's
   * matching logs), stopping as soon as more than `maxResults` logs are counted.
   */
  | {
      method: "eth_getLogs";
      from: bigint;
      to: bigint;
      addresses: Uint8Array[] | undefined;
      topics: T.FilterTopic[] | null | undefined;
      tail: T.Log[];
      maxResults: number;
      /** How the limit error names what was counted. */
      what: string;
    }
  /**
   * eth_feeHistory: rows of sealed blocks `oldest..lastSealed`, then `tail` (the pending newest block's
   * row), then `nextBaseFee`.
   */
  | {
      method: "eth_feeHistory";
      oldest: bigint;
      lastSealed: bigint;
      percentiles: number[] | undefined;
      tail: FeeRow | undefined;
      nextBaseFee: bigint;
    };

function sealed(blocks: BlockSource, number: bigint): BlockContent {
  const block = blocks.blockByNumber(number);
  // The main thread resolved this number from a block already committed: the store has it.
  if (block === undefined) throw new RangeError(`sealed block ${number} is not in the store`);
  return block;
}

/** Full-transaction block JSON (eth_getBlockByNumber / ByHash with `true`). */
export function fullBlockJson(
  method: "eth_getBlockByNumber" | "eth_getBlockByHash",
  content: BlockContent,
  common: Common,
): string {
  const spec = method === "eth_getBlockByNumber" ? eth_getBlockByNumber : eth_getBlockByHash;
  return JSON.stringify(spec.encodeResult(formatBlock(content, true, common)));
}

/** eth_getBlockReceipts' result JSON. */
export function receiptsJson(content: BlockContent): string {
  return JSON.stringify(
    eth_getBlockReceipts.encodeResult(content.receipts.map((_, i) => formatReceipt(content, i))),
  );
}

function tipPercentile(sorted: { tip: bigint; gas: bigint }[], total: bigint, p: number): bigint {
  if (sorted.length === 0) return 0n;
  const threshold = (BigInt(Math.round(p * 100)) * total) / 10_000n;
  let acc = 0n;
  for (const e of sorted) {
    acc += e.gas;
    if (acc >= threshold) return e.tip;
  }
  return sorted[sorted.length - 1]!.tip;
}

/** A block's fee-history entry: base fee, gas used ratio and the tips at `percentiles` (by gas used). */
export function feeRow(c: BlockContent, percentiles: readonly number[] | undefined): FeeRow {
  const baseFee = c.header.baseFeePerGas ?? 0n;
  let reward: bigint[] | undefined;
  if (percentiles !== undefined) {
    const tips = c.details
      .map((d) => ({
        tip: d.effectiveGasPrice > baseFee ? d.effectiveGasPrice - baseFee : 0n,
        gas: d.gasUsed,
      }))
      .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
    const total = tips.reduce((s, e) => s + e.gas, 0n);
    reward = percentiles.map((p) => tipPercentile(tips, total, p));
  }
  return { baseFee, gasUsedRatio: Number(c.header.gasUsed) / Number(c.header.gasLimit), reward };
}

/** The FeeHistory result of `rows` (oldest first) and the base fee after the newest. */
export function feeHistoryResult(
  oldest: bigint,
  rows: readonly FeeRow[],
  nextBaseFee: bigint,
  withReward: boolean,
): T.FeeHistory {
  const out: T.FeeHistory = {
    oldestBlock: oldest,
    baseFeePerGas: [...rows.map((r) => r.baseFee), nextBaseFee],
    gasUsedRatio: rows.map((r) => r.gasUsedRatio),
  };
  if (withReward) out.reward = rows.map((r) => r.reward ?? []);
  return out;
}

/** Runs `read` over `blocks` and answers its JSON-RPC result as JSON text. */
export function blockReadJson(read: BlockRead, blocks: BlockSource, common: Common): string {
  switch (read.method) {
    case "eth_getBlockByNumber":
    case "eth_getBlockByHash":
      return fullBlockJson(read.method, sealed(blocks, read.number), common);
    case "eth_getBlockReceipts":
      return receiptsJson(sealed(blocks, read.number));
    case "eth_getLogs": {
      const logs: T.Log[] = [];
      const check = () => {
        // Stops as soon as the count is over: the rest of the range is not read.
        if (logs.length > read.maxResults)
          throw new NodeLimitExceededError("logsMaxResults", read.maxResults, logs.length, read.what);
      };
      for (let n = read.from; n <= read.to; n++) {
        logs.push(...logsOf(sealed(blocks, n), read.addresses, read.topics));
        check();
      }
      if (read.tail.length > 0) {
        logs.push(...read.tail);
        check();
      }
      return JSON.stringify(eth_getLogs.encodeResult(logs));
    }
    case "eth_feeHistory": {
      const rows: FeeRow[] = [];
      for (let n = read.oldest; n <= read.lastSealed; n++)
        rows.push(feeRow(sealed(blocks, n), read.percentiles));
      if (read.tail !== undefined) rows.push(read.tail);
      return JSON.stringify(
        eth_feeHistory.encodeResult(
          feeHistoryResult(read.oldest, rows, read.nextBaseFee, read.percentiles !== undefined),
        ),
      );
    }
  }
}
