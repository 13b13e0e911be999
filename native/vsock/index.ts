/**
 * AF_VSOCK for the enclave (listen on port 8000, any context id) and the host (connect to an enclave's
 * context id), as ordinary `net.Socket`s. Arguments are validated here and again in the addon, before
 * any system call.
 */
import type { Socket } from "node:net";
import { getSystemErrorName } from "node:util";
import { NativeError } from "../errors.js";
import { isNativeSystemError } from "../load-addon.js";
import { vsockBinding } from "./binding.js";
import {
  socketFromFd,
  StreamListener,
  type StreamListenerOptions,
  type StreamSocketOptions,
} from "./stream-handle.js";

export { StreamHandleError, StreamListener } from "./stream-handle.js";
export type { StreamListenerOptions, StreamSocketOptions } from "./stream-handle.js";

/** Any context id (listen on every one). */
export const VMADDR_CID_ANY = 0xffff_ffff;
/** The host's context id as seen from an enclave. */
export const VMADDR_CID_HOST = 2;

const U32_MAX = 0xffff_ffff;

export class VsockArgumentError extends RangeError {
  override readonly name = "VsockArgumentError";
}

/** AF_VSOCK is switched off in this process (OP_ENCLAVE_FORBID_VSOCK; set by the tests). */
export class VsockForbiddenError extends NativeError<"vsock-forbidden"> {
  override readonly name = "VsockForbiddenError";
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, { kind: "vsock-forbidden", ...options });
  }
}

/** socket/bind/connect failed (ECONNREFUSED, ENODEV without a vsock device, EADDRINUSE, ...). */
export class VsockSystemError extends NativeError<"vsock-system"> {
  override readonly name = "VsockSystemError";
  constructor(
    readonly syscall: string,
    readonly code: string,
    message: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "vsock-system", details: { syscall, code }, cause: options.cause });
  }
}

export function checkU32(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > U32_MAX) {
    throw new VsockArgumentError(`${what} must be an integer in [0, 2^32), got ${String(value)}`);
  }
  return value;
}

function translate(error: unknown): Error {
  if (isNativeSystemError(error) && error.errno !== undefined) {
    const code = getSystemErrorName(-error.errno);
    return new VsockSystemError(error.syscall ?? "unknown", code, error.message, { cause: error });
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ERR_VSOCK_FORBIDDEN")
    return new VsockForbiddenError((error as Error).message, { cause: error });
  if (code === "ERR_INVALID_ARG") return new VsockArgumentError((error as Error).message, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/** Listens on (cid, port); each accepted connection is a "connection" event carrying a net.Socket. */
export function listenVsock(
  port: number,
  cid: number = VMADDR_CID_ANY,
  options: StreamListenerOptions = {},
): StreamListener {
  checkU32(port, "port");
  checkU32(cid, "cid");
  let fd: number;
  try {
    fd = vsockBinding().listen(cid, port);
  } catch (error) {
    throw translate(error);
  }
  return new StreamListener(fd, options);
}

/** Connects to (cid, port); resolves with a connected net.Socket (no "connect" event follows). */
export async function connectVsock(
  cid: number,
  port: number,
  options: StreamSocketOptions = {},
): Promise<Socket> {
  checkU32(cid, "cid");
  checkU32(port, "port");
  let fd: number;
  try {
    fd = await vsockBinding().connect(cid, port);
  } catch (error) {
    throw translate(error);
  }
  return socketFromFd(fd, options);
}
