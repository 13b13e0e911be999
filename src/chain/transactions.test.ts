import { Common } from "@ethereumjs/common";
import { createTxFromRLP } from "@ethereumjs/tx";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEPOSIT_TX_TYPE } from "./deposit-tx.js";
import { commonFor } from "./evm-setup.js";
import { loadFixture } from "./fixture.js";
import { fixtureFiles } from "./fixture-paths.test-support.js";
import { toHex } from "./hex.js";
import { OpFork } from "./rollup-config.js";
import { decodeTransaction } from "./transactions.js";

const PARAMS = [
  "txGas",
  "txCreationGas",
  "txDataZeroGas",
  "txDataNonZeroGas",
  "accessListAddressGas",
  "perAuthBaseGas",
];

describe("decodeTransaction", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("decodes the fixtures' user transactions as the library does with the caller's Common, merging the transaction parameters once", async () => {
    const common = commonFor(11155420n, OpFork.Isthmus);
    const raws: Uint8Array[] = [];
    for (const file of fixtureFiles()) {
      for (const raw of (await loadFixture(file)).transactions)
        if (raw[0] !== DEPOSIT_TX_TYPE) raws.push(raw);
    }
    expect(raws.length).toBeGreaterThan(50);
    const merges = vi.spyOn(Common.prototype, "updateParams");
    const decoded = raws.map((raw) => decodeTransaction(raw, common));
    // The library merges on every transaction it constructs (twice for legacy ones); ours once for the Common.
    expect(merges.mock.calls.length).toBe(1);
    for (const [i, raw] of raws.entries()) {
      const ours = decoded[i]!.body;
      if (ours.kind !== "signed") throw new Error("expected a signed transaction");
      const library = createTxFromRLP(raw, { common });
      expect(toHex(ours.tx.serialize())).toBe(toHex(library.serialize()));
      expect(toHex(ours.tx.getSenderAddress().bytes)).toBe(toHex(library.getSenderAddress().bytes));
      expect(ours.tx.getIntrinsicGas()).toBe(library.getIntrinsicGas());
      for (const name of PARAMS) expect(ours.tx.common.param(name)).toBe(library.common.param(name));
    }
  });
});
