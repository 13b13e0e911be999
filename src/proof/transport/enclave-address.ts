/**
 * Where the host reaches an enclave, and the port a Nitro enclave listens on. On AWS Nitro an enclave is a vsock context id (port 8000); in local
 * mode (development and tests) it is a Unix socket path or a 127.0.0.1 port, parsed by the enclave's own
 * listen-address rules so both sides accept exactly the same local addresses.
 *
 * Syntax of one `--vsock-cid` value:
 *   16 | vsock:16 | vsock:16:8000     a vsock context id (optionally with a port; default 8000)
 *   unix:/path | /path | ./path       a local-mode enclave on a Unix socket
 *   127.0.0.1:7000                    a local-mode enclave on a loopback TCP port
 */
import { TransportError } from "./errors.js";
import {
  formatListenAddress,
  type ListenAddress,
  ListenAddressError,
  parseListenAddress,
} from "./listen-address.js";

/** The enclave's vsock port (docs/protocol.md "Host-to-enclave vsock protocol": port 8000, any context id). */
export const ENCLAVE_VSOCK_PORT = 8000;

export interface VsockAddress {
  readonly kind: "vsock";
  readonly cid: number;
  readonly port: number;
}

export type EnclaveAddress = VsockAddress | ListenAddress;

export class EnclaveAddressError extends TransportError<"enclave-address"> {
  override readonly name = "EnclaveAddressError";
  constructor(
    message: string,
    details: { readonly address: string },
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "enclave-address", details, cause: options.cause });
  }
}

const U32_MAX = 0xffff_ffff;

function parseU32(text: string, what: string, whole: string): number {
  if (!/^\d{1,10}$/.test(text))
    throw new EnclaveAddressError(`bad ${what} in enclave address "${whole}"`, { address: whole });
  const value = Number(text);
  if (value > U32_MAX)
    throw new EnclaveAddressError(`${what} out of range in enclave address "${whole}"`, { address: whole });
  return value;
}

/** Parses one enclave address (see the module comment for the syntax). */
export function parseEnclaveAddress(text: string): EnclaveAddress {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed))
    return { kind: "vsock", cid: parseU32(trimmed, "context id", text), port: ENCLAVE_VSOCK_PORT };
  if (trimmed.startsWith("vsock:")) {
    const [cid, port, ...rest] = trimmed.slice("vsock:".length).split(":");
    if (cid === undefined || rest.length > 0)
      throw new EnclaveAddressError(`bad vsock address "${text}"`, { address: text });
    return {
      kind: "vsock",
      cid: parseU32(cid, "context id", text),
      port: port === undefined ? ENCLAVE_VSOCK_PORT : parseU32(port, "port", text),
    };
  }
  try {
    const local = parseListenAddress(trimmed);
    if (local.kind === "tcp" && local.port === 0)
      throw new EnclaveAddressError(`enclave address "${text}" needs a real port, not 0`, { address: text });
    return local;
  } catch (error) {
    if (error instanceof ListenAddressError) {
      throw new EnclaveAddressError(
        `bad enclave address "${text}": expected a vsock context id (16, vsock:16, vsock:16:8000), ` +
          `a Unix socket path (unix:/path, /path) or 127.0.0.1:<port>`,
        { address: text },
        { cause: error },
      );
    }
    throw error;
  }
}

/** Parses a list given as repeated flags and/or comma-separated values. */
export function parseEnclaveAddresses(values: readonly string[]): EnclaveAddress[] {
  return values
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter((value) => value.length > 0)
    .map(parseEnclaveAddress);
}

export function formatEnclaveAddress(address: EnclaveAddress): string {
  return address.kind === "vsock" ? `vsock:${address.cid}:${address.port}` : formatListenAddress(address);
}
