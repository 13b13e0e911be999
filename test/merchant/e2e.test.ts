/**
 * The merchant service end to end: a separate service process (src/merchant/main.ts) on each
 * store (a SQLite file; a throwaway PostgreSQL cluster), the compiled Eip3009Token deployed on the
 * test chain, buyers signing with src/payments, and every result checked against the chain.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThrowawayCluster } from "./support/throwaway-cluster.js";
import { runCli } from "../../src/merchant/cli-commands.js";
import { MerchantApiError } from "../../src/merchant/client.js";
import {
  CancellationSignerMismatchError,
  cancelAuthorizationTypedData,
  captureCall,
  findNonceConsumer,
  readAuthorizationState,
  readTokenDomain,
  RelaySimulationFailedError,
  signCancellation,
  simulateAndRelayCancel,
  simulateAndRelayCapture,
  simulateTokenCall,
} from "../../src/payments/index.js";
import { startMerchantProcess, type MerchantProcess } from "./support/merchant-process.js";
import { startClusterAndChain, type TestChain } from "./support/test-chain.js";
import {
  balanceOf,
  buyerAuthorization,
  buyerCancellation,
  createWorld,
  headTimestamp,
  orderBody,
  relayerTxCount,
  sealedReceipt,
  type World,
} from "./support/world.js";

let chain: TestChain;
let world: World;
let cluster: ThrowawayCluster;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "merchant-e2e-"));
  ({ cluster, chain } = await startClusterAndChain());
  world = await createWorld(chain);
});

afterAll(async () => {
  await chain?.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function expectApiError(
  promise: Promise<unknown>,
  status: number,
  code: string,
): Promise<MerchantApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MerchantApiError);
  const apiError = error as MerchantApiError;
  expect({ status: apiError.status, code: apiError.body.code }).toEqual({ status, code });
  expect(apiError.body.message.length).toBeGreaterThan(0);
  return apiError;
}

describe.each(["sqlite", "postgres"] as const)("merchant service on %s", (storeKind) => {
  let merchant: MerchantProcess;

  beforeAll(async () => {
    const store =
      storeKind === "sqlite"
        ? { sqlite: join(dir, "e2e.db") }
        : { databaseUrl: await cluster.createDatabase("merchant_e2e") };
    merchant = await startMerchantProcess({
      rpcUrl: chain.rpcUrl,
      token: world.token,
      relayerKey: world.relayerKey,
      store,
    });
  });

  afterAll(async () => {
    await merchant?.stop();
  });

  it("cancel onchain, then a capture with the original signature reverts", async () => {
    const signed = await buyerAuthorization(world);
    const created = await merchant.client.createOrder(orderBody(signed));
    expect(created.status).toBe(201);
    expect(created.order.state).toBe("authorized");
    // Creating the same authorization again is idempotent.
    const again = await merchant.client.createOrder(orderBody(signed));
    expect({ status: again.status, id: again.order.id, changed: again.changed }).toEqual({
      status: 200,
      id: created.order.id,
      changed: false,
    });

    const cancelling = await merchant.client.cancel(created.order.id, await buyerCancellation(world, signed));
    expect(cancelling.status).toBe(202);
    expect(cancelling.order.state).toBe("cancelling");
    expect(cancelling.order.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const cancelled = await merchant.client.waitForState(created.order.id, ["cancelled", "failed"]);
    expect(cancelled.state).toBe("cancelled");
    expect(cancelled.settledTxHash).toBe(cancelling.order.txHash);

    const { authorization } = signed;
    expect(
      await readAuthorizationState(world.publicClient, world.token, authorization.from, authorization.nonce),
    ).toBe(true);
    const consumer = await findNonceConsumer(world.publicClient, {
      token: world.token,
      authorizer: authorization.from,
      nonce: authorization.nonce,
    });
    expect(consumer).toMatchObject({ kind: "canceled", transactionHash: cancelling.order.txHash });

    // The original signature can no longer be used by anyone.
    const capture = captureCall(world.token, signed);
    const simulated = await simulateTokenCall(world.publicClient, world.stranger.address, capture).catch(
      (e: unknown) => e,
    );
    expect(simulated).toBeInstanceOf(RelaySimulationFailedError);
    expect((simulated as RelaySimulationFailedError).reason).toBe(
      "FiatTokenV2: authorization is used or canceled",
    );
    const wallet = world.walletFor(world.stranger);
    const sent = await wallet.sendTransaction({ to: world.token, data: capture.data, gas: 200_000n });
    const receipt = await sealedReceipt(world.publicClient, sent);
    expect(receipt.status).toBe("reverted");
    await expectApiError(merchant.client.capture(created.order.id), 409, "invalid_transition");
  });

  it("capture first: the cancel then fails and the order reports captured", async () => {
    const signed = await buyerAuthorization(world, { value: 2_000_000n });
    const before = await balanceOf(world, world.relayer.address);
    const { order } = await merchant.client.createOrder(orderBody(signed));
    const capturing = await merchant.client.capture(order.id);
    expect(capturing.status).toBe(202);
    const captured = await merchant.client.waitForState(order.id, ["captured", "failed"]);
    expect(captured.state).toBe("captured");
    expect(await balanceOf(world, world.relayer.address)).toBe(before + 2_000_000n);

    const cancel = await buyerCancellation(world, signed);
    const refused = await expectApiError(merchant.client.cancel(order.id, cancel), 409, "invalid_transition");
    expect(refused.body.state).toBe("captured");
    // Relayed directly, the cancel reverts onchain too.
    const cancellation = await signCancellation(world.buyer, signed.authorization, world.domain);
    const direct = await simulateAndRelayCancel({
      publicClient: world.publicClient,
      walletClient: world.walletFor(world.buyer),
      token: world.token,
      cancellation,
    }).catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(RelaySimulationFailedError);
    expect((direct as RelaySimulationFailedError).reason).toContain("used or canceled");
    expect((await merchant.client.getOrder(order.id)).order.state).toBe("captured");
    // Replaying the capture changes nothing.
    const replay = await merchant.client.capture(order.id);
    expect({ status: replay.status, changed: replay.changed, state: replay.order.state }).toEqual({
      status: 200,
      changed: false,
      state: "captured",
    });
  });

  it("void offchain: nothing is sent; expired once a sealed block reaches validBefore; the nonce stays unused", async () => {
    const signed = await buyerAuthorization(world, { lifetime: 12n });
    const sentBefore = await relayerTxCount(world);
    const { order } = await merchant.client.createOrder(orderBody(signed));
    const voided = await merchant.client.void(order.id);
    expect(voided.order.state).toBe("voided");
    expect((await merchant.client.void(order.id)).changed).toBe(false);
    const expired = await merchant.client.waitForState(order.id, [
      "expired",
      "captured",
      "cancelled",
      "failed",
    ]);
    expect(expired.state).toBe("expired");
    expect(await headTimestamp(world)).toBeGreaterThanOrEqual(signed.authorization.validBefore);
    expect(expired.note).toMatch(/timestamp \d+ >= validBefore/);
    const sealedAt = BigInt(/timestamp (\d+)/.exec(expired.note ?? "")?.[1] ?? "0");
    expect(sealedAt).toBeGreaterThanOrEqual(signed.authorization.validBefore);
    expect(await relayerTxCount(world)).toBe(sentBefore);
    const { authorization } = signed;
    expect(
      await readAuthorizationState(world.publicClient, world.token, authorization.from, authorization.nonce),
    ).toBe(false);
    // And the chain agrees it can no longer be captured.
    const late = await simulateTokenCall(
      world.publicClient,
      world.stranger.address,
      captureCall(world.token, signed),
    ).catch((e: unknown) => e);
    expect((late as RelaySimulationFailedError).reason).toBe("FiatTokenV2: authorization is expired");
    await expectApiError(merchant.client.capture(order.id), 409, "invalid_transition");
  });

  it("refuses a cancellation signed by any account other than `from`, before anything is sent", async () => {
    const signed = await buyerAuthorization(world);
    const { order } = await merchant.client.createOrder(orderBody(signed));
    // The client library refuses to sign for another account.
    await expect(signCancellation(world.stranger, signed.authorization, world.domain)).rejects.toBeInstanceOf(
      CancellationSignerMismatchError,
    );
    // A forged one (signed by hand with plain viem) is refused by the service.
    const forged = await world.stranger.signTypedData(
      cancelAuthorizationTypedData(world.domain, {
        from: signed.authorization.from,
        nonce: signed.authorization.nonce,
      }),
    );
    const sentBefore = await relayerTxCount(world);
    const refused = await expectApiError(merchant.client.cancel(order.id, forged), 422, "invalid_signature");
    expect(refused.body.message).toContain(world.buyer.address);
    expect(await relayerTxCount(world)).toBe(sentBefore);
    expect((await merchant.client.getOrder(order.id)).order.state).toBe("authorized");
  });

  it("many concurrent capture and cancel requests on one order: exactly one transaction, state matches the chain", async () => {
    const signed = await buyerAuthorization(world);
    const { order } = await merchant.client.createOrder(orderBody(signed));
    const cancel = await buyerCancellation(world, signed);
    const sentBefore = await relayerTxCount(world);
    const requests = Array.from({ length: 40 }, (_, i) =>
      (i % 2 === 0 ? merchant.client.capture(order.id) : merchant.client.cancel(order.id, cancel)).then(
        (answer) => ({ ok: true as const, answer }),
        (error: unknown) => ({ ok: false as const, error: error as MerchantApiError }),
      ),
    );
    const results = await Promise.all(requests);
    const winners = results.filter((r) => r.ok && r.answer.changed);
    expect(winners).toHaveLength(1);
    for (const r of results) {
      if (!r.ok)
        expect({ status: r.error.status, code: r.error.body.code }).toEqual({
          status: 409,
          code: "invalid_transition",
        });
    }
    const final = await merchant.client.waitForState(order.id, ["captured", "cancelled", "failed"]);
    expect(await relayerTxCount(world)).toBe(sentBefore + 1);
    const consumer = await findNonceConsumer(world.publicClient, {
      token: world.token,
      authorizer: signed.authorization.from,
      nonce: signed.authorization.nonce,
    });
    expect(final.state).toBe(consumer?.kind === "used" ? "captured" : "cancelled");
    expect(final.settledTxHash).toBe(consumer?.transactionHash);

    // Several orders captured at once: one transaction each (relayer nonces never collide).
    const many = await Promise.all(
      Array.from(
        { length: 5 },
        async () => (await merchant.client.createOrder(orderBody(await buyerAuthorization(world)))).order,
      ),
    );
    const base = await relayerTxCount(world);
    await Promise.all(many.flatMap((o) => [merchant.client.capture(o.id), merchant.client.capture(o.id)]));
    for (const o of many)
      expect((await merchant.client.waitForState(o.id, ["captured", "failed"])).state).toBe("captured");
    expect(await relayerTxCount(world)).toBe(base + 5);
  });

  it("the buyer relays the cancellation directly: the reconciler marks the order cancelled", async () => {
    const signed = await buyerAuthorization(world);
    const { order } = await merchant.client.createOrder(orderBody(signed));
    const cancellation = await signCancellation(world.buyer, signed.authorization, world.domain);
    const relayed = await simulateAndRelayCancel({
      publicClient: world.publicClient,
      walletClient: world.walletFor(world.buyer),
      token: world.token,
      cancellation,
    });
    const final = await merchant.client.waitForState(order.id, ["cancelled", "captured", "failed"]);
    expect(final.state).toBe("cancelled");
    expect(final.settledTxHash).toBe(relayed.transactionHash);
    expect(final.note).toContain("not ours");
  });

  it("someone else captures a transfer authorization: the reconciler marks it captured, even when voided", async () => {
    const signed = await buyerAuthorization(world);
    const { order } = await merchant.client.createOrder(orderBody(signed));
    await merchant.client.void(order.id);
    const relayed = await simulateAndRelayCapture({
      publicClient: world.publicClient,
      walletClient: world.walletFor(world.stranger),
      token: world.token,
      authorization: signed,
    });
    const final = await merchant.client.waitForState(order.id, ["captured", "expired", "failed"]);
    expect(final.state).toBe("captured");
    expect(final.settledTxHash).toBe(relayed.transactionHash);
    expect(final.note).toContain("voided authorization was captured");
  });

  it("the CLI signs as the buyer, creates, voids, cancels and reads orders through the API", async () => {
    const cli = async (args: string[], stdin = "") => {
      let out = "";
      let err = "";
      const status = await runCli([...args, "--url", merchant.url], {
        out: (t) => (out += t),
        err: (t) => (err += t),
        readStdin: async () => stdin,
        env: { MERCHANT_API_KEY_FILE: merchant.keyFile },
      });
      return { status, out, err };
    };
    const buyerKey = chain.keys[2] as string;
    const chainFlags = ["--rpc-url", chain.rpcUrl, "--token", world.token];
    const signed = await cli([
      "sign-authorization",
      ...chainFlags,
      "--key",
      buyerKey,
      "--to",
      world.relayer.address,
      "--value",
      "1234",
    ]);
    expect(signed.status, signed.err).toBe(0);
    const created = await cli(["create"], signed.out);
    expect(created.status, created.err).toBe(0);
    const { order } = JSON.parse(created.out) as { order: { id: string; nonce: string; state: string } };
    expect(order.state).toBe("authorized");
    const voided = await cli(["void", order.id]);
    expect(JSON.parse(voided.out).order.state).toBe("voided");

    const second = JSON.parse(
      (
        await cli(
          ["create"],
          (
            await cli([
              "sign-authorization",
              ...chainFlags,
              "--key",
              buyerKey,
              "--to",
              world.relayer.address,
              "--value",
              "99",
            ])
          ).out,
        )
      ).out,
    ) as {
      order: { id: string; nonce: string };
    };
    const cancelSig = await cli([
      "sign-cancel",
      ...chainFlags,
      "--key",
      buyerKey,
      "--nonce",
      second.order.nonce,
    ]);
    const { signature } = JSON.parse(cancelSig.out) as { signature: string };
    expect((await cli(["cancel", second.order.id, "--signature", signature])).status).toBe(0);
    const waited = await cli(["wait", second.order.id, "--state", "cancelled,failed"]);
    expect(JSON.parse(waited.out).order.state).toBe("cancelled");
    const listed = await cli(["list", "--state", "voided"]);
    expect((JSON.parse(listed.out) as { orders: { id: string }[] }).orders.map((o) => o.id)).toContain(
      order.id,
    );

    const missing = await cli(["get", "00000000-0000-4000-8000-000000000000"]);
    expect(missing.status).toBe(1);
    expect(JSON.parse(missing.err)).toMatchObject({ status: 404, error: { code: "order_not_found" } });
    // deploy-token: a fresh token with a mint, its domain read back from the chain.
    const deployed = await cli([
      "deploy-token",
      "--rpc-url",
      chain.rpcUrl,
      "--key",
      chain.keys[0] as string,
      "--name",
      "CLI USD",
      "--mint-to",
      world.buyer.address,
      "--amount",
      "777",
    ]);
    expect(deployed.status, deployed.err).toBe(0);
    const { token } = JSON.parse(deployed.out) as { token: `0x${string}` };
    expect((await readTokenDomain(world.publicClient, token)).name).toBe("CLI USD");

    expect((await cli(["frobnicate"])).status).toBe(2);
    expect((await cli(["capture"])).status).toBe(2);
  });

  it("answers bad input with 4xx JSON errors naming the problem", async () => {
    const client = merchant.client;
    const raw = async (method: "GET" | "POST", path: string, body?: unknown) =>
      client.request(method, path, body);
    const errorOf = (json: unknown) =>
      (json as { error: { code: string; message: string; field?: string } }).error;

    let r = await raw("POST", "/orders", "{not json");
    expect(r.status).toBe(400);
    expect(errorOf(r.json).code).toBe("malformed_json");

    const signed = await buyerAuthorization(world);
    const good = orderBody(signed);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, nonce: `0x${"ab".repeat(31)}` }, "nonce"],
      [{ ...good, signature: `0x${"ab".repeat(64)}` }, "signature"],
      [{ ...good, signature: `0x${"ab".repeat(5000)}` }, "signature"],
      [{ ...good, from: `0x${"ab".repeat(19)}` }, "from"],
      [{ ...good, value: "-1" }, "value"],
      [{ ...good, value: "1".repeat(80) }, "value"],
      [{ ...good, kind: "steal" }, "kind"],
      [{ ...good, validBefore: undefined }, "validBefore"],
    ];
    for (const [body, field] of cases) {
      r = await raw("POST", "/orders", body);
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(errorOf(r.json).field).toBe(field);
      expect(errorOf(r.json).message).toContain(field);
    }
    r = await raw("POST", "/orders", { ...good, extra: 1 });
    expect([r.status, errorOf(r.json).message]).toEqual([400, "unknown field(s): extra"]);
    r = await raw("POST", "/orders", [good]);
    expect(r.status).toBe(400);

    // A well-formed signature by the wrong key, and one with a tampered amount.
    const bySomeoneElse = await world.stranger.signTypedData({
      domain: { ...world.domain, chainId: Number(world.domain.chainId) },
      types: {
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: world.buyer.address, nonce: signed.authorization.nonce },
    });
    r = await raw("POST", "/orders", { ...good, signature: bySomeoneElse });
    expect([r.status, errorOf(r.json).code]).toEqual([422, "invalid_signature"]);
    r = await raw("POST", "/orders", { ...good, value: "999" });
    expect([r.status, errorOf(r.json).code]).toEqual([422, "invalid_signature"]);
    r = await raw("POST", "/orders", { ...good, to: world.stranger.address });
    expect([r.status, errorOf(r.json).code]).toEqual([422, "wrong_payee"]);
    r = await raw("POST", "/orders", { ...good, token: world.stranger.address });
    expect([r.status, errorOf(r.json).code]).toEqual([422, "wrong_token"]);

    // Unknown orders, malformed ids, unknown routes and methods.
    const unknownId = "00000000-0000-4000-8000-000000000000";
    r = await raw("GET", `/orders/${unknownId}`);
    expect([r.status, errorOf(r.json).code]).toEqual([404, "order_not_found"]);
    r = await raw("POST", `/orders/${unknownId}/capture`);
    expect([r.status, errorOf(r.json).code]).toEqual([404, "order_not_found"]);
    r = await raw("GET", "/orders/not-a-uuid");
    expect([r.status, errorOf(r.json).code]).toEqual([400, "bad_request"]);
    r = await raw("GET", "/orders?state=paid");
    expect([r.status, errorOf(r.json).code]).toEqual([400, "bad_request"]);
    r = await raw("GET", "/nowhere");
    expect([r.status, errorOf(r.json).code]).toEqual([404, "route_not_found"]);
    r = await raw("GET", `/orders/${unknownId}/capture`);
    expect([r.status, errorOf(r.json).code]).toEqual([405, "method_not_allowed"]);
    r = await raw("POST", "/orders", "x".repeat(70 * 1024));
    expect([r.status, errorOf(r.json).code]).toEqual([413, "body_too_large"]);

    // Invalid transitions and a bad cancel body.
    const { order } = await client.createOrder(good);
    r = await raw("POST", `/orders/${order.id}/cancel`, { signature: "0x12" });
    expect([r.status, errorOf(r.json).field]).toEqual([400, "signature"]);
    r = await raw("POST", `/orders/${order.id}/cancel`, {});
    expect([r.status, errorOf(r.json).message]).toEqual([400, "missing field signature"]);
    await client.void(order.id);
    r = await raw("POST", `/orders/${order.id}/capture`);
    expect([r.status, errorOf(r.json).code, errorOf(r.json).message]).toEqual([
      409,
      "invalid_transition",
      `cannot capture order ${order.id}: it is voided`,
    ]);
    r = await raw("POST", `/orders/${order.id}/cancel`, {
      signature: await buyerCancellation(world, signed),
    });
    expect([r.status, errorOf(r.json).code]).toEqual([409, "invalid_transition"]);
    // A different signature for an authorization already held is a conflict, not a second order.
    r = await raw("POST", "/orders", { ...good, signature: bySomeoneElse });
    expect(r.status).toBe(422);

    // Listing works and paginates.
    const page = await client.listOrders({ limit: 2 });
    expect(page.orders).toHaveLength(2);
    expect(page.next).toBe(page.orders[1]?.id);
    const voided = await client.listOrders({ state: "voided" });
    expect(voided.orders.some((o) => o.id === order.id)).toBe(true);
  });
});
