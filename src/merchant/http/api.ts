/**
 * The merchant HTTP API (REST-style JSON):
 *   POST /orders                 create from a signed authorization (201 new, 200 same one again)
 *   GET  /orders                 list (?state=&limit=&after=)
 *   GET  /orders/:id             read
 *   POST /orders/:id/capture     capture onchain (202 while in flight, 200 when replayed)
 *   POST /orders/:id/void        void offchain (no transaction)
 *   POST /orders/:id/cancel      cancel onchain with the buyer's signed CancelAuthorization
 *   GET  /healthz, GET /metrics
 */
import type { TemplatedApp } from "@trufflesuite/uws-js-unofficial";
import type { Logger } from "../../log/index.js";
import type { MetricsRegistry } from "../../metrics/index.js";
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
  logger: Logger;
  metrics: MetricsRegistry;
  maxBodyBytes?: number;
  /** Requests served at once; more are answered 503 `overloaded` (default 1024). */
  maxInFlight?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 1024;

function decision(result: DecisionResult): JsonResponse {
  const inFlight = result.order.state === "capturing" || result.order.state === "cancelling";
  return {
    status: result.changed && inFlight ? 202 : 200,
    body: { order: orderToJson(result.order), changed: result.changed },
  };
}

export function mountMerchantApi(app: TemplatedApp, options: MerchantApiOptions): void {
  const { service, metrics } = options;
  const router = new JsonRouter(app, {
    logger: options.logger,
    metrics,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    maxInFlight: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
  });
  router
    .get("/healthz", async () => ({ status: 200, body: { status: "ok" } }))
    .post("/orders", async (request) => {
      const result = await service.create(parseCreateOrder(request.body));
      return {
        status: result.changed ? 201 : 200,
        body: { order: orderToJson(result.order), changed: result.changed },
      };
    })
    .get("/orders", async (request) => {
      const query = parseListQuery(request.query);
      const orders = await service.list(query);
      const last = orders.at(-1);
      return {
        status: 200,
        body: {
          orders: orders.map(orderToJson),
          next: orders.length === query.limit && last !== undefined ? last.id : null,
        },
      };
    })
    .get("/orders/:id", async (request) => ({
      status: 200,
      body: { order: orderToJson(await service.get(parseOrderId(request.params.id))) },
    }))
    .post("/orders/:id/capture", async (request) => {
      const id = parseOrderId(request.params.id);
      parseEmpty(request.body, "capture");
      return decision(await service.capture(id));
    })
    .post("/orders/:id/void", async (request) => {
      const id = parseOrderId(request.params.id);
      parseEmpty(request.body, "void");
      return decision(await service.void(id));
    })
    .post("/orders/:id/cancel", async (request) => {
      const id = parseOrderId(request.params.id);
      return decision(await service.cancel(id, parseCancel(request.body)));
    });
  const { guard } = router;
  app.get(
    "/metrics",
    guard.route("/metrics", (res, _req, life) => {
      metrics
        .exposition()
        .then((text) => {
          if (!life.close()) return;
          res.cork(() =>
            res.writeStatus("200 OK").writeHeader("content-type", metrics.contentType).end(text),
          );
        })
        .catch((error: unknown) => guard.fail(res, life, "/metrics", error));
    }),
  );
  router.finish();
}
