/**
 * A read replica's connection to its leader: one JSON-RPC websocket carrying the replica's subscriptions
 * (newHeads, newFlashblocks) and its requests (raw blocks, forwarded transactions). It reconnects for as long
 * as the replica runs (back-off doubling from `reconnectDelayMs` to `maxReconnectDelayMs`), subscribes again
 * on every connection, and then tells its listeners, which resynchronise (what was published while the socket
 * was closed is fetched, not replayed).
 *
 * Written on `ws` rather than viem's socket client: viem's stops reconnecting after a reconnect attempt fails
 * (a leader still restarting) and reports to the console; a replica must keep trying and say so in its log.
 * Frames are capped (`maxFrameBytes`) and every request has a deadline.
 */
import WebSocket from "ws";
import type { Logger } from "../../log/index.js";
import { LeaderRequestError, LeaderUnavailableError } from "./errors.js";

export interface LeaderClientOptions {
  /** The leader's JSON-RPC websocket, e.g. ws://127.0.0.1:8545. */
  url: string;
  logger: Logger;
  /** First delay before reconnecting, milliseconds (default 250); doubles up to `maxReconnectDelayMs`. */
  reconnectDelayMs?: number;
  /** Default 5000. */
  maxReconnectDelayMs?: number;
  /** Deadline of one request, milliseconds (default 30 000). */
  requestTimeoutMs?: number;
  /** Largest frame accepted from the leader (default 64 MiB): a longer one closes the connection. */
  maxFrameBytes?: number;
}

interface PendingRequest {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

interface WantedSubscription {
  params: readonly unknown[];
  onData(result: unknown): void;
}

export class LeaderClient {
  private socket: WebSocket | undefined;
  private open = false;
  private closed = false;
  private nextId = 1;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly requests = new Map<number, PendingRequest>();
  private readonly wanted: WantedSubscription[] = [];
  /** Subscription id → its handler, for the current connection. */
  private readonly active = new Map<string, (result: unknown) => void>();
  private readonly connectedListeners = new Set<() => void>();

  constructor(private readonly opts: LeaderClientOptions) {}

  get url(): string {
    return this.opts.url;
  }

  /** True while the socket is open and every subscription is in place. */
  get connected(): boolean {
    return this.open;
  }

  /** Subscribes on every connection (`eth_subscribe` with `params`); call before `start`. */
  subscribe(params: readonly unknown[], onData: (result: unknown) => void): void {
    this.wanted.push({ params, onData });
  }

  /** Called after each connection once its subscriptions are in place. */
  onConnected(listener: () => void): () => void {
    this.connectedListeners.add(listener);
    return () => this.connectedListeners.delete(listener);
  }

  start(): void {
    if (this.socket !== undefined || this.closed) return;
    this.connect();
  }

  close(): void {
    this.closed = true;
    this.open = false;
    clearTimeout(this.reconnectTimer);
    this.failRequests("the replica is stopping");
    this.socket?.terminate();
    this.socket = undefined;
  }

  /** One JSON-RPC request; LeaderUnavailableError when not connected or past the deadline, LeaderRequestError for an error answer. */
  request(method: string, params: readonly unknown[]): Promise<unknown> {
    if (!this.open) return Promise.reject(this.unavailable(`not connected to the leader (${method})`));
    return this.send(method, params);
  }

  private send(method: string, params: readonly unknown[]): Promise<unknown> {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN)
      return Promise.reject(this.unavailable(`not connected to the leader (${method})`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timeoutMs = this.opts.requestTimeoutMs ?? 30_000;
      const timer = setTimeout(() => {
        this.requests.delete(id);
        reject(this.unavailable(`the leader did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.requests.set(id, { method, resolve, reject, timer });
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  private unavailable(message: string): LeaderUnavailableError {
    return new LeaderUnavailableError(message, { url: this.opts.url });
  }

  private connect(): void {
    const socket = new WebSocket(this.opts.url, {
      maxPayload: this.opts.maxFrameBytes ?? 64 * 1024 * 1024,
      perMessageDeflate: false,
    });
    this.socket = socket;
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      this.onFrame(data.toString());
    });
    socket.on("open", () => {
      void this.subscribeAll(socket);
    });
    socket.on("error", (err) => {
      this.opts.logger.warn({ url: this.opts.url, err: err.message }, "leader connection error");
    });
    socket.on("close", () => {
      if (this.socket !== socket) return;
      const wasOpen = this.open;
      this.open = false;
      this.socket = undefined;
      this.active.clear();
      this.failRequests("the connection to the leader closed");
      if (this.closed) return;
      if (wasOpen) this.opts.logger.warn({ url: this.opts.url }, "leader connection lost; reconnecting");
      const base = this.opts.reconnectDelayMs ?? 250;
      const delay = Math.min(base * 2 ** Math.min(this.attempt, 16), this.opts.maxReconnectDelayMs ?? 5_000);
      this.attempt++;
      this.reconnectTimer = setTimeout(() => this.connect(), delay);
    });
  }

  private async subscribeAll(socket: WebSocket): Promise<void> {
    try {
      for (const w of this.wanted) {
        const id = await this.send("eth_subscribe", w.params);
        if (typeof id !== "string") throw new Error(`eth_subscribe answered ${JSON.stringify(id)}`);
        this.active.set(id, w.onData);
      }
    } catch (e) {
      this.opts.logger.warn(
        { url: this.opts.url, err: (e as Error).message },
        "subscribing at the leader failed",
      );
      socket.terminate();
      return;
    }
    if (this.socket !== socket) return;
    this.open = true;
    this.attempt = 0;
    this.opts.logger.info({ url: this.opts.url }, "following the leader");
    for (const l of this.connectedListeners) l();
  }

  private failRequests(reason: string): void {
    for (const [id, r] of this.requests) {
      clearTimeout(r.timer);
      r.reject(this.unavailable(`${reason} (${r.method})`));
      this.requests.delete(id);
    }
  }

  private onFrame(text: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      this.opts.logger.warn(
        { url: this.opts.url, bytes: text.length },
        "the leader sent a frame that is not JSON",
      );
      return;
    }
    if (typeof frame !== "object" || frame === null) return;
    const f = frame as Record<string, unknown>;
    if (f.method === "eth_subscription") {
      const params = f.params as { subscription?: unknown; result?: unknown } | undefined;
      const handler =
        typeof params?.subscription === "string" ? this.active.get(params.subscription) : undefined;
      handler?.(params!.result);
      return;
    }
    if (typeof f.id !== "number") return;
    const pending = this.requests.get(f.id);
    if (pending === undefined) return;
    this.requests.delete(f.id);
    clearTimeout(pending.timer);
    const error = f.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (error !== undefined && error !== null)
      pending.reject(
        new LeaderRequestError(
          pending.method,
          typeof error.code === "number" ? error.code : -32603,
          typeof error.message === "string" ? error.message : "the leader answered an error",
          error.data,
        ),
      );
    else pending.resolve(f.result);
  }
}
