/**
 * Which enclave proves a request (docs/protocol.md "Multi-enclave routing"). With a registry: in configured
 * order, fetch each enclave's signer key (skip the enclave on failure), ask the registry whether the
 * signer is valid, and take the first valid one; none valid is NoValidSignerError (-32001 at the
 * server's edge). Without a registry: the one configured enclave, whose signer key is asked for each proof all the
 * same (a failure fails the proof). Either way the route carries the signer and the image hash the enclave's
 * attestation proves for its key (or, where it has no attestation to give, the image hash it reports), so the
 * host can recover every signature of the result to that signer.
 */
import { bytesToHex } from "viem";
import { teeImageHashOf, verifyAttestationDocument } from "../attestation/index.js";
import { bytesEqual } from "../chain/index.js";
import type { Logger } from "../log/index.js";
import { signerAddressOf } from "../proof/onchain/index.js";
import { type EnclaveClient, EnclaveRefusedError } from "./enclave-client.js";
import { HostError } from "./errors.js";
import type { HealthLatch } from "./health.js";
import type { SignerRegistry } from "./signer-registry.js";

/** A registry is configured and no configured enclave has a signer it reports valid. */
export class NoValidSignerError extends HostError<"no-valid-signer"> {
  override readonly name = "NoValidSignerError";
  constructor(message: string, details: { readonly registry: string; readonly skipped: readonly string[] }) {
    super(message, { kind: "no-valid-signer", details });
  }
}

export interface Route {
  readonly enclave: EnclaveClient;
  /** The enclave's signer address: the one the registry confirmed, or without a registry the one it reported. */
  readonly signer: Uint8Array;
  /**
   * keccak256(PCR0) of the enclave behind that signer, from its attestation document (zero in local mode): the
   * journals' image hash, so the host can recover the signer of each result.
   */
  readonly teeImageHash: Uint8Array;
}

/** keccak256(PCR0) from the enclave's attestation document, which must carry `publicKey`. */
async function attestedImageHash(
  enclave: EnclaveClient,
  publicKey: Uint8Array,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const document = await verifyAttestationDocument(await enclave.signerAttestation(null, null, signal));
  if (document.publicKey === null || !bytesEqual(document.publicKey, publicKey))
    throw new Error("the attestation document does not carry the signer key");
  return teeImageHashOf(document.pcrs.get(0) ?? null);
}

export class EnclaveRouter {
  private pendingConfirmation: Promise<boolean> | undefined;
  /** Per enclave: the image hash its attestation proved for a public key (fetched again when the key changes). */
  private readonly imageHashes = new Map<
    string,
    { readonly publicKey: Uint8Array; readonly imageHash: Uint8Array }
  >();

  constructor(
    private readonly enclaves: readonly EnclaveClient[],
    private readonly registry: SignerRegistry | undefined,
    private readonly health: HealthLatch,
    private readonly logger: Logger,
  ) {
    if (enclaves.length === 0) throw new RangeError("at least one enclave is required");
    if (registry === undefined && enclaves.length > 1)
      throw new RangeError("several enclaves need a signer registry");
  }

  /**
   * The enclave for the next proof; throws NoValidSignerError when the registry validates none. Without a
   * registry the enclave's key and image hash are asked for here, and their failure is the proof's.
   */
  async select(signal?: AbortSignal): Promise<Route> {
    if (this.registry === undefined) {
      const enclave = this.enclaves[0]!;
      const publicKey = await enclave.signerPublicKey(signal);
      const signer = signerAddressOf(publicKey);
      const teeImageHash = await this.imageHashOf(enclave, publicKey, signal);
      this.logger.debug({ enclave: enclave.name, signer: bytesToHex(signer) }, "routing to the enclave");
      return { enclave, signer, teeImageHash };
    }
    const skipped: string[] = [];
    for (const enclave of this.enclaves) {
      signal?.throwIfAborted();
      let signer: Uint8Array;
      let publicKey: Uint8Array;
      try {
        publicKey = await enclave.signerPublicKey(signal);
        signer = signerAddressOf(publicKey);
      } catch (error) {
        signal?.throwIfAborted();
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(
          { enclave: enclave.name, reason },
          "skipping enclave: its signer key is unavailable",
        );
        skipped.push(`${enclave.name}: signer key unavailable`);
        continue;
      }
      const address = bytesToHex(signer);
      let valid: boolean;
      try {
        valid = await this.registry.isValidSigner(signer);
      } catch (error) {
        signal?.throwIfAborted();
        const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
        this.logger.warn(
          { enclave: enclave.name, signer: address, reason },
          "skipping enclave: registry check failed",
        );
        skipped.push(`${enclave.name}: registry check of ${address} failed`);
        continue;
      }
      if (valid) {
        let teeImageHash: Uint8Array;
        try {
          teeImageHash = await this.imageHashOf(enclave, publicKey, signal);
        } catch (error) {
          signal?.throwIfAborted();
          const reason = error instanceof Error ? error.message : String(error);
          this.logger.warn(
            { enclave: enclave.name, signer: address, reason },
            "skipping enclave: its attestation is unavailable or does not match its key",
          );
          skipped.push(`${enclave.name}: attestation of ${address} unavailable`);
          continue;
        }
        this.health.confirmValidSigner();
        this.logger.debug(
          { enclave: enclave.name, signer: address },
          "routing to enclave with a valid signer",
        );
        return { enclave, signer, teeImageHash };
      }
      this.logger.info(
        { enclave: enclave.name, signer: address },
        "skipping enclave: signer not valid in the registry",
      );
      skipped.push(`${enclave.name}: signer ${address} not valid`);
    }
    throw new NoValidSignerError(
      `NoValidSigner: no configured enclave has a signer that ${this.registry.description} reports valid (${skipped.join("; ")})`,
      { registry: this.registry.description, skipped },
    );
  }

  /**
   * The image hash the enclave's attestation proves for `publicKey` (one attestation per key, then cached). With a
   * registry the attestation is required; without one, an enclave that refuses the attestation request is asked
   * for its image hash instead (TeeImageHash), which only it vouches for.
   */
  private async imageHashOf(
    enclave: EnclaveClient,
    publicKey: Uint8Array,
    signal: AbortSignal | undefined,
  ): Promise<Uint8Array> {
    const cached = this.imageHashes.get(enclave.name);
    if (cached !== undefined && bytesEqual(cached.publicKey, publicKey)) return cached.imageHash;
    let imageHash: Uint8Array;
    try {
      imageHash = await attestedImageHash(enclave, publicKey, signal);
    } catch (error) {
      if (this.registry !== undefined || !(error instanceof EnclaveRefusedError)) throw error;
      this.logger.warn(
        { enclave: enclave.name, reason: error.enclaveMessage },
        "the enclave gives no attestation: its reported image hash is used to check its signatures",
      );
      imageHash = await enclave.teeImageHash(signal);
    }
    this.imageHashes.set(enclave.name, { publicKey, imageHash });
    return imageHash;
  }

  /**
   * Tries to confirm some enclave's signer (for the health check while unhealthy); concurrent callers
   * share one attempt. Resolves to the health after the attempt.
   */
  confirmHealth(): Promise<boolean> {
    if (this.health.healthy) return Promise.resolve(true);
    this.pendingConfirmation ??= this.select()
      .then(
        () => true,
        () => this.health.healthy,
      )
      .finally(() => {
        this.pendingConfirmation = undefined;
      });
    return this.pendingConfirmation;
  }
}
