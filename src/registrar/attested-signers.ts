/**
 * The registrar's first half: read every enclave's signer key and a fresh attestation through a prover
 * host, and accept a signer only when its document verifies under the registrar's policy and binds that
 * very key to the registrar's own random nonce. The host is not trusted: it only carries the documents.
 */
import type { ProverClient } from "../../generated/rpc/index.js";
import { type AttestationPolicy, teeImageHashOf, verifyAttestation } from "../attestation/index.js";
import { bytesEqual } from "../chain/index.js";
import { signerAddressOf } from "../proof/onchain/index.js";
import { RegistrarError } from "./errors.js";

/** Bytes of the random nonce the registrar sends with every attestation request. */
export const ATTESTATION_NONCE_BYTES = 32;

/** One enclave's signer, established by its attestation. */
export interface AttestedSigner {
  /** Position of the enclave in the host's configured order. */
  readonly index: number;
  readonly publicKey: Uint8Array;
  /** keccak256(public key without 0x04)[12..]: the address the registry and TEEVerifier know. */
  readonly address: Uint8Array;
  /** keccak256(PCR0) of a Nitro document; zero for a local-mode document (no PCR0). */
  readonly imageHash: Uint8Array;
  readonly mode: "nitro" | "local";
  readonly moduleId: string;
  /** The document's timestamp, milliseconds since the Unix epoch. */
  readonly timestamp: bigint;
}

/** The host's answers do not describe the enclaves consistently (counts, keys, documents, nonce). */
export class AttestationMismatchError extends RegistrarError<"attestation-mismatch"> {
  override readonly name = "AttestationMismatchError";
  constructor(message: string) {
    super(message, { kind: "attestation-mismatch" });
  }
}

/** An enclave's attestation document does not verify under the registrar's policy (the cause says why). */
export class AttestationRefusedError extends RegistrarError<"attestation-refused"> {
  override readonly name = "AttestationRefusedError";
  constructor(
    message: string,
    details: { readonly enclave: number },
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "attestation-refused", details, cause: options.cause });
  }
}

export interface ReadAttestedSignersOptions {
  readonly policy: AttestationPolicy;
  /** Source of the nonce (default: the OS's random source). */
  readonly randomBytes?: (length: number) => Uint8Array;
}

/**
 * Fetches the keys and one attestation per enclave (with a fresh nonce) and verifies each document:
 * the policy (root, age, PCR0 rules, local mode), the embedded key equal to the enclave's key at the
 * same position, and the embedded nonce equal to the one just sent. Throws on the first problem: a
 * registrar registers all of a host's signers or none.
 */
export async function readAttestedSigners(
  host: ProverClient,
  options: ReadAttestedSignersOptions,
): Promise<AttestedSigner[]> {
  const random = options.randomBytes ?? ((n: number) => crypto.getRandomValues(new Uint8Array(n)));
  const nonce = random(ATTESTATION_NONCE_BYTES);
  const [keys, documents] = await Promise.all([
    host.enclave_signerPublicKey(),
    host.enclave_signerAttestation(undefined, nonce),
  ]);
  if (keys.length === 0) throw new AttestationMismatchError("the host reports no enclaves");
  if (documents.length !== keys.length)
    throw new AttestationMismatchError(
      `the host returned ${keys.length} key(s) but ${documents.length} attestation document(s)`,
    );
  const signers: AttestedSigner[] = [];
  for (const [index, document] of documents.entries()) {
    const key = keys[index]!;
    const verified = await verifyAttestation(document, options.policy).catch((error: Error) => {
      throw new AttestationRefusedError(
        `enclave ${index}: ${error.message}`,
        { enclave: index },
        { cause: error },
      );
    });
    if (key.length !== 65 || key[0] !== 0x04)
      throw new AttestationMismatchError(
        `enclave ${index}: the host reported a key that is not 65 bytes 0x04…`,
      );
    const embedded = verified.document.publicKey;
    if (embedded === null || !bytesEqual(embedded, key))
      throw new AttestationMismatchError(
        `enclave ${index}: the attestation document does not embed the key the host reported for it`,
      );
    const echoed = verified.document.nonce;
    if (echoed === null || !bytesEqual(echoed, nonce))
      throw new AttestationMismatchError(
        `enclave ${index}: the attestation document does not carry this request's nonce (a replayed document?)`,
      );
    signers.push({
      index,
      publicKey: key,
      address: signerAddressOf(key),
      imageHash: teeImageHashOf(verified.pcr0),
      mode: verified.mode,
      moduleId: verified.document.moduleId,
      timestamp: verified.document.timestamp,
    });
  }
  return signers;
}
