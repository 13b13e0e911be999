/**
 * viem's KZG interface (what `sendTransaction({ blobs, kzg })` needs to build EIP-4844 sidecars) over the
 * project's kzg-wasm instance (src/derive's `loadKzg`: c-kzg-4844 in WebAssembly with the mainnet trusted setup).
 */
import type { Kzg as ViemKzg } from "viem";
import { type Kzg, loadKzg } from "../../derive/index.js";

/** Adapts a loaded Kzg to viem's interface: commitments and blob proofs, 48 bytes each. */
export function viemKzg(kzg: Kzg): ViemKzg {
  return {
    blobToKzgCommitment: (blob) => kzg.commitment(blob),
    computeBlobKzgProof: (blob, commitment) => kzg.proof(blob, commitment),
  };
}

/** Loads the process-wide Kzg (seconds, once) and adapts it to viem's interface. */
export async function loadViemKzg(): Promise<ViemKzg> {
  return viemKzg(await loadKzg());
}
