/**
 * KZG checks for blobs (EIP-4844), on src/chain's process-wide KZG backend (c-kzg when its addon loads, else
 * micro-eth-signer; `OP_KZG_BACKEND` chooses, docs/decisions.md "KZG backend"). Blob field elements are not
 * content-addressed: a provider that cannot vouch for its data (the enclave's preimage oracle, an untrusted beacon
 * API) may hand over any 131072 bytes under a versioned hash. `verifyBlob` recomputes the blob's commitment and
 * requires `0x01 ‖ sha256(commitment)[1:]` to equal the versioned hash the L1 transaction committed to.
 *
 * The backend loads once per process, lazily, on the first `loadKzg()` (c-kzg ~3.5 s of CPU, micro-eth-signer
 * ~0.1 s); every later call shares the same instance. A commitment or blob proof costs ~0.1 s of CPU on c-kzg
 * (~1 s on micro-eth-signer), a blob proof check ~5 ms (~0.5 s).
 *
 * A mismatch throws BlobMismatchError, a DeriveError of kind "critical": the data is not "missing" (the provider did
 * answer) and it must never be read as an invalid blob to skip ("dropped"), because then a provider could steer
 * derivation by swapping a batcher's blob for garbage. Any caller treats it as fail-closed: derivation stops.
 */
import { type EthKzg, type KzgBackendName, bytesEqual, loadEthKzg, toHex as hex } from "../../chain/index.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { CriticalDeriveError } from "../errors.js";
import { BLOB_SIZE } from "./codec.js";

/** Bytes in a KZG commitment or proof (a compressed BLS12-381 G1 point). */
export const KZG_COMMITMENT_SIZE = 48;
export const KZG_PROOF_SIZE = 48;
/** The version byte of a KZG versioned hash (EIP-4844 VERSIONED_HASH_VERSION_KZG). */
export const VERSIONED_HASH_VERSION_KZG = 0x01;

/** A blob whose content does not match the versioned hash (or commitment) it was fetched under. Fail closed. */
export class BlobMismatchError extends CriticalDeriveError {
  constructor(message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super("blob", message, details, options);
  }
}

function checkResult(result: Uint8Array, expectedLength: number): Uint8Array {
  if (result.length !== expectedLength) {
    throw new CriticalDeriveError("blob", "the KZG backend returned a malformed value", {
      size: result.length,
    });
  }
  return result;
}

function checkBlobSize(blob: Uint8Array): void {
  // Checked here, before any hex conversion, so that every backend refuses a wrong size the same way.
  if (blob.length !== BLOB_SIZE) {
    throw new BlobMismatchError(`blob has ${blob.length} bytes, expected ${BLOB_SIZE}`, {
      size: blob.length,
    });
  }
}

/** The EIP-4844 versioned hash of a KZG commitment: `0x01 ‖ sha256(commitment)[1:]`. */
export function versionedHash(commitment: Uint8Array): Uint8Array {
  if (commitment.length !== KZG_COMMITMENT_SIZE) {
    throw new BlobMismatchError(
      `commitment has ${commitment.length} bytes, expected ${KZG_COMMITMENT_SIZE}`,
      {
        size: commitment.length,
      },
    );
  }
  const out = sha256(commitment);
  out[0] = VERSIONED_HASH_VERSION_KZG;
  return out;
}

/** How many verified blobs a Kzg remembers (the newest; a 50-L1-block derivation window holds a few dozen). */
export const VERIFIED_BLOBS_KEPT = 256;

/**
 * KZG operations on blobs; obtain the process-wide instance with `loadKzg()`.
 *
 * `verifyBlob` remembers the blobs it verified (the newest VERIFIED_BLOBS_KEPT): per versioned hash, the sha256 of
 * the blob's 131072 bytes and its commitment. The same bytes under the same versioned hash are then accepted on
 * their sha256 (~0.5 ms) instead of a recomputed commitment (~30 ms on c-kzg, ~1 s on micro-eth-signer): consecutive
 * proof ranges read mostly the same blobs, since derivation starts a channel timeout before each range. Any other
 * bytes are checked in full, so a hit vouches only for bytes that passed the full check (up to a sha256 collision).
 */
export class Kzg {
  readonly #backend: EthKzg;
  /** Verified blobs by versioned hash (hex): the sha256 of the blob and its commitment, oldest first. */
  readonly #verified = new Map<string, { readonly digest: Uint8Array; readonly commitment: Uint8Array }>();

  /** @internal use loadKzg() */
  constructor(backend: EthKzg) {
    this.#backend = backend;
  }

  /** Which KZG backend answers (docs/decisions.md "KZG backend"). */
  get backend(): KzgBackendName {
    return this.#backend.backend;
  }

  /**
   * The KZG commitment (48 bytes) of a blob. A blob that is not 4096 canonical field elements (an element not below
   * the BLS modulus) has no commitment: BlobMismatchError.
   */
  commitment(blob: Uint8Array): Uint8Array {
    checkBlobSize(blob);
    let result: Uint8Array;
    try {
      result = this.#backend.blobToKzgCommitment(blob);
    } catch (e) {
      throw new BlobMismatchError(
        "blob is not a valid KZG polynomial (a field element is not canonical)",
        {},
        {
          cause: e,
        },
      );
    }
    return checkResult(result, KZG_COMMITMENT_SIZE);
  }

