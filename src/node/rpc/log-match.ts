/**
 * Matching logs against a filter (eth_getLogs, log filters, `logs` subscriptions). Apart from shared.ts so
 * that the call workers' block reads (src/node/calls/block-reads.ts) use it without the node's handlers.
 */
import type * as T from "../../../generated/rpc/index.js";
import { bytesEqual } from "../../chain/index.js";
import type { BlockContent } from "../block-content.js";
import { formatLogs } from "./format.js";

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
