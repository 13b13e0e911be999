/**
 * Every uWebSockets.js callback of the merchant server runs behind this guard. uWS calls JavaScript from C++: an
 * exception thrown there (a malformed percent-escape in a path, a bug in a handler, a write to a response the peer
 * already closed) is not caught by anyone and ends the process. The guard catches it, logs it and answers the
 * request once: 400 `bad_request` when the input caused it (a URIError from decoding the URL, a
 * RequestRefusedError of kind bad-request), 500 `internal_error` otherwise. It also tracks the life of each
 * request (answered or aborted, whichever comes first), which the router's in-flight count follows.
 */
import type { HttpRequest, HttpResponse } from "@trufflesuite/uws-js-unofficial";
import type { Logger } from "../../log/index.js";
import { RequestRefusedError } from "../errors.js";

/** One request's life: open until it is answered or the peer aborts it. */
export class RequestLife {
  private closed = false;
  private readonly listeners: (() => void)[] = [];

  get done(): boolean {
    return this.closed;
  }

  /** Marks the request answered or aborted; false when it already was (so nobody answers twice). */
  close(): boolean {
    if (this.closed) return false;
    this.closed = true;
    for (const listener of this.listeners.splice(0)) listener();
    return true;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.listeners.push(listener);
  }
}

export type GuardedHandler = (res: HttpResponse, req: HttpRequest, life: RequestLife) => void;

/** What the guard answers when a callback throws: bad input (400) or an internal error (500). */
export function statusOfThrown(error: unknown): 400 | 500 {
  if (error instanceof URIError) return 400;
  if (error instanceof RequestRefusedError && error.kind === "bad-request") return 400;
  return 500;
}

export class CallbackGuard {
  constructor(private readonly logger: Logger) {}

  /** A uWS route handler: the request's life starts here (aborts close it) and exceptions are answered. */
  route(route: string, handler: GuardedHandler): (res: HttpResponse, req: HttpRequest) => void {
    return (res, req) => {
      const life = new RequestLife();
      try {
        res.onAborted(() => {
          life.close();
        });
        handler(res, req, life);
      } catch (error) {
        this.fail(res, life, route, error);
      }
    };
  }

  /** Runs a later callback of the same request (onData, a promise continuation) under the guard. */
  run(res: HttpResponse, life: RequestLife, route: string, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.fail(res, life, route, error);
    }
  }

  /** Answers a request whose callback threw, unless it was answered or aborted already; never throws. */
  fail(res: HttpResponse, life: RequestLife, route: string, error: unknown): void {
    const status = statusOfThrown(error);
    if (status === 500) this.logger.error({ err: error, route }, "merchant API callback failed");
    else this.logger.debug({ err: error, route }, "merchant API request refused as bad input");
    if (!life.close()) return;
    const body =
      status === 400
        ? { error: { code: "bad_request", message: `bad request: ${(error as Error).message}` } }
        : { error: { code: "internal_error", message: "internal error; see the service log" } };
    try {
      res.cork(() => {
        res
          .writeStatus(status === 400 ? "400 Bad Request" : "500 Internal Server Error")
          .writeHeader("content-type", "application/json")
          .end(JSON.stringify(body));
      });
    } catch (writeError) {
      this.logger.warn({ err: writeError, route }, "could not answer a failed request");
    }
  }
}
