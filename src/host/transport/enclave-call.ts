/**
 * The host side of one host-enclave exchange (docs/protocol.md "Host-to-enclave vsock protocol"): open a
 * connection, write one request frame (4- or 8-byte length prefix and the spec's or Base's messages, each as
 * configured) in chunks of at most 28 KiB (waiting for the socket to drain), read exactly one response frame in
 * the same prefix form whose announced length is capped before anything is read, close. The answer is read in the
 * configured message form, or in the other one for a request both forms encode alike (`decodeAnswer`).
 * Every byte from the enclave is treated as hostile: the frame reader refuses an oversized prefix and
 * trailing bytes, and the bincode decoder refuses anything malformed.
 */
import { connect, type Socket } from "node:net";
import {
  BincodeDecodeError,
  FrameError,
  MAX_RESPONSE_PAYLOAD_BYTES,
  READ_TIMEOUT_MS,
  type Request,
  type Response,
} from "../../../generated/protocol/index.js";
import {
  DEFAULT_FRAME_LENGTH_PREFIX,
  DEFAULT_MESSAGE_FORM,
  decodeAnswer,
  type EnclaveAddress,
  encodeRequestFrameWith,
  type FrameLengthPrefix,
  type MessageForm,
  formatEnclaveAddress,
  LengthPrefixedFrameReader,
  writeFrame,
} from "../../proof/transport/index.js";
import { EnclaveCallAbortedError, EnclaveTransportError } from "./errors.js";
import { openVsock } from "./vsock.js";

export interface EnclaveCallOptions {
  /** Closes the connection and rejects with EnclaveCallAbortedError. */
  readonly signal?: AbortSignal;
  /** Time for the response frame to arrive once its first byte has (default: the protocol's 5 minutes). */
  readonly readTimeoutMs?: number;
  /**
   * Time from connecting until the response starts (default: readTimeoutMs). A Prove runs the proof
   * program before answering, so its caller passes Infinity and bounds the wait with `signal` (the proof
   * request timeout) instead.
   */
  readonly responseStartTimeoutMs?: number;
  /** Largest accepted response payload (default and maximum: the protocol's cap). */
  readonly maxResponsePayloadBytes?: number;
  /** The frames' length-prefix width, both ways (default: the spec's 4 bytes). */
  readonly frameLengthPrefix?: FrameLengthPrefix;
  /** The messages' form: the spec's (default) or Base's. */
  readonly messageForm?: MessageForm;
}

/** A socket that is connecting (local mode: "connect" follows) or already connected (vsock). */
async function open(address: EnclaveAddress): Promise<{ socket: Socket; connected: boolean }> {
  switch (address.kind) {
    case "unix":
      return { socket: connect({ path: address.path }), connected: false };
    case "tcp":
      return { socket: connect({ host: address.host, port: address.port }), connected: false };
    case "vsock":
      return { socket: await openVsock(address.cid, address.port), connected: true };
  }
}

/**
 * A request encoded as the frame that carries it, made before anything waits: the caller can let go of the request
 * (a Prove's preimages, hundreds of megabytes in a long range) while the enclave works, and the frame itself is held
 * only until it is written (`take`).
 */
export class EncodedEnclaveRequest {
  private frame: Uint8Array | undefined;

  constructor(
    readonly kind: Request["kind"],
    frame: Uint8Array,
  ) {
    this.frame = frame;
  }

  /** The frame, to the one exchange that sends it to `enclave`; this object keeps no reference to it. */
  take(enclave: string): Uint8Array {
    const frame = this.frame;
    if (frame === undefined)
      throw new EnclaveTransportError(enclave, `the ${this.kind} request frame was already sent`);
    this.frame = undefined;
    return frame;
  }
}

/** Encodes `request` as a frame in the call options' prefix and message forms. */
export function encodeEnclaveRequest(
  request: Request,
  options: Pick<EnclaveCallOptions, "frameLengthPrefix" | "messageForm"> = {},
): EncodedEnclaveRequest {
  return new EncodedEnclaveRequest(
    request.kind,
    encodeRequestFrameWith(
      request,
      options.frameLengthPrefix ?? DEFAULT_FRAME_LENGTH_PREFIX,
      options.messageForm ?? DEFAULT_MESSAGE_FORM,
    ),
  );
}

/**
 * Sends `request` (or its frame, encoded with the same options) to the enclave at `address`; resolves with its one
 * response.
 */
