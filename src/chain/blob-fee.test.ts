import { describe, expect, it } from "vitest";
import { CANCUN_BLOB_SCHEDULE, PRAGUE_BLOB_SCHEDULE, nextExcessBlobGas } from "./blob-fee.js";
import { blobBaseFee } from "./chains/l1-chains.js";

describe("blob base fee of the next block", () => {
  // fake_exponential(1, numerator, denominator) vectors from go-ethereum consensus/misc/eip4844/eip4844_test.go
  // (TestFakeExponential, the cases with factor 1): excess, update fraction, expected.
  const vectors: [bigint, bigint, bigint][] = [
    [0n, 1n, 1n],
    [2n, 1n, 6n],
    [4n, 2n, 6n],
    [3n, 1n, 16n],
    [6n, 2n, 18n],
    [4n, 1n, 49n],
    [8n, 2n, 50n],
    [5n, 1n, 136n],
    [5n, 2n, 11n],
    [50_000_000n, 2_225_652n, 5_709_098_764n],
  ];
  it.each(vectors)("blobBaseFee(%s, %s) = %s", (excess, fraction, expected) => {
    expect(blobBaseFee(excess, fraction)).toBe(expected);
  });

  it("is the minimum (1 wei) without excess blob gas, and about e^k after k update fractions of excess", () => {
    const f = PRAGUE_BLOB_SCHEDULE.baseFeeUpdateFraction;
    expect(blobBaseFee(nextExcessBlobGas({}), f)).toBe(1n);
    // e^10 = 22026.47
    expect(blobBaseFee(10n * f, f)).toBeGreaterThanOrEqual(22_025n);
    expect(blobBaseFee(10n * f, f)).toBeLessThanOrEqual(22_027n);
  });

  it("carries the parent's excess and used blob gas above the target into the next block", () => {
    expect(nextExcessBlobGas({})).toBe(0n);
    expect(nextExcessBlobGas({ excessBlobGas: 0n, blobGasUsed: 0n })).toBe(0n);
    const target = PRAGUE_BLOB_SCHEDULE.targetBlobGasPerBlock;
    expect(nextExcessBlobGas({ excessBlobGas: target, blobGasUsed: 0n })).toBe(0n);
    expect(nextExcessBlobGas({ excessBlobGas: 1000n, blobGasUsed: target })).toBe(1000n);
    expect(nextExcessBlobGas({ excessBlobGas: target, blobGasUsed: 131_072n })).toBe(131_072n);
    // Cancun targets half as much blob gas.
    expect(nextExcessBlobGas({ excessBlobGas: 0n, blobGasUsed: target }, CANCUN_BLOB_SCHEDULE)).toBe(
      target - CANCUN_BLOB_SCHEDULE.targetBlobGasPerBlock,
    );
  });
});