  /** The KZG proof (48 bytes) that `blob` opens `commitment` (what a sidecar carries). */
  proof(blob: Uint8Array, commitment: Uint8Array): Uint8Array {
    checkBlobSize(blob);
    let result: Uint8Array;
    try {
      result = this.#backend.computeBlobKzgProof(blob, commitment);
    } catch (e) {
      throw new BlobMismatchError(
        "cannot compute a KZG proof for this blob and commitment",
        {},
        { cause: e },
      );
    }
    return checkResult(result, KZG_PROOF_SIZE);
  }

  /**
   * Checks that `blob` is the blob committed to by `expectedVersionedHash` (32 bytes): recomputes the commitment
   * and its versioned hash. Returns the commitment; throws BlobMismatchError otherwise.
   */
  verifyBlob(blob: Uint8Array, expectedVersionedHash: Uint8Array): Uint8Array {
    if (expectedVersionedHash.length !== 32 || expectedVersionedHash[0] !== VERSIONED_HASH_VERSION_KZG) {
      throw new BlobMismatchError("not a KZG versioned hash (32 bytes, version byte 0x01)", {
        versionedHash: hex(expectedVersionedHash),
      });
    }
    checkBlobSize(blob);
    const id = hex(expectedVersionedHash);
    const digest = sha256(blob);
    const known = this.#verified.get(id);
    if (known !== undefined && bytesEqual(known.digest, digest)) return known.commitment.slice();
    const commitment = this.commitment(blob);
    const actual = versionedHash(commitment);
    if (!bytesEqual(actual, expectedVersionedHash)) {
      throw new BlobMismatchError("blob does not match its versioned hash", {
        expected: hex(expectedVersionedHash),
        actual: hex(actual),
      });
    }
    this.#remember(id, digest, commitment.slice());
    return commitment;
  }

  /**
   * Remembers, as `verifyBlob` does after its full check, that the blob whose sha256 is `digest` has the KZG
   * commitment `commitment`, which that full check computed elsewhere in this process (the enclave's block workers,
   * each with its own Kzg, check a request's blobs before derivation reads them). The versioned hash must be the
   * commitment's (BlobMismatchError). A later `verifyBlob` of the same bytes under it is then a hit, and any other
   * bytes are still checked in full: only a digest of bytes whose commitment was computed may be passed here.
   */
  rememberChecked(versionedHashOfBlob: Uint8Array, commitment: Uint8Array, digest: Uint8Array): void {
    if (digest.length !== 32)
      throw new BlobMismatchError(`a blob digest of ${digest.length} bytes`, { size: digest.length });
    const actual = versionedHash(commitment);
    if (!bytesEqual(actual, versionedHashOfBlob)) {
      throw new BlobMismatchError("the commitment is not the versioned hash's", {
        expected: hex(versionedHashOfBlob),
        actual: hex(actual),
      });
    }
    this.#remember(hex(versionedHashOfBlob), digest.slice(), commitment.slice());
  }

  #remember(id: string, digest: Uint8Array, commitment: Uint8Array): void {
    this.#verified.delete(id);
    this.#verified.set(id, { digest, commitment });
    if (this.#verified.size > VERIFIED_BLOBS_KEPT) this.#verified.delete(this.#verified.keys().next().value!);
  }

  /** Verifies a sidecar's KZG proof that `blob` opens `commitment`; false for any invalid input. */
  verifyProof(blob: Uint8Array, commitment: Uint8Array, proof: Uint8Array): boolean {
    if (
      blob.length !== BLOB_SIZE ||
      commitment.length !== KZG_COMMITMENT_SIZE ||
      proof.length !== KZG_PROOF_SIZE
    ) {
      return false;
    }
    return this.#backend.verifyBlobKzgProof(blob, commitment, proof);
  }
}

/**
 * The process-wide Kzg, over src/chain's KZG backend (shared with the EVM's point-evaluation precompile, so a
 * process that derives and executes loads the trusted setup once).
 */
export function loadKzg(): Promise<Kzg> {
  if (loading === undefined) {
    const attempt = loadEthKzg().then((backend) => new Kzg(backend));
    loading = attempt;
    // A failed load is not kept: the next call tries again.
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
  }
  return loading;
}

let loading: Promise<Kzg> | undefined;

/** Convenience: verifies `blob` against `expectedVersionedHash` with the process-wide instance. */
export async function verifyBlob(blob: Uint8Array, expectedVersionedHash: Uint8Array): Promise<Uint8Array> {
  return (await loadKzg()).verifyBlob(blob, expectedVersionedHash);
}

/** Convenience: the KZG commitment of `blob` with the process-wide instance. */
export async function blobCommitment(blob: Uint8Array): Promise<Uint8Array> {
  return (await loadKzg()).commitment(blob);
}

/** viem's KZG interface (what `sendTransaction({ blobs, kzg })` needs to build EIP-4844 sidecars). */
export interface ViemKzgAdapter {
  blobToKzgCommitment(blob: Uint8Array): Uint8Array;
  computeBlobKzgProof(blob: Uint8Array, commitment: Uint8Array): Uint8Array;
}

/** Adapts a loaded Kzg to viem's interface: commitments and blob proofs, 48 bytes each. */
export function viemKzg(kzg: Kzg): ViemKzgAdapter {
  return {
    blobToKzgCommitment: (blob) => kzg.commitment(blob),
    computeBlobKzgProof: (blob, commitment) => kzg.proof(blob, commitment),
  };
}
