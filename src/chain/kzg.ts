/**
 * The process-wide kzg-wasm instance (KZG commitments and proofs over the Ethereum trusted setup). Loading
 * compiles WebAssembly and reads the setup, which takes seconds, so it happens once per process, on first use:
 * the EVM's point-evaluation precompile and derivation's blob verification share it. A failed load is not
 * kept; the next call tries again.
 */

/** The methods of kzg-wasm's instance the project uses (hex strings in, hex strings out). */
export interface KzgWasm {
  blobToKZGCommitment(blob: string): string;
  computeBlobKZGProof(blob: string, commitment: string): string;
  verifyBlobKZGProof(blob: string, commitment: string, proof: string): boolean;
  verifyKZGProof(commitment: string, z: string, y: string, proof: string): boolean;
}

let loading: Promise<KzgWasm> | undefined;

/** The process-wide kzg-wasm instance, loaded on the first call. */
export function loadKzgWasm(): Promise<KzgWasm> {
  if (loading === undefined) {
    const attempt = import("kzg-wasm").then(async (m) => (await m.loadKZG()) as unknown as KzgWasm);
    loading = attempt;
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
  }
  return loading;
}
