/**
 * The merchant HTTP API (REST-style JSON):
 *   POST /orders                 create from a signed authorization (201 new, 200 same one again)
 *   GET  /orders                 list (?state=&limit=&after=)
 *   GET  /orders/:id             read
 *   POST /orders/:id/capture     capture onchain (202 while in flight, 200 when replayed)
 *   POST /orders/:id/void        void offchain (no transaction)
 *   POST /orders/:id/cancel      cancel onchain with the buyer's signed CancelAuthorization
 *   GET  /healthz, GET /metrics  (public; every other route needs an API key, docs/merchant.md)
 */
import type { TemplatedApp } from "@trufflesuite/uws-js-unofficial";
import type { Logger } from "../../log/index.js";
import type { MetricsRegistry } from "../../metrics/index.js";
import type { ApiCaller, ApiKeys } from "../api-keys.js";
import type { DecisionResult, OrderService } from "../service.js";
import { type JsonResponse, JsonRouter } from "./router.js";
import {
  orderToJson,
  parseCancel,
  parseCreateOrder,
  parseEmpty,
  parseListQuery,
  parseOrderId,
} from "./wire.js";

export interface MerchantApiOptions {
  service: OrderService;
  apiKeys: ApiKeys;
  logger: Logger;
  metrics: MetricsRegistry;
  maxBodyBytes?: number;
  /** Requests served at once; more are answered 503 `overloaded` (default 1024). */
  maxInFlight?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 1024;

/** Whether answers to this caller may carry buyers' signatures. */
function seesSignatures(caller: ApiCaller | null): boolean {
  return caller?.scope === "write";
}

function decision(result: DecisionResult, caller: ApiCaller | null): JsonResponse {
  const inFlight = result.order.state === "capturing" || result.order.state === "cancelling";
  return {
    status: result.changed && inFlight ? 202 : 200,
    body: { order: orderToJson(result.order, seesSignatures(caller)), changed: result.changed },
  };
}

export function mountMerchantApi(app: TemplatedApp, options: MerchantApiOptions): void {
  const { service, metrics } = options;
  const router = new JsonRouter(app, {
    logger: options.logger,
    metrics,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    maxInFlight: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    authenticate: (presented) => options.apiKeys.verify(presented),
  });
  router
    .get("/healthz", "public", async () => ({ status: 200, body: { status: "ok" } }))
    .post("/orders", "write", async (request) => {
      const result = await service.create(parseCreateOrder(request.body));
      return {
        status: result.changed ? 201 : 200,
        body: { order: orderToJson(result.order, seesSignatures(request.caller)), changed: result.changed },
      };
    })
    .get("/orders", "read", async (request) => {
      const query = parseListQuery(request.query);
      const orders = await service.list(query);
      const last = orders.at(-1);
      return {
        status: 200,
        body: {
          orders: orders.map((order) => orderToJson(order, seesSignatures(request.caller))),
          next: orders.length === query.limit && last !== undefined ? last.id : null,
        },
      };
    })
    .get("/orders/:id", "read", async (request) => ({
      status: 200,
      body: {
        order: orderToJson(
          await service.get(parseOrderId(request.params.id)),
          seesSignatures(request.caller),
        ),
      },
    }))
    .post("/orders/:id/capture", "write", async (request) => {
      const id = parseOrderId(request.params.id);
      parseEmpty(request.body, "capture");
      return decision(await service.capture(id), request.caller);
    })
    .post("/orders/:id/void", "write", async (request) => {
      const id = parseOrderId(request.params.id);
      parseEmpty(request.body, "void");
      return decision(await service.void(id), request.caller);
    })
    .post("/orders/:id/cancel", "write", async (request) => {
      const id = parseOrderId(request.params.id);
      return decision(await service.cancel(id, parseCancel(request.body)), request.caller);
    });
  app.get(
    "/metrics",
    router.guard.http(
      async (response) => {
        const text = await metrics.exposition();
        response.respond({ status: 200, contentType: metrics.contentType, body: text });
      },
      { limited: false },
    ),
  );
  router.finish();
}
