/** The vsock addon's exports (src/vsock.cc). */
import { loadAddon } from "../load-addon.js";

export interface VsockBinding {
  /** socket(AF_VSOCK) + bind; the descriptor is not listening yet (libuv's uv_listen does that). */
  listen(cid: number, port: number): number;
  /** socket(AF_VSOCK) + connect on the libuv thread pool. */
  connect(cid: number, port: number): Promise<number>;
  /** The same two steps over AF_UNIX, for tests of the descriptor-wrapping path. */
  unixListenForTest(path: string): number;
  unixConnectForTest(path: string): Promise<number>;
  closeFd(fd: number): void;
  readonly VMADDR_CID_ANY: number;
  readonly VMADDR_PORT_ANY: number;
}

let binding: VsockBinding | undefined;

export function vsockBinding(): VsockBinding {
  binding ??= loadAddon<VsockBinding>("vsock");
  return binding;
}
