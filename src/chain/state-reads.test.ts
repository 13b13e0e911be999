import { describe, expect, it } from "vitest";
import { BlockBuilder } from "./block-builder.js";
import { DEPOSIT_TX_TYPE } from "./deposit-tx.js";
import { fixtureStore, loadFixture } from "./fixture.js";
import { fixtureFiles } from "./fixture-paths.test-support.js";
import { fromHex, toHexRaw } from "./hex.js";
import { L1_BLOCK_ADDRESS } from "./l1-fee.js";
import { decodeTransaction } from "./transactions.js";

describe("BlockBuilder.stateReads / readAccount (what a block touched of its pre-state)", () => {
  it("records the senders, recipients and L1Block slots a real block reads, and reads them back as the block left them", async () => {
    const fixture = await loadFixture(fixtureFiles()[0]!);
    const builder = await BlockBuilder.start({
      config: fixture.config,
      parent: fixture.parent,
      attributes: fixture.attributes,
      source: fixtureStore(fixture),
    });
    const senders = new Map<string, bigint>();
    for (const raw of fixture.transactions) {
      const decoded = decodeTransaction(raw, builder.common);
      const r = await builder.addTransaction(decoded);
      expect(r.ok).toBe(true);
      if (raw[0] === DEPOSIT_TX_TYPE || decoded.body.kind !== "signed") continue;
      const tx = decoded.body.tx;
      senders.set(toHexRaw(tx.getSenderAddress().bytes), tx.nonce + 1n);
      if (tx.to !== undefined) expect(builder.stateReads.has(toHexRaw(tx.to.bytes))).toBe(true);
    }
    expect(senders.size).toBeGreaterThan(0);
    for (const [sender, nextNonce] of senders) {
      expect(builder.stateReads.has(sender)).toBe(true);
      const account = await builder.readAccount(Buffer.from(sender, "hex"));
      expect(account?.nonce).toBe(nextNonce);
    }
    // The L1 data fee reads L1Block's slots (the deposit wrote them): recorded, and read back as 32-byte words.
    const l1BlockSlots = builder.stateReads.get(L1_BLOCK_ADDRESS.slice(2).toLowerCase());
    expect(l1BlockSlots?.size ?? 0).toBeGreaterThan(0);
    const l1Block = await builder.readAccount(fromHex(L1_BLOCK_ADDRESS), l1BlockSlots!);
    expect(l1Block?.code.length).toBeGreaterThan(0);
    expect([...l1Block!.storage.values()].every((v) => v.length === 32)).toBe(true);
    expect([...l1Block!.storage.values()].some((v) => v.some((b) => b !== 0))).toBe(true);
  });
});
