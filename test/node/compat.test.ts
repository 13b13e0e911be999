/**
 * --preconfirmed-receipts false: receipts only once sealed, so clients that read `latest` right after
 * a receipt (contracts/deploy.ts) work unchanged; the pending view still shows pre-confirmed state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { deployArtifact } from "../../contracts/deploy.js";
import { call, clients, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

let node: NodeProcess;
beforeAll(async () => {
  node = await startNodeProcess({
    blockTimeMs: 500,
    flashblockIntervalMs: 50,
    preconfirmedReceipts: false,
    callWorkers: 0,
  });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

describe("--preconfirmed-receipts false", () => {
  it("serves receipts only for sealed transactions; contracts/deploy.ts works as is", async () => {
    const { publicClient, walletClient } = clients(node, 0);
    const d = await deployArtifact(
      { publicClient, walletClient },
      "Eip3009Token",
      ["Dev USD", "DUSD", walletClient.account.address],
      {
        pollingIntervalMs: 50,
      },
    );
    expect(await publicClient.getCode({ address: d.address })).toMatch(/^0x[0-9a-f]+$/);

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await walletClient.sendTransaction({ to: recipient, value: 9n });
    // Pre-confirmed: visible in pending state, placed nowhere yet, no receipt.
    const seen = await waitFor(
      async () => {
        const balance = BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "pending"]));
        if (balance !== 9n) return undefined;
        return {
          tx: await call<{ blockHash: Hex | null; hash: Hex } | null>(node.url, "eth_getTransactionByHash", [
            hash,
          ]),
          receipt: await call<unknown>(node.url, "eth_getTransactionReceipt", [hash]),
          pendingReceipts: await call<unknown>(node.url, "eth_getBlockReceipts", ["pending"]),
          head: BigInt(await call<Hex>(node.url, "eth_blockNumber", [])),
          latest: BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "latest"])),
        };
      },
      "pre-confirmation",
      5_000,
      2,
    );
    if (seen.latest === 0n) {
      // Still not sealed when read: the transaction looks pooled.
      expect(seen.receipt).toBeNull();
      expect(seen.pendingReceipts).toBeNull();
      expect(seen.tx).toMatchObject({ hash, blockHash: null });
    }
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.blockNumber).toBeLessThanOrEqual(BigInt(await call<Hex>(node.url, "eth_blockNumber", [])));
    expect(BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "latest"]))).toBe(9n);
  });
});
