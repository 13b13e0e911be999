/**
 * Heavy reads that run where eth_call runs (a call worker, or the event loop with `--call-workers 0`),
 * each answered as the JSON text of its JSON-RPC `result`: the same bytes the server would write for the
 * typed result, so the main thread forwards the text without decoding or re-encoding it.
 */
import { eth_getProof } from "../../../generated/rpc/index.js";
import type { HashSource } from "../state/sources.js";
import { StateView } from "../state/state-view.js";

/** eth_getProof's result at `stateRoot` (read from `source`), serialized by the method's generated codec. */
export function proofJson(
  source: HashSource,
  stateRoot: Uint8Array,
  address: Uint8Array,
  storageKeys: readonly Uint8Array[],
): string {
  const proof = new StateView(source, stateRoot).proof(address, storageKeys);
  return JSON.stringify(eth_getProof.encodeResult(proof));
}
