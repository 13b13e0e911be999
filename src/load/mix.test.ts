import { describe, expect, it } from "vitest";
import { LoadUsageError } from "./errors.js";
import { BASE_LIKE_MIX, formatMix, mixPicker, parseMix } from "./mix.js";
import { percentile } from "./stats.js";
import { errorKind } from "./rpc.js";

describe("load mix", () => {
  it("parses kind=weight lists, unnamed kinds at 0, and round-trips the default", () => {
    expect(parseMix("swap=3, storage=1")).toEqual({ transfer: 0, swap: 3, mint: 0, storage: 1, deploy: 0 });
    expect(parseMix(formatMix(BASE_LIKE_MIX))).toEqual(BASE_LIKE_MIX);
  });

  it("refuses unknown kinds, bad weights and an all-zero mix", () => {
    for (const bad of ["bridge=1", "swap", "swap=-1", "swap=x", "swap=0", "swap=1=2"])
      expect(() => parseMix(bad), bad).toThrow(LoadUsageError);
  });

  it("draws kinds in proportion to their weights and never a kind of weight 0", () => {
    let seed = 1;
    const random = (): number => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const pick = mixPicker(parseMix("transfer=3,mint=1"), random);
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const kind = pick();
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(["mint", "transfer"]);
    expect(counts.get("transfer")! / counts.get("mint")!).toBeGreaterThan(2.5);
    expect(counts.get("transfer")! / counts.get("mint")!).toBeLessThan(3.5);
  });
});

describe("load report helpers", () => {
  it("nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([], 50)).toBeUndefined();
  });

  it("names refused sends by their message's head, without numbers", () => {
    expect(errorKind("nonce too low: next nonce 5, tx nonce 3")).toBe("nonce too low");
    expect(errorKind("txpool is full")).toBe("txpool is full");
    expect(errorKind("too many pooled transactions from this sender (limit 64)")).toBe(
      "too many pooled transactions from this sender (limit )",
    );
  });
});
