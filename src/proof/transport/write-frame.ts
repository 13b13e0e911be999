/**
 * Writing one frame of the host-enclave protocol on a stream socket, the same way at both ends: in chunks of at
 * most the protocol's write size (spec/protocol), waiting for the socket to drain whenever its buffer is full.
 */
import type { Socket } from "node:net";
import { frameWriteChunks } from "../../../generated/protocol/index.js";

/** Writes every chunk, waiting for 'drain' whenever the socket's buffer is full; stops once the socket is gone. */
export async function writeChunks(socket: Socket, chunks: readonly Uint8Array[]): Promise<void> {
  for (const chunk of chunks) {
    if (socket.destroyed) return;
    if (!socket.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          socket.off("drain", done);
          socket.off("close", done);
          resolve();
        };
        socket.on("drain", done);
        socket.on("close", done);
      });
    }
  }
}

/** Writes an encoded frame (length prefix and payload) in the protocol's write chunks. */
export function writeFrame(socket: Socket, frame: Uint8Array): Promise<void> {
  return writeChunks(socket, frameWriteChunks(frame));
}
