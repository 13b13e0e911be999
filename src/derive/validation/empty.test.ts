/** Empty batches when the sequencing window of the current epoch has expired. */
import { describe, expect, it } from "vitest";
import { l1Ref, l2Ref, testDerivationConfig } from "./chain.test-support.js";
import { deriveEmptyBatch } from "./empty.js";

const config = testDerivationConfig(); // sequencing window 10 L1 blocks
const epoch = l1Ref(10n, 1_120n);
const next = l1Ref(11n, 1_140n);

describe("empty batches", () => {
  it("waits while the window of the epoch is open", () => {
    const safe = l2Ref(100n, 1_130n, epoch, 3n);
    expect(deriveEmptyBatch(config, [epoch, next], l1Ref(19n), safe).kind).toBe("wait");
  });

  it("derives an empty batch on the current epoch once the window has expired", () => {
    const safe = l2Ref(100n, 1_130n, epoch, 3n);
    const r = deriveEmptyBatch(config, [epoch, next], l1Ref(20n), safe);
    expect(r).toEqual({
      kind: "batch",
      batch: {
        parentHash: safe.hash,
        epochNumber: 10n,
        epochHash: epoch.hash,
        timestamp: 1_132n,
        transactions: [],
      },
    });
  });

  it("waits for the next epoch's L1 block even when the window has expired", () => {
    const safe = l2Ref(100n, 1_130n, epoch, 3n);
    expect(deriveEmptyBatch(config, [epoch], l1Ref(20n), safe).kind).toBe("wait");
  });

  it("advances the epoch once L2 time reaches the next epoch's L1 time", () => {
    const safe = l2Ref(104n, 1_138n, epoch, 7n);
    expect(deriveEmptyBatch(config, [epoch, next], l1Ref(20n), safe).kind).toBe("advance-epoch");
  });

  it("gives every epoch at least one block, even when its L1 time is already behind", () => {
    // The epoch after the safe head's origin: its first block uses it although L2 time is past the next L1 block.
    const prev = l1Ref(9n, 1_100n);
    const safe = l2Ref(104n, 1_150n, prev, 20n);
    const r = deriveEmptyBatch(config, [epoch, next], l1Ref(21n), safe);
    expect(r).toMatchObject({ kind: "batch", batch: { epochNumber: 10n, timestamp: 1_152n } });
    const notFirst = l2Ref(105n, 1_152n, epoch, 0n);
    expect(deriveEmptyBatch(config, [epoch, next], l1Ref(21n), notFirst).kind).toBe("advance-epoch");
  });
});
