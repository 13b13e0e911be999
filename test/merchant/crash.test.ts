/**
 * kill -9 of the merchant service process at the two dangerous points (a test-only environment
 * variable makes the process SIGKILL itself there, see src/merchant/crash-points.ts):
 * - after the database commit of the attempt and before the broadcast;
 * - after the broadcast and before the receipt.
 * After a restart on the same database the reconciler must reach the true state with exactly one
 * transaction sent: nothing lost, nothing sent twice. On SQLite and PostgreSQL, real node process. The two stores'
 * runs of a case go side by side, each with its own token, buyer and relayer (so each counts only its own nonces).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThrowawayCluster } from "./support/throwaway-cluster.js";
import { PostgresOrderStore } from "../../src/merchant/store/postgres-store.js";
import { SqliteOrderStore } from "../../src/merchant/store/sqlite-store.js";
import type { OrderStore } from "../../src/merchant/store/store.js";
import { findNonceConsumer, readAuthorizationState } from "../../src/payments/index.js";
import { startMerchantProcess } from "./support/merchant-process.js";
import { startClusterAndChain, type TestChain } from "./support/test-chain.js";
import {
  balanceOf,
  buyerAuthorization,
  buyerCancellation,
  createWorld,
  orderBody,
  type World,
} from "./support/world.js";

let chain: TestChain;
const STORES = ["sqlite", "postgres"] as const;
type StoreKind = (typeof STORES)[number];
let worlds: Record<StoreKind, World>;
let cluster: ThrowawayCluster;
let dir: string;
let databases = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "merchant-crash-"));
  ({ cluster, chain } = await startClusterAndChain());
  // The node's dev keys 0-3 for the SQLite runs, 4-7 for the PostgreSQL ones.
  const [sqliteWorld, postgresWorld] = await Promise.all([
    createWorld(chain),
    createWorld({ ...chain, keys: chain.keys.slice(4) }),
  ]);
  worlds = { sqlite: sqliteWorld, postgres: postgresWorld };
});

afterAll(async () => {
  await chain?.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function relayerNonce(world: World, blockTag: "latest" | "pending"): Promise<number> {
  return world.publicClient.getTransactionCount({ address: world.relayer.address, blockTag });
}

async function waitBlocks(world: World, count: number): Promise<void> {
  const start = await world.publicClient.getBlockNumber({ cacheTime: 0 });
  while ((await world.publicClient.getBlockNumber({ cacheTime: 0 })) < start + BigInt(count)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const CASES = [
  { kind: "capture", point: "after-commit" },
  { kind: "capture", point: "after-broadcast" },
  { kind: "cancel", point: "after-commit" },
  { kind: "cancel", point: "after-broadcast" },
] as const;

type Case = (typeof CASES)[number];

/** One case on one store: the doomed service dies at `point`, a restarted one settles the order. */
async function crashAndRecover(storeKind: StoreKind, { kind, point }: Case): Promise<void> {
  const world = worlds[storeKind];
  databases += 1;
  const store: { sqlite: string } | { databaseUrl: string } =
    storeKind === "sqlite"
      ? { sqlite: join(dir, `crash-${databases}.db`) }
      : { databaseUrl: await cluster.createDatabase(`crash_${databases}`) };
  const base = { rpcUrl: chain.rpcUrl, token: world.token, relayerKey: world.relayerKey, store };

  const doomed = await startMerchantProcess({
    ...base,
    env: { MERCHANT_CRASH_AT: point, MERCHANT_CRASH_KIND: kind },
  });
  const signed = await buyerAuthorization(world, { value: 3_000_000n });
  const { order } = await doomed.client.createOrder(orderBody(signed));
  await waitBlocks(world, 2); // nothing of ours in flight before the decision
  const nonceBefore = await relayerNonce(world, "pending");
  const payeeBefore = await balanceOf(world, world.relayer.address);

  const decision =
    kind === "capture"
      ? doomed.client.capture(order.id)
      : doomed.client.cancel(order.id, await buyerCancellation(world, signed));
  await expect(decision).rejects.toThrow(); // the process died mid-request
  expect((await doomed.exited).signal).toBe("SIGKILL");

  await waitBlocks(world, 3);
  // What reached the chain before the restart: nothing after the commit, our one transaction after the broadcast.
  expect(await relayerNonce(world, "latest")).toBe(point === "after-commit" ? nonceBefore : nonceBefore + 1);

  const revived = await startMerchantProcess(base);
  try {
    const final = await revived.client.waitForState(order.id, ["captured", "cancelled", "failed"]);
    expect(final.state).toBe(kind === "capture" ? "captured" : "cancelled");
    await waitBlocks(world, 3);
    expect(await relayerNonce(world, "latest")).toBe(nonceBefore + 1);
    const consumer = await findNonceConsumer(world.publicClient, {
      token: world.token,
      authorizer: signed.authorization.from,
      nonce: signed.authorization.nonce,
    });
    expect(consumer?.kind).toBe(kind === "capture" ? "used" : "canceled");
    expect(final.settledTxHash).toBe(consumer?.transactionHash);
    expect(final.txHash).toBe(consumer?.transactionHash);
    expect(
      await readAuthorizationState(
        world.publicClient,
        world.token,
        signed.authorization.from,
        signed.authorization.nonce,
      ),
    ).toBe(true);
    expect(await balanceOf(world, world.relayer.address)).toBe(
      payeeBefore + (kind === "capture" ? 3_000_000n : 0n),
    );
    // The outbox holds exactly the one transaction, marked mined by the reconciler.
    const reader: OrderStore =
      "sqlite" in store ? new SqliteOrderStore(store.sqlite) : new PostgresOrderStore(store.databaseUrl);
    try {
      let attempts = await reader.attemptsOf(order.id);
      for (
        let i = 0;
        i < 200 && attempts.some((a) => a.status === "prepared" || a.status === "broadcast");
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        attempts = await reader.attemptsOf(order.id);
      }
      expect(attempts.map((a) => [a.kind, a.status])).toEqual([[kind, "mined"]]);
    } finally {
      await reader.close();
    }
  } finally {
    await revived.stop();
  }
}

describe("kill -9 of the service", () => {
  it.each(CASES)(
    "$kind, killed $point: on SQLite and on PostgreSQL the restarted service settles it with one transaction",
    async (c) => {
      // Both runs finish (each stops its processes) before a failure of either is thrown.
      const runs = await Promise.allSettled(STORES.map((storeKind) => crashAndRecover(storeKind, c)));
      for (const run of runs) if (run.status === "rejected") throw run.reason;
    },
  );
});
