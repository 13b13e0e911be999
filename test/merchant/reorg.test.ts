/**
 * A chain change under the merchant service: the node it talks to is restarted from an older copy of its data
 * directory, so every block after the copy is replaced by a different one at the same height (the project's node
 * does not reorg its unsafe chain on an L1 reorg, docs/merchant.md "Reorganisations"; a node restored from an older
 * state is the deepest real replacement of blocks its processes can produce). Orders settled in blocks that left
 * the chain go back to the state they were settled from and are re-evaluated: our own capture is re-sent (the
 * same signed bytes) and settles again on the restored chain; a stranger's capture that is gone leaves the order
 * voided.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuthorizationState, simulateAndRelayCapture } from "../../src/payments/index.js";
import { freePort } from "../node/helpers.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { startMerchantProcess, type MerchantProcess } from "./support/merchant-process.js";
import { clientFor, type TestChain } from "./support/test-chain.js";
import { buyerAuthorization, createWorld, orderBody, type World } from "./support/world.js";

let dir: string;
let dataDir: string;
let snapshot: string;
let port: number;
let node: NodeProcess | undefined;
let world: World;
let merchant: MerchantProcess | undefined;

function startNode(): Promise<NodeProcess> {
  return startNodeProcess({ blockTimeMs: 200, flashblockIntervalMs: 50, callWorkers: 0, dataDir, port });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "merchant-reorg-"));
  dataDir = join(dir, "node");
  snapshot = join(dir, "snapshot");
  port = await freePort();
  node = await startNode();
  const chain: TestChain = {
    kind: "node",
    rpcUrl: node.url,
    chainId: node.chainId,
    keys: node.accounts.map((a) => a.privateKey),
    publicClient: clientFor(node.url, node.chainId),
    close: async () => undefined,
  };
  world = await createWorld(chain);
  merchant = await startMerchantProcess({
    rpcUrl: node.url,
    token: world.token,
    relayerKey: world.relayerKey,
    store: { sqlite: join(dir, "orders.db") },
  });
});

afterAll(async () => {
  await merchant?.stop();
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function blockHashOf(txHash: `0x${string}`): Promise<`0x${string}` | undefined> {
  const receipt = await world.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
  return receipt?.blockHash;
}

describe("the merchant service when blocks leave the chain", () => {
  it("rewinds orders settled in replaced blocks to their state before and re-evaluates them", async () => {
    const m = merchant!;
    // Some blocks the service has checked, then a copy of the node's state: the chain both futures share.
    const seen = await world.publicClient.getBlockNumber({ cacheTime: 0 });
    await until("the service to pass a few blocks", async () =>
      (await world.publicClient.getBlockNumber({ cacheTime: 0 })) > seen + 5n ? true : undefined,
    );
    await node!.stop();
    cpSync(dataDir, snapshot, { recursive: true });
    node = await startNode();

    // Future A: our capture of one order, a stranger's capture of a voided one; both settled.
    const ours = await buyerAuthorization(world, { value: 3_000_000n });
    const theirs = await buyerAuthorization(world, { value: 4_000_000n });
    const first = (await m.client.createOrder(orderBody(ours))).order;
    const second = (await m.client.createOrder(orderBody(theirs))).order;
    await m.client.capture(first.id);
    await m.client.void(second.id);
    const relayed = await simulateAndRelayCapture({
      publicClient: world.publicClient,
      walletClient: world.walletFor(world.stranger),
      token: world.token,
      authorization: theirs,
    });
    const capturedA = await m.client.waitForState(first.id, ["captured", "failed"], 60_000);
    const strangerA = await m.client.waitForState(second.id, ["captured", "expired", "failed"], 60_000);
    expect([capturedA.state, strangerA.state]).toEqual(["captured", "captured"]);
    expect(strangerA.settledTxHash).toBe(relayed.transactionHash);
    const ourTx = capturedA.txHash as `0x${string}`;
    expect(await blockHashOf(ourTx)).toBeDefined();

    // Future B: the node restarted from the copy; the blocks of both captures are gone.
    await node!.stop();
    rmSync(dataDir, { recursive: true, force: true });
    cpSync(snapshot, dataDir, { recursive: true });
    node = await startNode();
    expect(
      await readAuthorizationState(
        world.publicClient,
        world.token,
        world.buyer.address,
        theirs.authorization.nonce,
      ),
    ).toBe(false);

    // The stranger's capture left the chain: the order is voided again (and the nonce unused).
    const back = await until("the voided order to be rewound", async () => {
      const { order } = await m.client.getOrder(second.id);
      return order.state === "voided" ? order : undefined;
    });
    expect(back.settledTxHash).toBeNull();
    expect(back.note).toMatch(/left the chain/);
    // Our capture was rewound to capturing, its signed bytes sent again, and settled again in a block of future B.
    const recaptured = await until("our capture to settle again", async () => {
      const { order } = await m.client.getOrder(first.id);
      return order.state === "captured" && order.version >= capturedA.version + 2 ? order : undefined;
    });
    expect(recaptured.txHash).toBe(ourTx);
    expect(recaptured.settledTxHash).toBe(ourTx);
    // Mined again on the restored chain (the same bytes over the same parent may even give the same block: the
    // chain that left held the stranger's capture, which this one does not).
    expect(await blockHashOf(ourTx)).toBeDefined();
    expect(
      await readAuthorizationState(
        world.publicClient,
        world.token,
        world.buyer.address,
        ours.authorization.nonce,
      ),
    ).toBe(true);
    expect(
      await readAuthorizationState(
        world.publicClient,
        world.token,
        world.buyer.address,
        theirs.authorization.nonce,
      ),
    ).toBe(false);
    expect((await m.client.getOrder(second.id)).order.state).toBe("voided");
    expect(m.child.exitCode).toBeNull();
  }, 240_000);
});
