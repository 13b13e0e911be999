/** Raw broadcast websocket routes: every `broadcast(path, text)` goes as one text frame to each subscriber. */
import type { WebSocket } from "@trufflesuite/uws-js-unofficial";
import { MIB, type ServerCore } from "./server-core.js";
import { ServerConfigError } from "./server-errors.js";
import { upgradeWebSocket } from "./uws-app.js";

/** A websocket route that only broadcasts text frames (e.g. "/ws/flashblocks"); incoming frames are ignored. */
export interface BroadcastRouteOptions {
  readonly path: string;
  /** Bytes queued for a slow subscriber before it is disconnected; default 4 MiB. */
  readonly maxBackpressureBytes?: number;
  /** Called when a subscriber connects, with a way to send it frames first (e.g. the latest state). */
  readonly onOpen?: (send: (text: string) => void) => void;
}

interface BroadcastSocketData {
  closed: boolean;
}

export class BroadcastRoutes {
  private readonly paths = new Set<string>();
  private readonly sockets = new Set<WebSocket<BroadcastSocketData>>();

  constructor(private readonly core: ServerCore) {}

  has(path: string): boolean {
    return this.paths.has(path);
  }

  register(route: BroadcastRouteOptions): void {
    if (this.paths.has(route.path)) {
      throw new ServerConfigError(`broadcast route ${route.path} is configured twice`);
    }
    this.paths.add(route.path);
    const { app, guard, rpcMetrics } = this.core;
    const topic = route.path;
    app.ws<BroadcastSocketData>(
      route.path,
      guard.webSocket<BroadcastSocketData>({
        maxPayloadLength: 4096,
        idleTimeout: 120,
        sendPingsAutomatically: true,
        maxBackpressure: route.maxBackpressureBytes ?? 4 * MIB,
        // The C++ side reads this as a flag: a subscriber that cannot keep up is dropped, not silently skipped.
        closeOnBackpressureLimit: 1,
        upgrade: (res, req, context) =>
          upgradeWebSocket(res, req, context, { closed: false }, this.core.isDraining()),
        open: (ws) => {
          this.sockets.add(ws);
          rpcMetrics.websocketConnections.inc({ route: route.path });
          if (route.onOpen !== undefined) {
            // The route's owner may keep `send` and call it later, from its own timers: it never throws.
            const send = guard.callback((text: string) => {
              if (!ws.getUserData().closed) ws.cork(() => ws.send(text, false, false));
            }, `broadcast route ${route.path} send`);
            guard.callback(route.onOpen, `broadcast route ${route.path} onOpen`)(send);
          }
          ws.subscribe(topic);
        },
        message: () => {},
        close: (ws) => {
          ws.getUserData().closed = true;
          this.sockets.delete(ws);
          rpcMetrics.websocketConnections.dec({ route: route.path });
        },
      }),
    );
  }

  /** Sends a text frame to every subscriber of `path`; false when nobody received it. */
  broadcast(path: string, text: string, closed: boolean): boolean {
    if (!this.paths.has(path)) throw new ServerConfigError(`no broadcast route ${path} was configured`);
    if (closed) return false;
    return this.core.app.publish(path, text, false, false);
  }

  subscriberCount(path: string): number {
    return this.paths.has(path) ? this.core.app.numSubscribers(path) : 0;
  }

  /** Closes every subscriber (server shutdown). */
  closeAll(code: number, reason: string): void {
    for (const ws of [...this.sockets]) ws.end(code, reason);
  }
}
