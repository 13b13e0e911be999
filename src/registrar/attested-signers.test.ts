/**
 * readAttestedSigners against hosts that lie: the host only carries documents, so a document that binds
 * another key, a replayed document, a missing document or an untrusted root must stop the registrar.
 * The honest host path (real enclaves behind the real host) is test/registrar/registrar.test.ts.
 */
import { randomBytes } from "node:crypto";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { EnclaveSigner } from "../../enclave/index.js";
import { LocalAttestor } from "../attestation/index.js";
import { ProverClient } from "../../generated/rpc/index.js";
import {
  createSyntheticPki,
  SYNTHETIC_PCR0,
  syntheticNitroDocument,
} from "../attestation/test/synthetic-nitro.js";
import {
  AttestationMismatchError,
  AttestationRefusedError,
  readAttestedSigners,
} from "./attested-signers.js";

const random = (length: number): Uint8Array => new Uint8Array(randomBytes(length));
const attestor = await LocalAttestor.create(random);
const [alice, bob] = [EnclaveSigner.generate(random), EnclaveSigner.generate(random)];

type Attest = (nonce: Uint8Array | null) => Promise<Uint8Array[]>;

/** A host answering enclave_signerPublicKey with `keys` and enclave_signerAttestation with `attest`. */
function hostServing(keys: readonly Uint8Array[], attest: Attest): ProverClient {
  return new ProverClient(async (method, params) => {
    if (method === "enclave_signerPublicKey") return keys.map((key) => Array.from(key));
    if (method === "enclave_signerAttestation") {
      const nonce = params[1];
      const documents = await attest(Array.isArray(nonce) ? Uint8Array.from(nonce as number[]) : null);
      return documents.map((document) => Array.from(document));
    }
    throw new Error(`unexpected ${method}`);
  });
}

const localDocument = (publicKey: Uint8Array, nonce: Uint8Array | null) =>
  attestor.attest({ publicKey, userData: null, nonce });
const allowLocal = { policy: { allowLocal: true } };

describe("readAttestedSigners", () => {
  it("returns each enclave's signer, in host order, from documents bound to the keys and the nonce", async () => {
    const host = hostServing([alice.publicKey, bob.publicKey], (nonce) =>
      Promise.all([localDocument(alice.publicKey, nonce), localDocument(bob.publicKey, nonce)]),
    );
    const signers = await readAttestedSigners(host, allowLocal);
    expect(signers.map((s) => [s.index, s.address, s.imageHash, s.mode])).toEqual([
      [0, alice.address, new Uint8Array(32), "local"],
      [1, bob.address, new Uint8Array(32), "local"],
    ]);
  });

  it("refuses documents swapped between enclaves (each binds the other's key)", async () => {
    const host = hostServing([alice.publicKey, bob.publicKey], (nonce) =>
      Promise.all([localDocument(bob.publicKey, nonce), localDocument(alice.publicKey, nonce)]),
    );
    await expect(readAttestedSigners(host, allowLocal)).rejects.toThrow(
      new AttestationMismatchError(
        "enclave 0: the attestation document does not embed the key the host reported for it",
      ),
    );
  });

  it("refuses a replayed document (made for another nonce) and one made without a nonce", async () => {
    const old = await localDocument(alice.publicKey, random(32));
    await expect(
      readAttestedSigners(
        hostServing([alice.publicKey], async () => [old]),
        allowLocal,
      ),
    ).rejects.toThrow(/enclave 0: the attestation document does not carry this request's nonce/);
    await expect(
      readAttestedSigners(
        hostServing([alice.publicKey], async () => [await localDocument(alice.publicKey, null)]),
        allowLocal,
      ),
    ).rejects.toThrow(/does not carry this request's nonce/);
  });

  it("refuses a host whose key and document counts differ, or that has no enclave", async () => {
    const host = hostServing([alice.publicKey, bob.publicKey], async (nonce) => [
      await localDocument(alice.publicKey, nonce),
    ]);
    await expect(readAttestedSigners(host, allowLocal)).rejects.toThrow(
      "the host returned 2 key(s) but 1 attestation document(s)",
    );
    await expect(
      readAttestedSigners(
        hostServing([], async () => []),
        allowLocal,
      ),
    ).rejects.toThrow("the host reports no enclaves");
  });

  it("refuses a corrupted document with the verifier's reason", async () => {
    const host = hostServing([alice.publicKey], async (nonce) => {
      const document = await localDocument(alice.publicKey, nonce);
      document[document.length - 1]! ^= 1; // the last byte of the COSE signature
      return [document];
    });
    const refusal = readAttestedSigners(host, allowLocal);
    await expect(refusal).rejects.toThrow(AttestationRefusedError);
    await expect(refusal).rejects.toThrow(/enclave 0: COSE_Sign1 signature does not verify/);
  });

  it("takes a Nitro document under a pinned root, with image hash keccak256(PCR0); refuses it unpinned", async () => {
    const pki = await createSyntheticPki();
    const host = hostServing([alice.publicKey], async (nonce) => [
      await syntheticNitroDocument(pki, { publicKey: alice.publicKey, nonce }),
    ]);
    const [signer] = await readAttestedSigners(host, { policy: { trustedRootSha256: [pki.rootSha256] } });
    expect(signer?.mode).toBe("nitro");
    expect(signer?.imageHash).toEqual(keccak_256(SYNTHETIC_PCR0));
    expect(signer?.address).toEqual(alice.address);
    await expect(readAttestedSigners(host, { policy: {} })).rejects.toThrow(
      /enclave 0: the root certificate \(sha256 [0-9a-f]{64}\) is not a trusted root/,
    );
  });
});
