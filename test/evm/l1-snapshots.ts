/**
 * One devnet L1 per suite, every test starting from the chain as the suite's set-up left it: anvil's
 * evm_snapshot after the set-up, evm_revert (and a new snapshot) before each test, anvil stopped after the suite.
 */
import type { Hex } from "viem";
import { afterAll, beforeEach, expect } from "vitest";
import type { DevnetL1 } from "../../src/devnet/l1/bootstrap.js";

/**
 * Registers the suite's hooks (call it inside `describe`, before the set-up's `beforeAll` ends); returns the
 * function the set-up calls last, which takes the snapshot each test starts from.
 */
export function revertToSnapshotEachTest(l1: () => DevnetL1 | undefined): () => Promise<void> {
  let snapshot: Hex | undefined;
  const anvil = () => {
    const started = l1();
    if (started === undefined) throw new Error("the suite's L1 was not started");
    return started.anvil;
  };
  const take = async (): Promise<void> => {
    snapshot = await anvil().request<Hex>("evm_snapshot");
  };
  beforeEach(async () => {
    expect(snapshot, "the set-up took its snapshot").toBeDefined();
    expect(await anvil().request<boolean>("evm_revert", [snapshot])).toBe(true);
    await take();
  });
  afterAll(async () => {
    await l1()?.anvil.stop();
  });
  return take;
}
