/**
 * vsock connections to Nitro enclaves through the repository's AF_VSOCK addon (native/vsock). The
 * addon is loaded at host start-up so a missing build fails there with a clear message, not on the
 * first request. OP_ENCLAVE_FORBID_VSOCK (set by every test) refuses AF_VSOCK here, before the addon
 * is called, as well as inside the addon before socket(2).
 */
import type { Socket } from "node:net";
import {
  connectVsock,
  NativeAddonNotBuiltError,
  VsockForbiddenError,
  vsockBinding,
} from "../../../native/index.js";
import { VsockUnavailableError } from "./errors.js";

function vsockForbidden(): boolean {
  const flag = process.env.OP_ENCLAVE_FORBID_VSOCK;
  return flag !== undefined && flag !== "" && flag !== "0";
}

/** Loads the addon (no socket is created); throws VsockUnavailableError when it is not built. */
export function ensureVsockAvailable(address: string): void {
  try {
    vsockBinding();
  } catch (error) {
    if (error instanceof NativeAddonNotBuiltError)
      throw new VsockUnavailableError(address, error.message, { cause: error });
    throw error;
  }
}

/** A connected socket to (cid, port). */
export function openVsock(cid: number, port: number): Promise<Socket> {
  if (vsockForbidden())
    return Promise.reject(
      new VsockForbiddenError("AF_VSOCK sockets are forbidden here (OP_ENCLAVE_FORBID_VSOCK is set)"),
    );
  return connectVsock(cid, port);
}
