/**
 * bench:orders: order transitions per second and latency percentiles of the merchant service under
 * concurrent HTTP clients, on SQLite and on PostgreSQL. Runs a real chain node process with the
 * Eip3009Token deployed, the merchant service as a separate process per store, and measures:
 *   create   POST /orders            (signature and domain verified, nonce checked onchain, insert)
 *   void     POST /orders/:id/void   (compare-and-set only: the store's transition cost)
 *   capture  POST /orders/:id/capture (compare-and-set, simulate, sign, record attempt, broadcast)
 * Usage: npm run bench:orders [-- --orders 600 --captures 100 --clients 16]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startThrowawayCluster } from "../test/merchant/support/throwaway-cluster.js";
import type { OrderJson } from "../src/merchant/index.js";
import { startMerchantProcess } from "../test/merchant/support/merchant-process.js";
import { startTestChain } from "../test/merchant/support/test-chain.js";
import { buyerAuthorization, createWorld, orderBody } from "../test/merchant/support/world.js";
import { BenchResultError } from "./errors.js";

const { values } = parseArgs({
  options: {
    orders: { type: "string", default: "600" },
    captures: { type: "string", default: "100" },
    clients: { type: "string", default: "16" },
  },
});
const ORDERS = Number(values.orders);
const CAPTURES = Math.min(Number(values.captures), ORDERS);
const CLIENTS = Number(values.clients);

interface Row {
  store: string;
  operation: string;
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Runs `work` over `items` with `clients` concurrent workers; latency per item in ms. */
async function measure<T>(
  items: readonly T[],
  clients: number,
  work: (item: T) => Promise<unknown>,
): Promise<{ perSecond: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const index = next++;
        if (index >= items.length) return;
        const t0 = performance.now();
        await work(items[index] as T);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: items.length / seconds, latencies: latencies.sort((a, b) => a - b) };
}

function row(store: string, operation: string, result: { perSecond: number; latencies: number[] }): Row {
  return {
    store,
    operation,
    count: result.latencies.length,
    perSecond: Math.round(result.perSecond),
    p50: Number(percentile(result.latencies, 50).toFixed(1)),
    p99: Number(percentile(result.latencies, 99).toFixed(1)),
    max: Number((result.latencies.at(-1) ?? 0).toFixed(1)),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-orders-"));
  const cluster = await startThrowawayCluster({ durable: true });
  const chain = await startTestChain().catch(async (error: unknown) => {
    await cluster.stop();
    throw error;
  });
  const rows: Row[] = [];
  try {
    const world = await createWorld(chain);
    process.stderr.write(`chain: ${chain.kind} at ${chain.rpcUrl}; token ${world.token}\n`);
    for (const storeKind of ["sqlite", "postgres"] as const) {
      const store =
        storeKind === "sqlite"
          ? { sqlite: join(dir, "bench.db") }
          : { databaseUrl: await cluster.createDatabase("bench_orders") };
      const merchant = await startMerchantProcess({
        rpcUrl: chain.rpcUrl,
        token: world.token,
        relayerKey: world.relayerKey,
        store,
      });
      try {
        process.stderr.write(`${storeKind}: signing ${ORDERS} authorizations...\n`);
        const bodies = [];
        for (let i = 0; i < ORDERS; i++)
          bodies.push(orderBody(await buyerAuthorization(world, { value: 1n })));
        const orders: OrderJson[] = [];
        rows.push(
          row(
            storeKind,
            "create",
            await measure(bodies, CLIENTS, async (body) => {
              orders.push((await merchant.client.createOrder(body)).order);
            }),
          ),
        );
        const toCapture = orders.slice(0, CAPTURES);
        const toVoid = orders.slice(CAPTURES);
        rows.push(row(storeKind, "void", await measure(toVoid, CLIENTS, (o) => merchant.client.void(o.id))));
        rows.push(
          row(storeKind, "capture", await measure(toCapture, CLIENTS, (o) => merchant.client.capture(o.id))),
        );
        // Every capture must settle (one transaction each) before the store is called done.
        for (const o of toCapture) {
          const final = await merchant.client.waitForState(o.id, ["captured", "failed"], 120_000, 100);
          if (final.state !== "captured")
            throw new BenchResultError(`order ${o.id} ended ${final.state}: ${final.note}`, {
              id: o.id,
              state: final.state,
            });
        }
      } finally {
        await merchant.stop();
      }
    }
  } finally {
    await chain.close();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    `merchant order transitions over HTTP, ${CLIENTS} concurrent clients (${ORDERS} orders, ${CAPTURES} captures)\n`,
  );
  console.table(
    rows.map((r) => ({
      store: r.store,
      operation: r.operation,
      count: r.count,
      "transitions/s": r.perSecond,
      "p50 ms": r.p50,
      "p99 ms": r.p99,
      "max ms": r.max,
    })),
  );
}

await main();
