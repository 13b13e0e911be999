import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { frameRanges } from "./frames.js";

describe("frameRanges", () => {
  it("cuts 600 blocks into six frames of 100, and 250 into 84 + 83 + 83", () => {
    expect(frameRanges(1000n, 1600n, 100n).map((f) => f.claimed - f.agreed)).toEqual([
      100n,
      100n,
      100n,
      100n,
      100n,
      100n,
    ]);
    expect(frameRanges(0n, 250n, 100n)).toEqual([
      { agreed: 0n, claimed: 84n },
      { agreed: 84n, claimed: 167n },
      { agreed: 167n, claimed: 250n },
    ]);
    expect(frameRanges(7n, 8n, 100n)).toEqual([{ agreed: 7n, claimed: 8n }]);
  });

  it("covers the range in order with the fewest frames, none longer than the bound (property)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 40n }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 700 }),
        (agreed, blocks, max) => {
          const frames = frameRanges(agreed, agreed + BigInt(blocks), BigInt(max));
          expect(frames.length).toBe(Math.ceil(blocks / max));
          expect(frames[0]!.agreed).toBe(agreed);
          expect(frames.at(-1)!.claimed).toBe(agreed + BigInt(blocks));
          for (const [i, frame] of frames.entries()) {
            expect(frame.claimed - frame.agreed).toBeGreaterThanOrEqual(1n);
            expect(frame.claimed - frame.agreed).toBeLessThanOrEqual(BigInt(max));
            if (i > 0) expect(frame.agreed).toBe(frames[i - 1]!.claimed);
          }
        },
      ),
    );
  });

  it("refuses an empty range and a bound below one block", () => {
    expect(() => frameRanges(5n, 5n, 10n)).toThrow(RangeError);
    expect(() => frameRanges(5n, 9n, 0n)).toThrow(RangeError);
  });
});
