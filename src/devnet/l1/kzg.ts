/**
 * viem's KZG interface (what `sendTransaction({ blobs, kzg })` needs to build EIP-4844 sidecars) over the
 * project's process-wide Kzg (src/derive's `loadKzg`: c-kzg, or micro-eth-signer where its addon does not load).
 */
import type { Kzg as ViemKzg } from "viem";
import { loadKzg, viemKzg } from "../../derive/index.js";

export { viemKzg };

/** Loads the process-wide Kzg (once) and adapts it to viem's interface. */
export async function loadViemKzg(): Promise<ViemKzg> {
  return viemKzg(await loadKzg());
}
