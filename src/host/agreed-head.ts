/**
 * The agreed L2 head's block number, looked up on the L2 execution RPC by its hash (viem), so the host can bound a
 * proof's range before it routes or collects anything (--max-blocks-per-proof).
 */
import { bytesToHex, createPublicClient, http } from "viem";

/** A lookup of an L2 block's number by hash; rejects when the endpoint fails or does not know the block. */
export function agreedHeadNumberLookup(
  l2RpcUrl: string,
  timeoutMs = 10_000,
): (hash: Uint8Array, signal: AbortSignal) => Promise<bigint> {
  const client = createPublicClient({ transport: http(l2RpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
  return async (hash, signal) => {
    signal.throwIfAborted();
    const block = await client.getBlock({ blockHash: bytesToHex(hash) });
    signal.throwIfAborted();
    return block.number;
  };
}
