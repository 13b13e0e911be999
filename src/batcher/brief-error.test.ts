/**
 * A refused blob-sized transaction: viem's error repeats the whole request (the raw bytes), the batcher's log field
 * keeps the reason and drops the bytes.
 */
import { bytesToHex, createPublicClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../devnet/l1/anvil.js";
import { briefError } from "./tx-sender.js";

let anvil: Anvil;

beforeAll(async () => {
  anvil = await startAnvil({ mining: { mode: "manual" } });
}, 120_000);

afterAll(async () => {
  await anvil?.stop();
});

describe("briefError", () => {
  it("keeps viem's reason for a refused 300 kB raw transaction and none of its bytes", async () => {
    const client = createPublicClient({ transport: http(anvil.rpcUrl, { timeout: 60_000 }) });
    const raw = bytesToHex(new Uint8Array(300_000).fill(0xab));
    const err = await client.sendRawTransaction({ serializedTransaction: raw }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message.length).toBeGreaterThan(300_000);
    const brief = briefError(err);
    expect(brief.message.length).toBeLessThanOrEqual(500);
    expect(brief.message).not.toContain("abababab");
    expect(brief.message.length).toBeGreaterThan(0);
    expect(brief.name).toBe((err as Error).name);
  });

  it("cuts a plain error's message and names a thrown non-error", () => {
    expect(briefError(new TypeError("x".repeat(2_000)))).toEqual({
      name: "TypeError",
      message: "x".repeat(500),
    });
    expect(briefError("refused")).toEqual({ name: "string", message: "refused" });
  });
});
