/**
 * Real socket peers for host tests, on Unix sockets in a temporary directory: a hostile peer that
 * accepts and never answers, and a slow link that holds each connection for a while before relaying it
 * byte for byte to a real enclave.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SocketPeer {
  readonly path: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Resolves when the n-th connection (1-based) has been accepted. */
  connectionAccepted(n: number): Promise<void>;
  close(): Promise<void>;
}

async function listenOnTempSocket(
  onConnection: (socket: Socket) => void,
): Promise<{ server: Server; path: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "host-peer-"));
  const path = join(dir, "peer.sock");
  const server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return { server, path, dir };
}

function peer(handle: (socket: Socket, sockets: Set<Socket>) => void): Promise<SocketPeer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  return listenOnTempSocket((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    accepted += 1;
    for (const waiter of waiters.filter((w) => w.n <= accepted)) waiter.resolve();
    handle(socket, sockets);
  }).then(({ server, path, dir }) => ({
    path,
    get connections() {
      return accepted;
    },
    connectionAccepted(n: number) {
      if (accepted >= n) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  }));
}

/** Accepts connections, reads whatever arrives, never answers. */
export function startSilentPeer(): Promise<SocketPeer> {
  return peer((socket) => socket.resume());
}

/** Holds each connection for `delayMs`, then relays it in both directions to the Unix socket `target`. */
export function startSlowLink(target: string, delayMs: number): Promise<SocketPeer> {
  return peer((socket, sockets) => {
    socket.pause();
    setTimeout(() => {
      if (socket.destroyed) return;
      const upstream = connect({ path: target });
      sockets.add(upstream);
      upstream.on("close", () => sockets.delete(upstream));
      upstream.on("error", () => socket.destroy());
      socket.pipe(upstream);
      upstream.pipe(socket);
      socket.resume();
    }, delayMs);
  });
}

/**
 * Answers every connection's first bytes with `bytes` (e.g. a broken frame), then closes, or with
 * `keepOpen` leaves the connection open (a frame that starts and never completes).
 */
export function startRawResponder(
  bytes: Uint8Array,
  options: { keepOpen?: boolean } = {},
): Promise<SocketPeer> {
  return peer((socket) => {
    socket.once("data", () => {
      if (options.keepOpen === true) socket.write(bytes);
      else socket.end(bytes);
    });
  });
}
