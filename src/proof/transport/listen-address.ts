/**
 * Where a local-mode enclave listens: a Unix socket path or a 127.0.0.1 TCP port. Never vsock (that is
 * the Nitro transport, through the native addon) and never a non-loopback interface.
 */
import { TransportError } from "./errors.js";

export type ListenAddress =
  | { readonly kind: "unix"; readonly path: string }
  | { readonly kind: "tcp"; readonly host: "127.0.0.1"; readonly port: number };

export class ListenAddressError extends TransportError<"listen-address"> {
  override readonly name = "ListenAddressError";
  constructor(message: string, details: { readonly address: string }) {
    super(message, { kind: "listen-address", details });
  }
}

/** Parses `unix:/path`, `/path`, `./path` or `127.0.0.1:port` (port 0 picks a free one). */
export function parseListenAddress(text: string): ListenAddress {
  if (text.startsWith("unix:")) return unixPath(text.slice("unix:".length));
  if (text.startsWith("/") || text.startsWith("./") || text.startsWith("../")) return unixPath(text);
  const match = /^127\.0\.0\.1:(\d{1,5})$/.exec(text);
  if (match !== null) {
    const port = Number(match[1]);
    if (port > 65535) throw new ListenAddressError(`port out of range in ${text}`, { address: text });
    return { kind: "tcp", host: "127.0.0.1", port };
  }
  throw new ListenAddressError(
    `cannot listen on "${text}": local mode takes a Unix socket path or 127.0.0.1:<port> (vsock is for Nitro only)`,
    { address: text },
  );
}

function unixPath(path: string): ListenAddress {
  if (path.length === 0) throw new ListenAddressError("empty Unix socket path", { address: path });
  return { kind: "unix", path };
}

export function formatListenAddress(address: ListenAddress): string {
  return address.kind === "unix" ? `unix:${address.path}` : `${address.host}:${address.port}`;
}
