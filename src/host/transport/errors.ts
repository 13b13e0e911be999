/** Failures of one host-enclave exchange. */
import { HostError } from "../errors.js";

/** The exchange failed on the wire: connect, write, read timeout, early close, bad or oversized frame. */
export class EnclaveTransportError extends HostError<"enclave-transport"> {
  override readonly name = "EnclaveTransportError";
  constructor(
    readonly enclave: string,
    readonly reason: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(`enclave ${enclave}: ${reason}`, {
      kind: "enclave-transport",
      details: { enclave, reason },
      cause: options.cause,
    });
  }
}

/** The caller gave up (proof timeout or server shutdown): the connection was closed. */
export class EnclaveCallAbortedError extends HostError<"enclave-call-aborted"> {
  override readonly name = "EnclaveCallAbortedError";
  constructor(readonly enclave: string) {
    super(`enclave ${enclave}: call aborted`, { kind: "enclave-call-aborted", details: { enclave } });
  }
}

/** A vsock address was configured but the AF_VSOCK native addon cannot be loaded. */
export class VsockUnavailableError extends HostError<"vsock-unavailable"> {
  override readonly name = "VsockUnavailableError";
  constructor(
    readonly address: string,
    reason: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(
      `cannot reach enclave ${address}: vsock needs the AF_VSOCK native addon: ${reason}; ` +
        `or run the enclaves in local mode and pass their Unix socket paths or 127.0.0.1:<port> addresses`,
      { kind: "vsock-unavailable", details: { address, reason }, cause: options.cause },
    );
  }
}
