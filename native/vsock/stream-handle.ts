/**
 * Hands socket descriptors made by the addon to Node as ordinary `net.Socket`s.
 *
 * `new net.Socket({ fd })` and `server.listen({ fd })` cannot take an AF_VSOCK descriptor: Node asks
 * libuv's uv_guess_handle what the descriptor is, and that only recognises AF_INET/AF_INET6 (TCP) and
 * AF_UNIX (pipe) stream sockets, so Node throws ERR_INVALID_FD_TYPE. Underneath, though, libuv's pipe
 * handle works on any connected or listening SOCK_STREAM descriptor: uv_pipe_open only makes the
 * descriptor non-blocking, reads and writes are read(2)/write(2), uv_listen calls listen(2) and accepts
 * with accept4(2). So the descriptor goes into the same `Pipe` handle class Node itself uses for Unix
 * sockets (process.binding("pipe_wrap"), on the binding allow-list) and the socket is built from that
 * handle exactly as net.Server builds the sockets it accepts.
 */
import { EventEmitter } from "node:events";
import { Socket } from "node:net";
import { getSystemErrorName } from "node:util";
import { NativeError } from "../errors.js";
import { vsockBinding } from "./binding.js";

interface PipeHandle {
  open(fd: number): number;
  listen(backlog: number): number;
  close(callback?: () => void): void;
  ref(): void;
  unref(): void;
  onconnection: ((status: number, client: PipeHandle | undefined) => void) | null;
}

interface PipeWrapBinding {
  Pipe: new (type: number) => PipeHandle;
  constants: { SOCKET: number; SERVER: number };
}

export class StreamHandleError extends NativeError<"stream-handle"> {
  override readonly name = "StreamHandleError";
  constructor(
    readonly syscall: string,
    readonly code: string,
  ) {
    super(`${syscall} failed: ${code}`, { kind: "stream-handle", details: { syscall, code } });
  }
}

function pipeWrap(): PipeWrapBinding {
  const binding = (process as unknown as { binding(name: string): unknown }).binding("pipe_wrap");
  const candidate = binding as Partial<PipeWrapBinding> | undefined;
  if (
    typeof candidate?.Pipe !== "function" ||
    typeof candidate.constants?.SOCKET !== "number" ||
    typeof candidate.constants.SERVER !== "number"
  ) {
    throw new Error("this Node has no usable pipe_wrap binding (Pipe, constants.SOCKET/SERVER)");
  }
  return candidate as PipeWrapBinding;
}

function check(status: number, syscall: string): void {
  if (status < 0) throw new StreamHandleError(syscall, getSystemErrorName(status));
}

export interface StreamSocketOptions {
  /** As net.Socket's: keep the writable side open after the peer ends (default false). */
  readonly allowHalfOpen?: boolean;
}

function socketFromHandle(handle: PipeHandle, options: StreamSocketOptions): Socket {
  const init = { handle, readable: true, writable: true, allowHalfOpen: options.allowHalfOpen ?? false };
  return new Socket(init as unknown as ConstructorParameters<typeof Socket>[0]);
}

/** Wraps a connected stream-socket descriptor; the socket owns it from here on (also on failure). */
export function socketFromFd(fd: number, options: StreamSocketOptions = {}): Socket {
  const { Pipe, constants } = pipeWrap();
  const handle = new Pipe(constants.SOCKET);
  const status = handle.open(fd);
  if (status < 0) {
    handle.close();
    vsockBinding().closeFd(fd);
    check(status, "uv_pipe_open");
  }
  return socketFromHandle(handle, options);
}

export interface StreamListenerOptions extends StreamSocketOptions {
  /** listen(2) backlog (default 511, as net.Server). */
  readonly backlog?: number;
}

interface StreamListenerEvents {
  connection: [socket: Socket];
  error: [error: Error];
  close: [];
}

/**
 * Accepts connections on a bound stream-socket descriptor and emits each as a `net.Socket`
 * ("connection"). Accept failures are emitted as "error"; the listener keeps listening.
 */
export class StreamListener extends EventEmitter<StreamListenerEvents> {
  private handle: PipeHandle | null;
  private closing: Promise<void> | null = null;

  /** Starts listening on `fd` (bound, not yet listening); the listener owns it from here on. */
  constructor(fd: number, options: StreamListenerOptions = {}) {
    super();
    const { Pipe, constants } = pipeWrap();
    const handle = new Pipe(constants.SERVER);
    const opened = handle.open(fd);
    if (opened < 0) {
      handle.close();
      vsockBinding().closeFd(fd);
      check(opened, "uv_pipe_open");
    }
    handle.onconnection = (status, client) => {
      if (status < 0 || client === undefined) {
        this.emit("error", new StreamHandleError("accept", getSystemErrorName(status < 0 ? status : -22)));
        return;
      }
      this.emit("connection", socketFromHandle(client, options));
    };
    const listening = handle.listen(options.backlog ?? 511);
    if (listening < 0) {
      handle.close();
      check(listening, "listen");
    }
    this.handle = handle;
  }

  get listening(): boolean {
    return this.handle !== null;
  }

  /** Stops accepting (open connections are left alone) and releases the descriptor. */
  close(): Promise<void> {
    if (this.closing !== null) return this.closing;
    const handle = this.handle;
    this.handle = null;
    this.closing = new Promise<void>((resolve) => {
      if (handle === null) return resolve();
      handle.onconnection = null;
      handle.close(() => {
        this.emit("close");
        resolve();
      });
    });
    return this.closing;
  }

  /** As net.Server's: an unref'd listener does not keep the process alive. */
  ref(): this {
    this.handle?.ref();
    return this;
  }

  unref(): this {
    this.handle?.unref();
    return this;
  }
}
