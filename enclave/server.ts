/**
 * The enclave's transport in local mode: one request per connection over a Unix socket or loopback TCP.
 * Frames with a 4-byte (the spec's) or 8-byte big-endian length prefix, told apart from the first bytes and
 * answered in the form asked in (src/proof/transport); messages in the spec's form or Base's, answered in the
 * request's form where its bytes tell and otherwise in the form paired with the frame (`answerMessageForm`). The
 * length is capped and admitted before any payload byte is kept. Writes of at most 28 KiB, a read timeout for the whole frame. Garbage, oversized, truncated or undecodable input gets an
 * Error response (or the connection is closed) and the server keeps serving.
 */
import { rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import {
  BincodeDecodeError,
  decodeRequestPayload,
  MAX_REQUEST_PAYLOAD_BYTES,
  READ_TIMEOUT_MS,
  type Request,
  type Response,
} from "../generated/protocol/index.js";
import { listenVsock, type StreamListener } from "../native/index.js";
import {
  DEFAULT_FRAME_LENGTH_PREFIX,
  encodeResponseFrameWith,
  type FrameForm,
  type FrameLengthPrefix,
  formatListenAddress,
  LengthPrefixedFrameReader,
  type ListenAddress,
  answerMessageForm,
  type MessageForm,
  type VsockAddress,
  writeFrame,
} from "../src/proof/transport/index.js";
import { EnclaveError } from "./errors.js";
import { type Logger, silentLogger } from "./log.js";

/** Local mode: a Unix socket or a loopback port; Nitro mode: AF_VSOCK through native/vsock (any context id). */
export type ServerAddress = ListenAddress | VsockAddress;

/** What a handler gets besides the request: the connection's hang-up and the memory budget it may charge. */
export interface RequestContext {
  /** Aborted when the peer closes its side or sends bytes after the request frame (the proof is for no one). */
  readonly signal: AbortSignal;
  /**
   * Charges `bytes` more against the server's memory budget until the connection closes; throws EnclaveBusyError
   * (naming `what`) when they do not fit.
   */
  charge(bytes: number, what: string): void;
}

export interface EnclaveServerOptions {
  readonly listen: ServerAddress;
  readonly handle: (request: Request, context: RequestContext) => Promise<Response>;
  /**
   * Answers a raw request payload itself (the enclave's Prove, decoded without copies), or resolves undefined to
   * leave it to the generated decoder and `handle`. `request` names the request for the log.
   */
  readonly handleRaw?: (
    payload: Uint8Array,
    context: RequestContext,
  ) => Promise<{ readonly request: string; readonly response: Response } | undefined>;
  /** Time for a request frame to arrive completely (default: 5 minutes, docs/protocol.md "Limits"). */
  readonly readTimeoutMs?: number;
  /** Largest accepted request payload (default and maximum: the cap in spec/protocol/enclave.protocol.json). */
  readonly maxRequestPayloadBytes?: number;
  /**
   * Request bytes all open connections together may announce, plus what handlers charge (default: twice the
   * request cap; the enclave process passes a share of its heap). A frame whose announced length does not fit is
   * refused before its payload is read.
   */
  readonly maxBufferedRequestBytes?: number;
  /** The request frames' length-prefix form: 4, 8, or either, detected per connection (the default). */
  readonly frameForm?: FrameForm;
  /**
   * Request payloads on SharedArrayBuffers (the enclave with block workers): a Prove's preimages are then read by
   * the workers in place, never copied for them (docs/enclave.md "Parallel execution").
   */
  readonly sharedPayloads?: boolean;
  readonly log?: Logger;
}

/** The announced request does not fit the server's budget for buffered request bytes (refuses the frame). */
export class EnclaveBusyError extends EnclaveError<"busy"> {
  override readonly name = "EnclaveBusyError";
  constructor(
    message: string,
    details: { readonly announced: number; readonly admitted: number; readonly budget: number },
  ) {
    super(message, { kind: "busy", details });
  }
}

/** The peer hung up while its request was being served (the reason of the request's abort signal). */
export class EnclaveHungUpError extends EnclaveError<"hung-up"> {
  override readonly name = "EnclaveHungUpError";
  constructor(why: string) {
    super(`request abandoned: ${why}`, { kind: "hung-up", details: { why } });
  }
}

export class EnclaveServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly log: Logger;
  private boundAddress: ListenAddress | null;
  private vsock: StreamListener | null = null;
  private admittedBytes = 0;

  constructor(private readonly options: EnclaveServerOptions) {
    this.log = options.log ?? silentLogger;
    this.boundAddress = options.listen.kind === "vsock" ? null : options.listen;
    this.server = createServer({ allowHalfOpen: true }, (socket) => this.serve(socket));
    this.server.on("error", (error) => this.log("error", "server error", { error: error.message }));
  }

  /** The address actually bound (with the real port when 0 was asked for). */
  get address(): ListenAddress {
    if (this.boundAddress === null) throw new Error("a vsock server has no local-mode address");
    return this.boundAddress;
  }

  async start(): Promise<void> {
    const listen = this.options.listen;
    if (listen.kind === "vsock") {
      const listener = listenVsock(listen.port, listen.cid, { allowHalfOpen: true });
      listener.on("connection", (socket) => this.serve(socket));
      listener.on("error", (error) => this.log("error", "vsock accept failed", { error: error.message }));
      this.vsock = listener;
      return;
    }
    if (listen.kind === "unix") await rm(listen.path, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      const ready = () => {
        this.server.off("error", reject);
        resolve();
      };
      if (listen.kind === "unix") this.server.listen(listen.path, ready);
      else this.server.listen(listen.port, listen.host, ready);
    });
    const bound = this.server.address();
    if (listen.kind === "tcp" && bound !== null && typeof bound === "object") {
      this.boundAddress = { kind: "tcp", host: "127.0.0.1", port: bound.port };
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.vsock !== null) {
      await this.vsock.close();
      return;
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.options.listen.kind === "unix") await rm(this.options.listen.path, { force: true });
  }

  describe(): string {
    const listen = this.options.listen;
    if (listen.kind === "vsock") return `vsock:${listen.cid}:${listen.port}`;
    return formatListenAddress(this.boundAddress ?? listen);
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", (error) => this.log("warn", "connection error", { error: error.message }));
    const budget = this.options.maxBufferedRequestBytes ?? 2 * MAX_REQUEST_PAYLOAD_BYTES;
    let admitted = 0;
    socket.on("close", () => {
      this.admittedBytes -= admitted;
      admitted = 0;
    });
    const charge = (bytes: number, what: string): void => {
      if (this.admittedBytes + bytes > budget) {
        throw new EnclaveBusyError(
          `enclave busy: ${what} does not fit next to ${this.admittedBytes} bytes already admitted (budget ${budget})`,
          { announced: bytes, admitted: this.admittedBytes, budget },
        );
      }
      admitted += bytes;
      this.admittedBytes += bytes;
    };
    const reader = new LengthPrefixedFrameReader({
      form: this.options.frameForm ?? "detect",
      maxPayloadBytes: Math.min(
        this.options.maxRequestPayloadBytes ?? MAX_REQUEST_PAYLOAD_BYTES,
        MAX_REQUEST_PAYLOAD_BYTES,
      ),
      admit: (length) => charge(length, `a ${length}-byte request`),
      ...(this.options.sharedPayloads === true
        ? { allocate: (length: number) => new Uint8Array(new SharedArrayBuffer(length)) }
        : {}),
    });
    const hangUp = new AbortController();
    const context: RequestContext = { signal: hangUp.signal, charge };
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      this.log("warn", "request frame timed out", {});
      socket.destroy();
    }, this.options.readTimeoutMs ?? READ_TIMEOUT_MS);

    const finish = (outcome: { payload: Uint8Array } | { refusal: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      // The host never half-closes: end of input, a close or more bytes while the request is served mean the
      // answer is for no one, and the handler is told (a Prove stops between blocks).
      if ("payload" in outcome) this.log("info", "request received", { bytes: outcome.payload.length });
      const hungUp = (why: string) => () => hangUp.abort(new EnclaveHungUpError(why));
      socket.once("end", hungUp("the connection was closed"));
      socket.once("close", hungUp("the connection was closed"));
      socket.once("data", hungUp("bytes after the request frame"));
      void this.respond(socket, outcome, context, reader.lengthPrefix ?? DEFAULT_FRAME_LENGTH_PREFIX);
    };
    const onData = (chunk: Buffer) => {
      try {
        const payload = reader.push(chunk);
        if (payload !== undefined) finish({ payload });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        finish({ refusal: error instanceof EnclaveBusyError ? message : `bad frame: ${message}` });
      }
    };
    const onEnd = () => {
      try {
        reader.finish();
      } catch (error) {
        finish({ refusal: `bad frame: ${(error as Error).message}` });
      }
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
  }

  /** The response for one connection's outcome: a refusal, an undecodable payload, or a handled request. */
  private async responseFor(
    outcome: { payload: Uint8Array } | { refusal: string },
    context: RequestContext,
    form: MessageForm,
  ): Promise<Response> {
    if ("refusal" in outcome) return { kind: "Error", message: outcome.refusal };
    const raw = await this.options.handleRaw?.(outcome.payload, context);
    if (raw !== undefined) {
      this.served(raw.request, raw.response, context);
      return raw.response;
    }
    let request: Request;
    try {
      request = decodeRequestPayload(outcome.payload, form);
    } catch (error) {
      const reason = error instanceof BincodeDecodeError ? error.message : String(error);
      return { kind: "Error", message: `undecodable request: ${reason}` };
    }
    let response: Response;
    try {
      response = await this.options.handle(request, context);
    } catch (error) {
      response = { kind: "Error", message: `internal error: ${(error as Error).message}` };
    }
    this.served(request.kind, response, context);
    return response;
  }

  private served(request: string, response: Response, context: RequestContext): void {
    const reason: unknown = context.signal.reason;
    if (context.signal.aborted && reason instanceof EnclaveHungUpError)
      this.log("warn", "request abandoned by the host", { request, reason: reason.message });
    this.log("info", "request served", { request, response: response.kind });
  }

  private async respond(
    socket: Socket,
    outcome: { payload: Uint8Array } | { refusal: string },
    context: RequestContext,
    lengthPrefix: FrameLengthPrefix,
  ): Promise<void> {
    const form = answerMessageForm("payload" in outcome ? outcome.payload : undefined, lengthPrefix);
    const response = await this.responseFor(outcome, context, form);
    try {
      await writeFrame(socket, encodeResponseFrameWith(response, lengthPrefix, form));
      socket.end();
    } catch (error) {
      this.log("warn", "could not write the response", { error: (error as Error).message });
      socket.destroy();
    }
  }
}
