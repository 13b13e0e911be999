/**
 * The storage contract, run against both implementations on real engines (a SQLite file and a
 * throwaway PostgreSQL cluster): unique key, compare-and-set, attempts recorded atomically with
 * the order's hash, pagination, cursor.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hash, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startThrowawayCluster, type ThrowawayCluster } from "./support/throwaway-cluster.js";
import type { NewOrder } from "../../src/merchant/order.js";
import { PostgresOrderStore } from "../../src/merchant/store/postgres-store.js";
import { SqliteOrderStore } from "../../src/merchant/store/sqlite-store.js";
import { CHECKPOINTS_KEPT, type OrderStore } from "../../src/merchant/store/store.js";

const TOKEN: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const BUYER: Address = "0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF";
const PAYEE: Address = "0x6813Eb9362372EEF6200f3b1dbC3f819671cBA69";

let counter = 0;
function newOrder(overrides: Partial<NewOrder> = {}): NewOrder {
  counter += 1;
  return {
    id: `order-${counter}-${Math.random().toString(16).slice(2)}`,
    chainId: 901n,
    token: TOKEN,
    authorizer: BUYER,
    nonce: `0x${counter.toString(16).padStart(64, "0")}` as Hex,
    kind: "transfer",
    to: PAYEE,
    value: 2n ** 200n,
    validAfter: 0n,
    validBefore: 1_900_000_000n,
    signature: `0x${"11".repeat(65)}` as Hex,
    createdBlock: 7n,
    ...overrides,
  };
}

const hash = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}` as Hash;

let cluster: ThrowawayCluster;
let dir: string;
const stores: Record<string, () => Promise<OrderStore>> = {
  sqlite: async () => {
    const store = new SqliteOrderStore(join(dir, `s${counter++}.db`));
    await store.migrate();
    return store;
  },
  postgres: async () => {
    const url = await cluster.createDatabase(`store_${counter++}`);
    const store = new PostgresOrderStore(url);
    await store.migrate();
    await store.migrate(); // idempotent
    return store;
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "merchant-store-"));
  cluster = await startThrowawayCluster();
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(Object.keys(stores))("%s order store", (kind) => {
  let store: OrderStore;
  beforeAll(async () => {
    store = await (stores[kind] as () => Promise<OrderStore>)();
  });
  afterAll(async () => {
    await store?.close();
  });

  it("inserts an order once per (chainId, token, authorizer, nonce) and round-trips every field", async () => {
    const order = newOrder();
    const first = await store.insertOrder(order);
    expect(first.created).toBe(true);
    expect(first.order).toMatchObject({ ...order, state: "authorized", version: 1, txHash: null });
    expect(first.order.value).toBe(2n ** 200n);
    const again = await store.insertOrder({ ...order, id: "another-id" });
    expect(again.created).toBe(false);
    expect(again.order.id).toBe(order.id);
    expect(await store.getOrderByKey(order)).toMatchObject({ id: order.id });
    expect(await store.getOrder("missing")).toBeNull();
    // A different chain id is a different key.
    expect((await store.insertOrder({ ...order, id: `${order.id}-b`, chainId: 902n })).created).toBe(true);
  });

  it("transitions by compare-and-set: exactly one of many concurrent racers wins", async () => {
    const { order } = await store.insertOrder(newOrder());
    const racers = Array.from({ length: 20 }, (_, i) =>
      store.transition({
        id: order.id,
        from: ["authorized"],
        to: i % 2 === 0 ? "capturing" : "cancelling",
        patch: { note: `racer ${i}` },
      }),
    );
    const results = await Promise.all(racers);
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const after = await store.getOrder(order.id);
    expect(after?.state).toBe(winners[0]?.state);
    expect(after?.version).toBe(2);
    expect(await store.transition({ id: order.id, from: ["authorized"], to: "voided" })).toBeNull();
    expect(await store.transition({ id: "missing", from: ["authorized"], to: "voided" })).toBeNull();
  });

  it("records an attempt and the order's hash together, only in the expected state", async () => {
    const { order } = await store.insertOrder(newOrder());
    await store.transition({ id: order.id, from: ["authorized"], to: "capturing" });
    const attempt = {
      txHash: hash(1000 + counter),
      orderId: order.id,
      kind: "capture" as const,
      relayer: PAYEE,
      relayerNonce: 3,
      rawTransaction: "0x02abcd" as Hex,
    };
    expect(await store.recordAttempt(attempt, "cancelling")).toBe(false);
    expect(await store.attemptsOf(order.id)).toHaveLength(0);
    expect(await store.recordAttempt(attempt, "capturing")).toBe(true);
    expect((await store.getOrder(order.id))?.txHash).toBe(attempt.txHash);
    const [stored] = await store.attemptsOf(order.id);
    expect(stored).toMatchObject({ ...attempt, status: "prepared" });
    await store.setAttemptStatus(attempt.txHash, "broadcast");
    const pending = await store.attemptsInStatus(["prepared", "broadcast"]);
    expect(pending.map((a) => a.txHash)).toContain(attempt.txHash);
    expect((await store.attemptsInStatus(["mined"])).map((a) => a.txHash)).not.toContain(attempt.txHash);
  });

  it("lists orders by state with keyset pagination", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { order } = await store.insertOrder(newOrder({ authorizer: PAYEE }));
      ids.push(order.id);
      await store.transition({ id: order.id, from: ["authorized"], to: "voided" });
    }
    const voided = await store.listOrders({ state: "voided", limit: 500 });
    expect(voided.map((o) => o.id)).toEqual(expect.arrayContaining(ids));
    const firstPage = await store.listOrders({ limit: 2 });
    const secondPage = await store.listOrders({ limit: 2, after: firstPage[1]?.id as string });
    expect(firstPage).toHaveLength(2);
    expect(secondPage[0]?.id).not.toBe(firstPage[1]?.id);
    expect((await store.ordersInStates(["voided"])).length).toBe(voided.length);
  });

  it("keeps a reconciler cursor per (chainId, token) with block hashes beside it, and rewinds it", async () => {
    expect(await store.getCursor(901n, TOKEN)).toBeNull();
    await store.setCursor(901n, TOKEN, 10n, hash(10));
    await store.setCursor(901n, TOKEN, 12n, hash(12));
    expect(await store.getCursor(901n, TOKEN)).toBe(12n);
    expect(await store.getCursor(902n, TOKEN)).toBeNull();
    expect(await store.checkpoints(901n, TOKEN)).toEqual([
      { block: 12n, hash: hash(12) },
      { block: 10n, hash: hash(10) },
    ]);
    // Only the newest CHECKPOINTS_KEPT are kept.
    await store.setCursor(901n, TOKEN, 12n + BigInt(CHECKPOINTS_KEPT), hash(1000));
    expect((await store.checkpoints(901n, TOKEN)).map((c) => c.block)).toEqual([
      12n + BigInt(CHECKPOINTS_KEPT),
    ]);
    await store.setCursor(901n, TOKEN, 300n, hash(300));
    await store.rewindCursor(901n, TOKEN, 299n);
    expect(await store.getCursor(901n, TOKEN)).toBe(299n);
    expect(await store.checkpoints(901n, TOKEN)).toEqual([
      { block: 12n + BigInt(CHECKPOINTS_KEPT), hash: hash(1000) },
    ]);
    expect(await store.checkpoints(902n, TOKEN)).toEqual([]);
  });

  it("records and clears the block that settled an order and the state it was settled from", async () => {
    const { order } = await store.insertOrder(newOrder());
    const settled = await store.transition({
      id: order.id,
      from: ["authorized"],
      to: "captured",
      patch: { settledTxHash: `0x${"ab".repeat(32)}`, settledBlock: "77", settledFrom: "authorized" },
    });
    expect([settled?.settledBlock, settled?.settledFrom]).toEqual([77n, "authorized"]);
    const back = await store.transition({
      id: order.id,
      from: ["captured"],
      to: "authorized",
      patch: { settledTxHash: null, settledBlock: null, settledFrom: null, note: "rewound" },
    });
    expect([back?.state, back?.settledTxHash, back?.settledBlock, back?.settledFrom]).toEqual([
      "authorized",
      null,
      null,
      null,
    ]);
  });
});
