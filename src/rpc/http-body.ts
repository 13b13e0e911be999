/**
 * Reads an HTTP request body from uWebSockets.js with a byte limit enforced while streaming:
 * the body is abandoned as soon as it grows past the limit, before it is buffered whole.
 */
import type { HttpResponse } from "@trufflesuite/uws-js-unofficial";

export interface BodyHandlers {
  /** The whole body. The bytes may alias uWS memory: consume them synchronously. */
  onBody(bytes: Uint8Array): void;
  /** The body passed `limit` bytes; nothing more will be delivered. */
  onTooLarge(receivedBytes: number): void;
  /**
   * `onBody` or `onTooLarge` threw (nothing more will be delivered). Without it the connection is closed:
   * an exception never escapes into uWS, where it would kill the process.
   */
  onError?(error: unknown): void;
}

/** Registers the onData handler; the caller must already have registered onAborted. */
export function readBody(res: HttpResponse, limit: number, handlers: BodyHandlers): void {
  let chunks: Uint8Array[] = [];
  let received = 0;
  let finished = false;
  const fail = (error: unknown): void => {
    finished = true;
    chunks = [];
    if (handlers.onError !== undefined) {
      handlers.onError(error);
      return;
    }
    try {
      res.close();
    } catch {
      // Already closed.
    }
  };
  const onData = (chunk: ArrayBuffer, isLast: boolean): void => {
    if (finished) return;
    received += chunk.byteLength;
    if (received > limit) {
      finished = true;
      chunks = [];
      handlers.onTooLarge(received);
      return;
    }
    if (!isLast) {
      // uWS neuters the chunk when this callback returns: keep a copy.
      chunks.push(new Uint8Array(chunk.slice(0)));
      return;
    }
    finished = true;
    if (chunks.length === 0) {
      handlers.onBody(new Uint8Array(chunk));
      return;
    }
    chunks.push(new Uint8Array(chunk));
    const whole = Buffer.concat(chunks, received);
    chunks = [];
    handlers.onBody(whole);
  };
  res.onData((chunk, isLast) => {
    try {
      onData(chunk, isLast);
    } catch (error) {
      try {
        fail(error);
      } catch {
        // The error handler failed too: the request is left to its abort handler.
      }
    }
  });
}
