/**
 * Subscriptions of one websocket connection. A subscription is opened by a handler through
 * `ctx.subscriptions`; its pushes are held back until the response carrying its id has been sent,
 * and it closes (running the handler's cleanup once) on cancel, failure of the opening call,
 * connection close or server close.
 */
import { randomBytes } from "node:crypto";
import { notificationMessage } from "./envelope.js";
import type { Subscription, SubscriptionHost } from "./method.js";
import { TooManySubscriptionsError } from "./server-errors.js";

/** Sends one text frame; returns false when the frame could not be queued. */
export type FrameSender = (text: string) => boolean;

const DEFAULT_NOTIFICATION_METHOD = "eth_subscription";

class ConnectionSubscription implements Subscription {
  readonly id: string;
  private state: "pending" | "live" | "closed" = "pending";
  private queued: string[] = [];

  constructor(
    private readonly owner: ConnectionSubscriptions,
    private readonly method: string,
    private readonly onClose: () => void,
  ) {
    this.id = `0x${randomBytes(16).toString("hex")}`;
  }

  get closed(): boolean {
    return this.state === "closed";
  }

  push(result: unknown): boolean {
    if (this.state === "closed") return false;
    const text = notificationMessage(this.method, this.id, result);
    if (this.state === "pending") {
      this.queued.push(text);
      return true;
    }
    return this.owner.send(text);
  }

  /** The opening response has been sent: flush held-back pushes and go live. */
  activate(): void {
    if (this.state !== "pending") return;
    this.state = "live";
    const queued = this.queued;
    this.queued = [];
    for (const text of queued) this.owner.send(text);
  }

  /** Runs the cleanup once; returns false when already closed. */
  close(): boolean {
    if (this.state === "closed") return false;
    this.state = "closed";
    this.queued = [];
    this.onClose();
    return true;
  }
}

export class ConnectionSubscriptions {
  private readonly open = new Map<string, ConnectionSubscription>();
  private connectionClosed = false;

  constructor(
    private readonly sendFrame: FrameSender,
    private readonly onError: (error: unknown) => void,
    private readonly onCountChange: (delta: number) => void,
    /** Subscriptions the connection may hold at once, and how the refusal names that limit. */
    private readonly limit: { max: number; name?: string | undefined } = { max: Number.POSITIVE_INFINITY },
  ) {}

  get size(): number {
    return this.open.size;
  }

  send(text: string): boolean {
    return !this.connectionClosed && this.sendFrame(text);
  }

  /** A SubscriptionHost for one call; it remembers what that call opened. */
  scopeForCall(): CallSubscriptions {
    return new CallSubscriptions(this);
  }

  /** Opens a subscription; throws TooManySubscriptionsError when the connection holds its limit. */
  create(onClose: () => void, method: string): ConnectionSubscription {
    if (!this.connectionClosed && this.open.size >= this.limit.max)
      throw new TooManySubscriptionsError(this.limit.max, this.limit.name);
    const subscription = new ConnectionSubscription(this, method, onClose);
    if (this.connectionClosed) {
      this.runClose(subscription);
      return subscription;
    }
    this.open.set(subscription.id, subscription);
    this.onCountChange(1);
    return subscription;
  }

  cancel(id: string): boolean {
    const subscription = this.open.get(id);
    if (subscription === undefined) return false;
    this.open.delete(id);
    this.onCountChange(-1);
    this.runClose(subscription);
    return true;
  }

  /** The connection closed: close every subscription; later opens close at once. */
  closeAll(): void {
    this.connectionClosed = true;
    const all = [...this.open.values()];
    this.open.clear();
    if (all.length > 0) this.onCountChange(-all.length);
    for (const subscription of all) this.runClose(subscription);
  }

  private runClose(subscription: ConnectionSubscription): void {
    try {
      subscription.close();
    } catch (error) {
      this.onError(error);
    }
  }
}

/** The subscriptions host handed to one call's context. */
export class CallSubscriptions implements SubscriptionHost {
  private readonly opened: ConnectionSubscription[] = [];

  constructor(private readonly connection: ConnectionSubscriptions) {}

  open(onClose: () => void, options?: { method?: string }): Subscription {
    const subscription = this.connection.create(onClose, options?.method ?? DEFAULT_NOTIFICATION_METHOD);
    this.opened.push(subscription);
    return subscription;
  }

  cancel(id: string): boolean {
    return this.connection.cancel(id);
  }

  /** The call failed: its subscriptions are closed, the client never learned their ids. */
  discard(): void {
    for (const subscription of this.opened) this.connection.cancel(subscription.id);
    this.opened.length = 0;
  }

  /** The response has been sent: its subscriptions may push. */
  activate(): void {
    for (const subscription of this.opened) subscription.activate();
    this.opened.length = 0;
  }
}
