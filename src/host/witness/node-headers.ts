/**
 * The L2 node's headers of a range, for the host's runs that do not execute on their own parent headers: the
 * parallel run (parallel-run.ts) and the forwarded run (forward-run.ts). Nothing here is trusted: the program
 * accepts a range on them only when each block's hash chains to the next block's parent, and the enclave checks
 * again.
 */
import { type BlockHeader, decodeHeader, fromHex, keccak256, toHex } from "../../chain/index.js";
import type { JsonRpcClient } from "../../chain-rpc/index.js";
import { type HeaderChain, MAX_PARALLEL_BLOCKS } from "../../proof/program/index.js";
import { BoundedRunner, withRetries } from "./requests.js";

/** Headers asked of the L2 node at once. */
const HEADER_CONCURRENCY = 8;

/** The consensus encoding of an L2 header by number or hash (debug_getRawHeader); an Error when the node has none. */
export async function nodeRawHeader(
  l2: JsonRpcClient,
  block: bigint | Uint8Array,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const raw = await withRetries(
    () =>
      l2.call("debug_getRawHeader", [typeof block === "bigint" ? `0x${block.toString(16)}` : toHex(block)]),
    signal,
  );
  if (typeof raw !== "string" || !/^0x([0-9a-fA-F]{2})+$/.test(raw))
    throw new Error(
      `the L2 node has no header for ${typeof block === "bigint" ? `block ${block}` : toHex(block)}`,
    );
  return fromHex(raw);
}

/** A range's headers as the node answered them: the chain, and the encodings (the agreed head's first). */
export interface NodeHeaders {
  readonly chain: HeaderChain;
  /** The agreed head's encoded header, then those of blocks agreed + 1 … claimed. */
  readonly values: readonly Uint8Array[];
}

/**
 * The headers of blocks agreed + 1 … `claimed` as the L2 node has them, each checked to be its number's, or why
 * there are none (a range shorter than `minBlocks` or longer than MAX_PARALLEL_BLOCKS, a header of another number).
 */
export async function nodeHeaderChain(
  l2: JsonRpcClient,
  agreed: { readonly number: bigint; readonly hash: Uint8Array },
  claimed: bigint,
  minBlocks: bigint,
  signal?: AbortSignal,
): Promise<NodeHeaders | string> {
  const count = claimed - agreed.number;
  if (count < minBlocks)
    return count === 1n
      ? "a range of one block (nothing to execute concurrently)"
      : `a range of ${count} blocks`;
  if (count > BigInt(MAX_PARALLEL_BLOCKS)) return `a range of ${count} blocks`;
  const runner = new BoundedRunner(HEADER_CONCURRENCY);
  const numbers = Array.from({ length: Number(count) }, (_, i) => agreed.number + 1n + BigInt(i));
  const values = await Promise.all(numbers.map((n) => runner.run(() => nodeRawHeader(l2, n, signal))));
  const headers: BlockHeader[] = [];
  for (const [i, value] of values.entries()) {
    const header = decodeHeader(value);
    if (header.number !== numbers[i])
      return `the L2 node answered block ${header.number} for block ${numbers[i]}`;
    headers.push(header);
  }
  return {
    chain: { headers, hashes: values.map((value) => keccak256(value)) },
    values: [await nodeRawHeader(l2, agreed.hash, signal), ...values],
  };
}
