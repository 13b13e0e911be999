/**
 * Intermediate-root sampling for the aggregate journal (docs/decisions.md "Journal details"): with L blocks in the range and
 * interval I, N = floor(L / I) roots, taken at blocks start + k·I for k = 1..N, so the final root is
 * included exactly when I divides L. I = 0 is an invalid request.
 */
import { OnchainError } from "./errors.js";

/** The sampling interval is zero, or the roots do not match the range. */
export class SamplingError extends OnchainError<"sampling"> {
  override readonly name = "SamplingError";
  constructor(
    message: string,
    details: { readonly interval?: bigint; readonly blockCount?: number; readonly block?: bigint },
  ) {
    super(message, { kind: "sampling", details });
  }
}

/** Block numbers whose output roots are sampled, for a range (start, start + blockCount]. */
export function sampledBlockNumbers(startBlock: bigint, blockCount: number, interval: bigint): bigint[] {
  if (interval <= 0n) throw new SamplingError("intermediate block interval must be at least 1", { interval });
  if (!Number.isSafeInteger(blockCount) || blockCount < 1)
    throw new SamplingError("a range holds at least one block", { blockCount });
  const count = BigInt(blockCount) / interval;
  const blocks: bigint[] = [];
  for (let k = 1n; k <= count; k++) blocks.push(startBlock + k * interval);
  return blocks;
}

/**
 * The sampled roots, given `outputRoots[i]` = the output root at block start + 1 + i (one per block of the
 * range, in order).
 */
export function sampleIntermediateRoots(
  startBlock: bigint,
  outputRoots: readonly Uint8Array[],
  interval: bigint,
): Uint8Array[] {
  return sampledBlockNumbers(startBlock, outputRoots.length, interval).map((block) => {
    const root = outputRoots[Number(block - startBlock - 1n)];
    if (root === undefined) throw new SamplingError(`no output root for block ${block}`, { block });
    return root;
  });
}
