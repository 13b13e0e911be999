/**
 * Test-only AF_UNIX counterparts of listenVsock/connectVsock: the addon creates the socket (socket, bind
 * or connect, as for AF_VSOCK) and the descriptor goes through the same wrapping (stream-handle.ts).
 * Never used outside tests.
 */
import type { Socket } from "node:net";
import { vsockBinding } from "./binding.js";
import {
  socketFromFd,
  StreamListener,
  type StreamListenerOptions,
  type StreamSocketOptions,
} from "./stream-handle.js";

export function listenUnixThroughAddon(path: string, options: StreamListenerOptions = {}): StreamListener {
  return new StreamListener(vsockBinding().unixListenForTest(path), options);
}

export async function connectUnixThroughAddon(
  path: string,
  options: StreamSocketOptions = {},
): Promise<Socket> {
  return socketFromFd(await vsockBinding().unixConnectForTest(path), options);
}
