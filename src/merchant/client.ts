/**
 * A small client of the merchant HTTP API (used by the CLI and the tests). Non-2xx answers throw
 * MerchantApiError carrying the status and the API's error object.
 */
import {
  type ApiErrorBody,
  MerchantApiError,
  MerchantResponseError,
  OrderWaitTimeoutError,
} from "./errors.js";
import type { CreateOrderBody, OrderJson } from "./http/wire.js";

export { type ApiErrorBody, type CreateOrderBody, MerchantApiError };

export interface OrderAnswer {
  order: OrderJson;
  changed: boolean;
  status: number;
}

const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface MerchantClientOptions {
  /** The API key sent as `Authorization: Bearer <key>` (every route but /healthz and /metrics needs one). */
  apiKey?: string;
}

export class MerchantClient {
  private readonly base: string;
  private readonly apiKey: string | undefined;

  constructor(baseUrl: string, options: MerchantClientOptions = {}) {
    this.base = baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
  }

  /** Raw request: status and parsed JSON body. */
  async request(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = {};
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    if (text.length > MAX_RESPONSE_BYTES)
      throw new MerchantResponseError(`response from ${path} exceeds ${MAX_RESPONSE_BYTES} bytes`, {
        path,
        limit: MAX_RESPONSE_BYTES,
      });
    let json: unknown;
    try {
      json = text.length === 0 ? null : JSON.parse(text);
    } catch {
      throw new MerchantResponseError(`${method} ${path}: HTTP ${response.status} with a non-JSON body`, {
        method,
        path,
        status: response.status,
      });
    }
    return { status: response.status, json };
  }

  private async call<T>(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<T & { status: number }> {
    const { status, json } = await this.request(method, path, body);
    if (status < 200 || status > 299) {
      const error = (json as { error?: ApiErrorBody } | null)?.error ?? {
        code: "unknown",
        message: String(json),
      };
      throw new MerchantApiError(status, error);
    }
    return { ...(json as T), status };
  }

  createOrder(body: CreateOrderBody): Promise<OrderAnswer> {
    return this.call("POST", "/orders", body);
  }

  getOrder(id: string): Promise<{ order: OrderJson }> {
    return this.call("GET", `/orders/${encodeURIComponent(id)}`);
  }

  listOrders(
    query: { state?: string; limit?: number; after?: string } = {},
  ): Promise<{ orders: OrderJson[]; next: string | null }> {
    const params = new URLSearchParams();
    if (query.state !== undefined) params.set("state", query.state);
    if (query.limit !== undefined) params.set("limit", String(query.limit));
    if (query.after !== undefined) params.set("after", query.after);
    const qs = params.toString();
    return this.call("GET", `/orders${qs === "" ? "" : `?${qs}`}`);
  }

  capture(id: string): Promise<OrderAnswer> {
    return this.call("POST", `/orders/${encodeURIComponent(id)}/capture`);
  }

  void(id: string): Promise<OrderAnswer> {
    return this.call("POST", `/orders/${encodeURIComponent(id)}/void`);
  }

  cancel(id: string, signature: string): Promise<OrderAnswer> {
    return this.call("POST", `/orders/${encodeURIComponent(id)}/cancel`, { signature });
  }

  /** Polls until the order is in one of `states` (or the timeout passes). */
  async waitForState(
    id: string,
    states: readonly string[],
    timeoutMs = 20_000,
    intervalMs = 50,
  ): Promise<OrderJson> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { order } = await this.getOrder(id);
      if (states.includes(order.state)) return order;
      if (Date.now() > deadline) {
        throw new OrderWaitTimeoutError(id, order.state, states, timeoutMs);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
