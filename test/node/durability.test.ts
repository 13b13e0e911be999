/**
 * Durability of a real node process: after a graceful restart and after kill -9 the node resumes
 * at the same head with the same block hashes and state, and keeps building on it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { call, clients, hexNumber, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const dataDir = mkdtempSync(join(tmpdir(), "op-node-durability-"));
let node: NodeProcess | undefined;
afterAll(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// No call workers: their start-up is seconds of CPU per node on a loaded CI machine, and nothing here depends on
// where eth_call runs (the worker path is tested in calls, isolation, offloaded and call-pool).
const start = () => startNodeProcess({ dataDir, blockTimeMs: 300, flashblockIntervalMs: 50, callWorkers: 0 });

async function hashes(url: string, upTo: bigint): Promise<Hex[]> {
  const out: Hex[] = [];
  for (let n = 0n; n <= upTo; n++)
    out.push((await call<{ hash: Hex }>(url, "eth_getBlockByNumber", [hexNumber(n), false])).hash);
  return out;
}

describe("durability", () => {
  it("resumes at the same head with the same hashes after a restart and after kill -9", async () => {
    node = await start();
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const { walletClient, publicClient } = clients(node, 0);
    const tx = await walletClient.sendTransaction({ to: recipient, value: 4242n });
    const receipt = await publicClient.waitForTransactionReceipt({ hash: tx });
    await waitFor(
      async () =>
        BigInt(await call<Hex>(node!.url, "eth_blockNumber", [])) > receipt.blockNumber ? true : undefined,
      "seal",
    );

    // Graceful restart (SIGTERM): the block in progress is sealed before exit.
    await node.stop();
    node = await start();
    const head1 = BigInt(await call<Hex>(node.url, "eth_blockNumber", []));
    expect(head1).toBeGreaterThan(receipt.blockNumber);
    const before = await hashes(node.url, head1);
    expect(BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "latest"]))).toBe(4242n);
    const txAfter = await call<{ blockHash: Hex }>(node.url, "eth_getTransactionReceipt", [tx]);
    expect(txAfter.blockHash).toBe(before[Number(receipt.blockNumber)]);
    // It keeps building on the stored head.
    await waitFor(
      async () =>
        BigInt(await call<Hex>(node!.url, "eth_blockNumber", [])) >= head1 + 3n ? true : undefined,
      "new blocks",
    );
    const next = await call<{ parentHash: Hex }>(node.url, "eth_getBlockByNumber", [
      hexNumber(head1 + 1n),
      false,
    ]);
    expect(next.parentHash).toBe(before[Number(head1)]);

    // kill -9 in the middle of building: every block sealed before it survives unchanged.
    const sealedBeforeKill = BigInt(await call<Hex>(node.url, "eth_blockNumber", []));
    const hashesBeforeKill = await hashes(node.url, sealedBeforeKill);
    await node.kill();
    node = await start();
    const head2 = BigInt(await call<Hex>(node.url, "eth_blockNumber", []));
    expect(head2).toBeGreaterThanOrEqual(sealedBeforeKill);
    expect(await hashes(node.url, sealedBeforeKill)).toEqual(hashesBeforeKill);
    expect(hashesBeforeKill.slice(0, before.length)).toEqual(before);
    expect(BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient, "latest"]))).toBe(4242n);
    // The dev accounts are the same and can keep transacting (nonces continue).
    const { walletClient: w2, publicClient: p2 } = clients(node, 0);
    const tx2 = await w2.sendTransaction({ to: recipient, value: 1n });
    expect((await p2.waitForTransactionReceipt({ hash: tx2 })).status).toBe("success");
  });
});
