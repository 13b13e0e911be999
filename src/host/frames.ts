/**
 * A range proved in several Prove frames (docs/host.md "Ranges in frames"): a range longer than
 * `--max-blocks-per-frame` is cut into consecutive sub-ranges of nearly equal length, each proved on the request's
 * L1 head, and the enclave's Aggregate request joins their per-block proposals into the range's aggregate.
 */

/** One frame's sub-range: blocks agreed + 1 … claimed. */
export interface FrameRange {
  readonly agreed: bigint;
  readonly claimed: bigint;
}

/**
 * The fewest sub-ranges of at most `maxBlocks` blocks that cover blocks agreed + 1 … claimed, in order, their
 * lengths differing by at most one (the longer first).
 */
export function frameRanges(agreed: bigint, claimed: bigint, maxBlocks: bigint): FrameRange[] {
  if (maxBlocks < 1n) throw new RangeError(`a frame covers at least one block, got ${maxBlocks}`);
  const count = claimed - agreed;
  if (count < 1n) throw new RangeError(`the range ${agreed} to ${claimed} holds no block`);
  const frames = (count + maxBlocks - 1n) / maxBlocks;
  const shortest = count / frames;
  const longer = count % frames;
  const out: FrameRange[] = [];
  let start = agreed;
  for (let i = 0n; i < frames; i++) {
    const end = start + shortest + (i < longer ? 1n : 0n);
    out.push({ agreed: start, claimed: end });
    start = end;
  }
  return out;
}