export async function callEnclave(
  address: EnclaveAddress,
  request: Request | EncodedEnclaveRequest,
  options: EnclaveCallOptions = {},
): Promise<Response> {
  const name = formatEnclaveAddress(address);
  const encoded = request instanceof EncodedEnclaveRequest ? request : encodeEnclaveRequest(request, options);
  const kind = encoded.kind;
  const aborted = (): boolean => options.signal?.aborted === true;
  if (aborted()) throw new EnclaveCallAbortedError(name);
  let opened: { socket: Socket; connected: boolean };
  try {
    opened = await open(address);
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new EnclaveTransportError(name, `connection failed: ${reason}`, { cause: error });
  }
  if (aborted()) {
    opened.socket.destroy();
    throw new EnclaveCallAbortedError(name);
  }
  return exchange(name, opened.socket, opened.connected, kind, encoded.take(name), options);
}

/** Writes the request frame on `socket` (holding it only until written) and reads the one response frame. */
function exchange(
  name: string,
  socket: Socket,
  connected: boolean,
  kind: Request["kind"],
  requestFrame: Uint8Array,
  options: EnclaveCallOptions,
): Promise<Response> {
  let frame: Uint8Array | undefined = requestFrame;
  const maxPayload = Math.min(
    options.maxResponsePayloadBytes ?? MAX_RESPONSE_PAYLOAD_BYTES,
    MAX_RESPONSE_PAYLOAD_BYTES,
  );
  return new Promise<Response>((resolve, reject) => {
    const signal = options.signal;
    const reader = new LengthPrefixedFrameReader({
      form: options.frameLengthPrefix ?? DEFAULT_FRAME_LENGTH_PREFIX,
      maxPayloadBytes: maxPayload,
    });
    let settled = false;
    let readTimer: NodeJS.Timeout | undefined;
    const settle = (outcome: { response: Response } | { error: Error }): void => {
      if (settled) return;
      settled = true;
      if (readTimer !== undefined) clearTimeout(readTimer);
      signal?.removeEventListener("abort", onAbort);
      socket.destroy();
      if ("response" in outcome) resolve(outcome.response);
      else reject(outcome.error);
    };
    const fail = (reason: string, cause?: unknown): void =>
      settle({ error: new EnclaveTransportError(name, reason, { cause }) });
    const onAbort = (): void => settle({ error: new EnclaveCallAbortedError(name) });
    signal?.addEventListener("abort", onAbort, { once: true });

    socket.on("error", (error) => fail(`connection failed: ${error.message}`, error));
    const readTimeoutMs = options.readTimeoutMs ?? READ_TIMEOUT_MS;
    const startTimeoutMs = options.responseStartTimeoutMs ?? readTimeoutMs;
    let responseStarted = false;
    const onConnected = (): void => {
      if (Number.isFinite(startTimeoutMs)) {
        readTimer = setTimeout(() => fail(`no response within ${startTimeoutMs} ms`), startTimeoutMs);
      }
      if (frame === undefined) return; // written once
      const written = writeFrame(socket, frame);
      frame = undefined;
      written.catch((error: unknown) => fail(`write failed: ${(error as Error).message}`, error));
    };
    socket.on("data", (chunk: Buffer) => {
      if (!responseStarted) {
        responseStarted = true;
        if (readTimer !== undefined) clearTimeout(readTimer);
        readTimer = setTimeout(
          () => fail(`response frame incomplete after ${readTimeoutMs} ms`),
          readTimeoutMs,
        );
      }
      let payload: Uint8Array | undefined;
      try {
        payload = reader.push(chunk);
      } catch (error) {
        fail(error instanceof FrameError ? `bad response frame: ${error.message}` : String(error), error);
        return;
      }
      if (payload === undefined) return;
      try {
        const form = options.messageForm ?? DEFAULT_MESSAGE_FORM;
        settle({ response: decodeAnswer(payload, kind, form) });
      } catch (error) {
        const reason = error instanceof BincodeDecodeError ? error.message : String(error);
        fail(`undecodable response: ${reason}`, error);
      }
    });
    socket.on("end", () => {
      try {
        reader.finish();
      } catch (error) {
        fail(`connection closed early: ${(error as Error).message}`, error);
      }
    });
    socket.on("close", () => fail("connection closed before a response"));
    if (connected) onConnected();
    else socket.once("connect", onConnected);
  });
}
