/** The deposit-only fallback every caller of derive() shares: the payload, else its deposit-only replacement. */
import { describe, expect, it } from "vitest";
import { InvalidBlockError } from "../chain/index.js";
import { executeDerivedBlock } from "./execute-derived.js";

const deposit = Uint8Array.of(0x7e, 1);
const user = Uint8Array.of(0x02, 2);
const block = { transactions: [deposit, user], depositOnlyTransactions: [deposit] };

describe("executeDerivedBlock", () => {
  it("executes a valid payload as derived", async () => {
    const runs: (readonly Uint8Array[])[] = [];
    const executed = await executeDerivedBlock(block, async (transactions) => {
      runs.push(transactions);
      return "sealed";
    });
    expect(executed).toEqual({ sealed: "sealed", depositOnly: false });
    expect(runs).toEqual([[deposit, user]]);
  });

  it("replaces a payload src/chain refuses as invalid by its deposits, telling the caller why", async () => {
    const runs: (readonly Uint8Array[])[] = [];
    const told: InvalidBlockError[] = [];
    const executed = await executeDerivedBlock(
      block,
      async (transactions) => {
        runs.push(transactions);
        if (transactions.length > 1) throw new InvalidBlockError(1, new Error("nonce too low"));
        return "deposit-only";
      },
      (error) => told.push(error),
    );
    expect(executed).toEqual({ sealed: "deposit-only", depositOnly: true });
    expect(runs).toEqual([[deposit, user], [deposit]]);
    expect(told.map((e) => e.transactionIndex)).toEqual([1]);
  });

  it("lets any other failure through, without the replacement", async () => {
    let runs = 0;
    const missing = new Error("missing trie node");
    await expect(
      executeDerivedBlock(block, async () => {
        runs++;
        throw missing;
      }),
    ).rejects.toBe(missing);
    expect(runs).toBe(1);
  });
});
