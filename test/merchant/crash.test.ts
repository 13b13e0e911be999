/**
 * kill -9 of the merchant service process at the two dangerous points (a test-only environment
 * variable makes the process SIGKILL itself there, see src/merchant/crash-points.ts):
 * - after the database commit of the attempt and before the broadcast;
 * - after the broadcast and before the receipt.
 * After a restart on the same database the reconciler must reach the true state with exactly one
 * transaction sent: nothing lost, nothing sent twice. On SQLite and PostgreSQL, real node process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startThrowawayCluster, type ThrowawayCluster } from "./support/throwaway-cluster.js";
import { PostgresOrderStore } from "../../src/merchant/store/postgres-store.js";
import { SqliteOrderStore } from "../../src/merchant/store/sqlite-store.js";
import type { OrderStore } from "../../src/merchant/store/store.js";
import { findNonceConsumer, readAuthorizationState } from "../../src/payments/index.js";
import { startMerchantProcess } from "./support/merchant-process.js";
import { startTestChain, type TestChain } from "./support/test-chain.js";
import {
  balanceOf,
  buyerAuthorization,
  buyerCancellation,
  createWorld,
  orderBody,
  type World,
} from "./support/world.js";

let chain: TestChain;
let world: World;
let cluster: ThrowawayCluster;
let dir: string;
let databases = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "merchant-crash-"));
  // Started one after the other so that afterAll can stop whichever did start.
  cluster = await startThrowawayCluster();
  chain = await startTestChain();
  world = await createWorld(chain);
});

afterAll(async () => {
  await chain?.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function relayerNonce(blockTag: "latest" | "pending"): Promise<number> {
  return world.publicClient.getTransactionCount({ address: world.relayer.address, blockTag });
}

async function waitBlocks(count: number): Promise<void> {
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

describe.each(["sqlite", "postgres"] as const)("kill -9 of the service on %s", (storeKind) => {
  it.each(CASES)(
    "$kind, killed $point: the restarted service settles it with one transaction",
    async ({ kind, point }) => {
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
      await waitBlocks(2); // nothing of ours in flight before the decision
      const nonceBefore = await relayerNonce("pending");
      const payeeBefore = await balanceOf(world, world.relayer.address);

      const decision =
        kind === "capture"
          ? doomed.client.capture(order.id)
          : doomed.client.cancel(order.id, await buyerCancellation(world, signed));
      await expect(decision).rejects.toThrow(); // the process died mid-request
      expect((await doomed.exited).signal).toBe("SIGKILL");

      await waitBlocks(3);
      // What reached the chain before the restart: nothing after the commit, our one transaction after the broadcast.
      expect(await relayerNonce("latest")).toBe(point === "after-commit" ? nonceBefore : nonceBefore + 1);

      const revived = await startMerchantProcess(base);
      try {
        const final = await revived.client.waitForState(order.id, ["captured", "cancelled", "failed"]);
        expect(final.state).toBe(kind === "capture" ? "captured" : "cancelled");
        await waitBlocks(3);
        expect(await relayerNonce("latest")).toBe(nonceBefore + 1);
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
    },
  );
});
