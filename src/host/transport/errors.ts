/** Failures of one host-enclave exchange. */

/** The exchange failed on the wire: connect, write, read timeout, early close, bad or oversized frame. */
export class EnclaveTransportError extends Error {
  override readonly name = "EnclaveTransportError";
  constructor(
    readonly enclave: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`enclave ${enclave}: ${reason}`, options);
  }
}

/** The caller gave up (proof timeout or server shutdown): the connection was closed. */
export class EnclaveCallAbortedError extends Error {
  override readonly name = "EnclaveCallAbortedError";
  constructor(readonly enclave: string) {
    super(`enclave ${enclave}: call aborted`);
  }
}

/** A vsock address was configured but the AF_VSOCK native addon cannot be loaded. */
export class VsockUnavailableError extends Error {
  override readonly name = "VsockUnavailableError";
  constructor(
    readonly address: string,
    reason: string,
  ) {
    super(
      `cannot reach enclave ${address}: vsock needs the AF_VSOCK native addon: ${reason}; ` +
        `or run the enclaves in local mode and pass their Unix socket paths or 127.0.0.1:<port> addresses`,
    );
  }
}
