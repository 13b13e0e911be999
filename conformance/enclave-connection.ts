/**
 * A raw connection to an enclave for the protocol checks: write arbitrary bytes (well-formed frames or
 * hostile ones), read response frames one at a time, and observe whether the peer sends anything more or
 * closes. The peer is untrusted: a length prefix above the response cap is refused before buffering, and
 * everything received is capped.
 */
import { connect, type Socket } from "node:net";
import {
  frameWriteChunks,
  MAX_RESPONSE_PAYLOAD_BYTES,
  type Request,
  type Response,
} from "../generated/protocol/index.js";
import {
  decodeAnswer,
  encodeRequestFrameWith,
  type FrameLengthPrefix,
  type ListenAddress,
  type MessageForm,
} from "../src/proof/transport/index.js";
import { ConformanceError, type ConformanceErrorOptions } from "./errors.js";

/** The suite could not talk to the enclave (connect, timeout, a frame it cannot read). */
export class EnclaveConnectionError extends ConformanceError<"enclave-connection"> {
  override readonly name = "EnclaveConnectionError";
  constructor(message: string, options: ConformanceErrorOptions = {}) {
    super(message, { kind: "enclave-connection", ...options });
  }
}

/** An enclave under test: where it listens and the length-prefix and message forms the suite speaks to it. */
export interface EnclaveTarget {
  readonly address: ListenAddress;
  readonly frameLengthPrefix: FrameLengthPrefix;
  readonly messageForm: MessageForm;
}

/** The announced length of a complete prefix at the start of `buffered` (a bigint: 8-byte prefixes are u64). */
function announcedLength(buffered: Buffer, prefix: FrameLengthPrefix): bigint {
  return prefix === 4 ? BigInt(buffered.readUInt32BE(0)) : buffered.readBigUInt64BE(0);
}

export type ReadOutcome =
  | { readonly kind: "frame"; readonly payload: Uint8Array }
  | { readonly kind: "closed"; readonly pendingBytes: number }
  | { readonly kind: "timeout" };

export class RawEnclaveConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private closed = false;
  private waiter: (() => void) | undefined;
  /** The kind of the last request sent with sendRequest (undefined after raw bytes only). */
  private asked: Request["kind"] | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly prefix: FrameLengthPrefix,
    private readonly form: MessageForm,
  ) {
    socket.on("data", (chunk: Buffer) => {
      if (this.buffered.length + chunk.length > MAX_RESPONSE_PAYLOAD_BYTES + prefix) {
        socket.destroy();
        this.closed = true;
      } else {
        this.buffered = Buffer.concat([this.buffered, chunk]);
      }
      this.wake();
    });
    socket.on("error", () => undefined);
    // With allowHalfOpen, "end" is the peer's FIN: it will send nothing more.
    socket.on("end", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(target: EnclaveTarget, timeoutMs = 10_000): Promise<RawEnclaveConnection> {
    const address = target.address;
    return new Promise((resolve, reject) => {
      const socket =
        address.kind === "unix"
          ? connect({ path: address.path, allowHalfOpen: true })
          : connect({ port: address.port, host: address.host, allowHalfOpen: true });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new EnclaveConnectionError(`connecting to the enclave timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        resolve(new RawEnclaveConnection(socket, target.frameLengthPrefix, target.messageForm));
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(new EnclaveConnectionError(`cannot connect to the enclave: ${error.message}`));
      });
    });
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private waitForChange(deadline: number): Promise<boolean> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        resolve(false);
      }, remaining);
      this.waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  /** Writes bytes in chunks of at most 28 KiB; write errors (the peer already closed) are ignored. */
  write(bytes: Uint8Array): void {
    if (this.socket.destroyed || !this.socket.writable) return;
    for (const chunk of frameWriteChunks(bytes)) this.socket.write(chunk);
  }

  sendRequest(request: Request): void {
    this.asked = request.kind;
    this.write(encodeRequestFrameWith(request, this.prefix, this.form));
  }

  /** Half-closes the connection: the peer sees end of input. */
  endInput(): void {
    if (!this.socket.destroyed) this.socket.end();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes received and not yet consumed as a frame. */
  get pendingBytes(): number {
    return this.buffered.length;
  }

  /** Waits for one complete response frame, the peer closing, or the timeout. */
  async readFrame(timeoutMs: number): Promise<ReadOutcome> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const prefix = this.prefix;
      if (this.buffered.length >= prefix) {
        const announced = announcedLength(this.buffered, prefix);
        if (announced > BigInt(MAX_RESPONSE_PAYLOAD_BYTES)) {
          this.destroy();
          throw new EnclaveConnectionError(
            `response frame announces ${announced} bytes, above the ${MAX_RESPONSE_PAYLOAD_BYTES}-byte cap`,
          );
        }
        const length = Number(announced);
        if (this.buffered.length >= prefix + length) {
          const payload = new Uint8Array(this.buffered.subarray(prefix, prefix + length));
          this.buffered = this.buffered.subarray(prefix + length);
          return { kind: "frame", payload };
        }
      }
      if (this.closed) return { kind: "closed", pendingBytes: this.buffered.length };
      if (!(await this.waitForChange(deadline))) return { kind: "timeout" };
    }
  }

  /**
   * Reads one frame and decodes it as the answer to the last request sent (`decodeAnswer`: in either form where
   * that request's bytes are the same in both); throws unless a decodable frame arrives in time.
   */
  async readResponse(timeoutMs: number): Promise<Response> {
    const outcome = await this.readFrame(timeoutMs);
    if (outcome.kind === "timeout") throw new EnclaveConnectionError(`no response within ${timeoutMs} ms`);
    if (outcome.kind === "closed") {
      throw new EnclaveConnectionError(
        `connection closed before a complete response frame (${outcome.pendingBytes} bytes received)`,
      );
    }
    return decodeAnswer(outcome.payload, this.asked, this.form);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** One request, one response, on a fresh connection. */
export async function exchange(
  target: EnclaveTarget,
  request: Request,
  timeoutMs: number,
): Promise<Response> {
  const connection = await RawEnclaveConnection.open(target);
  try {
    connection.sendRequest(request);
    return await connection.readResponse(timeoutMs);
  } finally {
    connection.destroy();
  }
}
