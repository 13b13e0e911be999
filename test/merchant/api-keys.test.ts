/**
 * API keys of the merchant service, on SQLite and PostgreSQL: every route but /healthz and /metrics refuses a
 * request without a working key (401), a read key cannot change anything (403) and never sees a buyer's
 * signature, the database holds only the keys' SHA-256, and keys made, rotated and revoked with the key tool
 * (src/merchant/keys.ts, a process next to the running service) take effect at once.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeArgs } from "../../src/bundles/index.js";
import { MerchantClient } from "../../src/merchant/client.js";
import { startMerchantProcess, type MerchantProcess } from "./support/merchant-process.js";
import { startClusterAndChain, type TestChain } from "./support/test-chain.js";
import type { ThrowawayCluster } from "./support/throwaway-cluster.js";
import { buyerAuthorization, createWorld, orderBody, type World } from "./support/world.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

let chain: TestChain;
let world: World;
let cluster: ThrowawayCluster;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "merchant-keys-"));
  ({ cluster, chain } = await startClusterAndChain());
  world = await createWorld(chain);
});

afterAll(async () => {
  await chain?.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface KeyDescription {
  id: string;
  name: string;
  scope: string;
  active: boolean;
  endsAt: string | null;
  key?: string;
  file?: string;
}

describe.each(["sqlite", "postgres"] as const)("merchant API keys on %s", (storeKind) => {
  let merchant: MerchantProcess;
  let storeEnv: Record<string, string>;
  let storedHashes: () => Promise<{ id: string; secret_sha256: string }[]>;

  /** The key tool as a process, with the service's store settings in its environment. */
  async function keys(...args: string[]): Promise<{ code: number; json: unknown; stderr: string }> {
    const result = await run(process.execPath, [...nodeArgs("src/merchant/keys.ts"), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: "", ...storeEnv },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    return {
      code: result.code,
      json: result.stdout.trim() === "" ? null : JSON.parse(result.stdout),
      stderr: result.stderr,
    };
  }

  beforeAll(async () => {
    if (storeKind === "sqlite") {
      const path = join(dir, "keys.db");
      storeEnv = { MERCHANT_SQLITE_PATH: path };
      storedHashes = async () => {
        const db = new Database(path, { readonly: true });
        try {
          return db.prepare("SELECT id, secret_sha256 FROM api_keys").all() as never;
        } finally {
          db.close();
        }
      };
    } else {
      const url = await cluster.createDatabase("merchant_keys");
      storeEnv = { DATABASE_URL: url };
      storedHashes = async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          return (await client.query("SELECT id, secret_sha256 FROM api_keys")).rows as never;
        } finally {
          await client.end();
        }
      };
    }
    merchant = await startMerchantProcess({
      rpcUrl: chain.rpcUrl,
      token: world.token,
      relayerKey: world.relayerKey,
      store:
        storeKind === "sqlite"
          ? { sqlite: storeEnv.MERCHANT_SQLITE_PATH! }
          : { databaseUrl: storeEnv.DATABASE_URL! },
    });
  });

  afterAll(async () => {
    await merchant?.stop();
  });

  it("refuses every order route without a working key; health and metrics stay open", async () => {
    const anonymous = new MerchantClient(merchant.url);
    const { order } = await merchant.client.createOrder(orderBody(await buyerAuthorization(world)));
    const routes: ["GET" | "POST", string, unknown?][] = [
      ["GET", "/orders"],
      ["GET", `/orders/${order.id}`],
      ["POST", "/orders", orderBody(await buyerAuthorization(world))],
      ["POST", `/orders/${order.id}/capture`],
      ["POST", `/orders/${order.id}/void`],
      ["POST", `/orders/${order.id}/cancel`, { signature: `0x${"11".repeat(65)}` }],
    ];
    const forged = `mk_${merchant.apiKey.slice(3, 15)}_${"A".repeat(43)}`;
    for (const presented of [undefined, "not-a-key", forged, `${merchant.apiKey}x`]) {
      const client =
        presented === undefined ? anonymous : new MerchantClient(merchant.url, { apiKey: presented });
      for (const [method, path, body] of routes) {
        const answer = await client.request(method, path, body);
        expect(
          [answer.status, (answer.json as { error: { code: string } }).error.code],
          `${method} ${path}`,
        ).toEqual([401, "unauthorized"]);
      }
    }
    const unauthorized = await fetch(`${merchant.url}/orders`);
    expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await fetch(`${merchant.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${merchant.url}/metrics`)).status).toBe(200);
    // Nothing changed: the order is still authorized.
    expect((await merchant.client.getOrder(order.id)).order.state).toBe("authorized");
  });

  it("a read key lists and reads orders without signatures and cannot change anything", async () => {
    const created = await keys("create", "--name", "dashboard", "--scope", "read");
    expect(created.code, created.stderr).toBe(0);
    const reader = created.json as KeyDescription;
    expect(reader).toMatchObject({ name: "dashboard", scope: "read", active: true });
    const readClient = new MerchantClient(merchant.url, { apiKey: reader.key! });

    const signed = await buyerAuthorization(world);
    const { order } = await merchant.client.createOrder(orderBody(signed));
    // The write key sees the signature; the read key never does, in any answer.
    expect((await merchant.client.getOrder(order.id)).order.signature).toBe(signed.signature);
    const read = await readClient.request("GET", `/orders/${order.id}`);
    const listed = await readClient.request("GET", "/orders?limit=500");
    expect(read.status).toBe(200);
    expect(listed.status).toBe(200);
    expect((read.json as { order: { id: string } }).order.id).toBe(order.id);
    expect((listed.json as { orders: { id: string }[] }).orders.map((o) => o.id)).toContain(order.id);
    for (const answer of [read, listed]) {
      const text = JSON.stringify(answer.json).toLowerCase();
      expect(text).not.toContain(signed.signature.slice(2).toLowerCase());
      expect(text).not.toContain('"signature"');
    }
    for (const [path, body] of [
      ["/orders", orderBody(await buyerAuthorization(world))],
      [`/orders/${order.id}/capture`, undefined],
      [`/orders/${order.id}/void`, undefined],
    ] as const) {
      const answer = await readClient.request("POST", path, body);
      expect([answer.status, (answer.json as { error: { code: string } }).error.code], path).toEqual([
        403,
        "forbidden",
      ]);
      expect(JSON.stringify(answer.json)).not.toContain(signed.signature.slice(2));
    }
    expect((await merchant.client.getOrder(order.id)).order.state).toBe("authorized");
  });

  it("stores only the SHA-256 of each secret; rotation and revocation take effect at once", async () => {
    const created = (await keys("create", "--name", "checkout", "--scope", "write")).json as KeyDescription;
    const secret = created.key!.slice("mk_".length + 12 + 1);
    const rows = await storedHashes();
    const row = rows.find((r) => r.id === created.id);
    expect(row?.secret_sha256).toBe(createHash("sha256").update(secret).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(secret);
    const checkout = new MerchantClient(merchant.url, { apiKey: created.key! });
    expect((await checkout.listOrders()).orders.length).toBeGreaterThan(0);

    // Rotation with a grace period: both work; the replaced key names its end.
    const keyFile = join(dir, `${storeKind}-rotated.key`);
    const rotated = await keys("rotate", created.id, "--grace-seconds", "3600", "--out", keyFile);
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotatedJson = rotated.json as KeyDescription & { replaced: KeyDescription };
    expect(rotatedJson).toMatchObject({ name: "checkout", scope: "write", file: keyFile });
    expect(rotatedJson.key).toBeUndefined();
    expect(rotatedJson.replaced.endsAt).not.toBeNull();
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const next = new MerchantClient(merchant.url, { apiKey: readFileSync(keyFile, "utf8").trim() });
    expect((await next.listOrders()).orders.length).toBeGreaterThan(0);
    expect((await checkout.listOrders()).orders.length).toBeGreaterThan(0);

    // Revoking the old key ends it now; rotating without grace ends the replaced key now.
    expect((await keys("revoke", created.id)).code).toBe(0);
    expect((await checkout.request("GET", "/orders")).status).toBe(401);
    const again = (await keys("rotate", rotatedJson.id)).json as KeyDescription;
    expect((await next.request("GET", "/orders")).status).toBe(401);
    expect(
      (await new MerchantClient(merchant.url, { apiKey: again.key! }).listOrders()).orders.length,
    ).toBeGreaterThan(0);

    const list = (await keys("list")).json as { keys: KeyDescription[] };
    const byId = new Map(list.keys.map((k) => [k.id, k]));
    expect(byId.get(created.id)?.active).toBe(false);
    expect(byId.get(rotatedJson.id)?.active).toBe(false);
    expect(byId.get(again.id)?.active).toBe(true);
    expect(JSON.stringify(list)).not.toMatch(/secret|sha256|"key"/);

    expect((await keys("revoke", "000000000000")).code).toBe(1);
    expect((await keys("create", "--name", "x", "--scope", "admin")).code).toBe(2);
  });
});
