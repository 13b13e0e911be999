/**
 * The transaction sender against anvil with manual mining: a calldata transaction priced out by the L1 base fee is
 * sent again with the same nonce and higher fees after the resubmission timeout, and exactly one of the versions is
 * included; an included transaction counts only once confirmed; a transaction a reorg took out of L1, whose nonce
 * another transaction then took, ends in L1ReorgError (the reorg is the cause, not a failed post).
 */
import { createWalletClient, http, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Kzg, loadKzg } from "../derive/index.js";
import { type Anvil, startAnvil } from "../devnet/l1/anvil.js";
import { createMemoryLogger } from "../log/index.js";
import { MetricsRegistry } from "../metrics/index.js";
import { BatcherMetrics } from "./metrics.js";
import { L1ReorgError } from "./errors.js";
import { viemKzg } from "./service.js";
import { TxSender } from "./tx-sender.js";

// Anvil's development account 3 (public test mnemonic).
const account = privateKeyToAccount("0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6");
const INBOX = "0xff00000000000000000000000000000000000901";

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil({ mining: { mode: "manual" } });
}, 120_000);
afterAll(async () => {
  await anvil?.stop();
});

function sender(confirmations: number): {
  sender: TxSender;
  metrics: BatcherMetrics;
  abort: AbortController;
  lines: ReturnType<typeof createMemoryLogger>["lines"];
} {
  const abort = new AbortController();
  const { logger, lines } = createMemoryLogger("batcher");
  const metrics = new BatcherMetrics(new MetricsRegistry());
  const walletClient = createWalletClient({
    account,
    chain: anvil.chain,
    transport: http(anvil.rpcUrl, { timeout: 60_000 }),
  });
  return {
    abort,
    metrics,
    lines,
    sender: new TxSender({
      publicClient: anvil.client as never,
      walletClient,
      account,
      chain: anvil.chain,
      batchInbox: INBOX,
      kzg: async (): Promise<ReturnType<typeof viemKzg>> => viemKzg((await loadKzg()) as Kzg),
      resubmitAfterBlocks: 3,
      confirmations,
      pollIntervalMs: 20,
      metrics,
      logger,
      signal: abort.signal,
    }),
  };
}

async function counter(metrics: BatcherMetrics, outcome: string): Promise<number> {
  const values = (await metrics.transactions.get()).values;
  return values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

/** Mines one block whose base fee is `baseFee` and waits until the sender has looked at it. */
async function mineAt(baseFee: bigint): Promise<void> {
  await anvil.request("anvil_setNextBlockBaseFeePerGas", [`0x${baseFee.toString(16)}`]);
  await anvil.mine();
  await new Promise((r) => setTimeout(r, 60));
}

describe("TxSender", () => {
  it("resends a priced-out transaction with the same nonce and higher fees; one version is included", async () => {
    const { sender: s, metrics, lines } = sender(1);
    const nonce = await anvil.client.getTransactionCount({ address: account.address });
    const posted = s.post({ kind: "calldata", data: new Uint8Array([0, 1, 2, 3]) });
    let done = false;
    void posted.finally(() => (done = true));
    // The first version, read from the pool before anything is mined.
    let firstHash: `0x${string}` | undefined;
    while (firstHash === undefined) {
      await new Promise((r) => setTimeout(r, 20));
      firstHash = lines.find((l) => l.msg === "batcher transaction sent")?.hash as `0x${string}` | undefined;
    }
    const first = await anvil.client.getTransaction({ hash: firstHash });
    // Price everything out until the sender has resent at least twice.
    while ((await counter(metrics, "resubmitted")) < 2) await mineAt(parseGwei("1000"));
    while (!done) await mineAt(1n);
    const receipt = await posted;
    expect(receipt.status).toBe("success");
    const tx = await anvil.client.getTransaction({ hash: receipt.transactionHash });
    expect(tx.nonce).toBe(nonce);
    expect(tx.to).toBe(INBOX);
    expect(tx.input).toBe("0x00010203");
    // The included version is a resent one: another hash, fees bumped twice by 25 % at least.
    expect(receipt.transactionHash).not.toBe(firstHash);
    expect(tx.maxFeePerGas! * 10_000n).toBeGreaterThanOrEqual(first.maxFeePerGas! * 15_625n);
    expect(tx.maxPriorityFeePerGas! * 10_000n).toBeGreaterThanOrEqual(first.maxPriorityFeePerGas! * 15_625n);
    expect(await anvil.client.getTransactionCount({ address: account.address })).toBe(nonce + 1);
    expect(await counter(metrics, "included")).toBe(1);
    // No other transaction of the account made it: one nonce, one inclusion.
    const pending = await anvil.client.getTransactionCount({ address: account.address, blockTag: "pending" });
    expect(pending).toBe(nonce + 1);
    expect(Number((await metrics.l1GasUsed.get()).values[0]!.value)).toBeGreaterThan(21_000);
  }, 120_000);

  it("counts an included transaction only once it is `confirmations` blocks deep", async () => {
    const { sender: s } = sender(3);
    let done = false;
    const posted = s.post({ kind: "calldata", data: new Uint8Array([9]) });
    void posted.finally(() => (done = true));
    let mined = 0;
    while (!done) {
      await mineAt(1n);
      mined++;
    }
    const receipt = await posted;
    const head = await anvil.client.getBlockNumber();
    expect(head - receipt.blockNumber).toBeGreaterThanOrEqual(2n);
    expect(mined).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it("reports a transaction reorged out of L1 whose nonce another transaction took as the reorg", async () => {
    const { sender: s, metrics, lines } = sender(3);
    const nonce = await anvil.client.getTransactionCount({ address: account.address });
    const posted = s.post({ kind: "calldata", data: new Uint8Array([7, 7]) });
    const failed = posted.then(
      () => undefined,
      (e: unknown) => e,
    );
    const seen = async (msg: string): Promise<Record<string, unknown>> => {
      for (;;) {
        const line = lines.find((l) => l.msg === msg);
        if (line !== undefined) return line;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await seen("batcher transaction sent");
    await mineAt(1n);
    const inclusion = await seen("batcher transaction included; waiting for confirmations");
    // Replace the block that held it with one where another transaction of the account takes the nonce.
    await anvil.request("anvil_reorg", [1, [[{ from: account.address, to: INBOX, value: "0x1" }, 0]]]);
    expect(await anvil.client.getTransactionCount({ address: account.address })).toBe(nonce + 1);
    const error = await failed;
    expect(error).toBeInstanceOf(L1ReorgError);
    expect((error as L1ReorgError).details).toMatchObject({ hash: inclusion.hash, nonce });
    expect(await counter(metrics, "reorged")).toBe(1);
    expect(await counter(metrics, "included")).toBe(0);
  }, 120_000);
});
