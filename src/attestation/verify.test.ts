import { randomBytes } from "node:crypto";
import { decode, encode } from "cborg";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LocalAttestor } from "./local-attestation.js";
import { createSyntheticPki, SYNTHETIC_PCR0, syntheticNitroDocument } from "./test/synthetic-nitro.js";
import {
  AttestationFormatError,
  AttestationPolicyError,
  AWS_NITRO_ROOT_G1_SHA256,
  MAX_ATTESTATION_DOCUMENT_BYTES,
  verifyAttestation,
  verifyAttestationDocument,
} from "./verify.js";

const pki = await createSyntheticPki();
const pinned = { trustedRootSha256: [pki.rootSha256] };
const publicKey = Uint8Array.from([4, ...randomBytes(64)]);
const nonce = Uint8Array.from(randomBytes(32));
const nitroDocument = await syntheticNitroDocument(pki, { publicKey, nonce, userData: Uint8Array.of(7) });
const localAttestor = await LocalAttestor.create((n) => new Uint8Array(randomBytes(n)));

describe("verifyAttestation on Nitro-shaped documents (root → intermediate → signing certificate)", () => {
  it("accepts a document chaining to a pinned root and returns its fields and PCR0", async () => {
    const verified = await verifyAttestation(nitroDocument, pinned);
    expect(verified.mode).toBe("nitro");
    expect(verified.pcr0).toEqual(SYNTHETIC_PCR0);
    expect(verified.document.publicKey).toEqual(publicKey);
    expect(verified.document.nonce).toEqual(nonce);
    expect(verified.document.userData).toEqual(Uint8Array.of(7));
    expect(verified.document.cabundle).toHaveLength(2);
  });

  it("accepts the COSE_Sign1 tag (18) as well as the untagged form", async () => {
    const tagged = await syntheticNitroDocument(pki, { publicKey, tagged: true });
    expect(tagged[0]).toBe(0xd2);
    expect((await verifyAttestation(tagged, pinned)).mode).toBe("nitro");
  });

  it("pins the AWS Nitro root by default: another root is refused", async () => {
    expect(Buffer.from(AWS_NITRO_ROOT_G1_SHA256).toString("hex")).toBe(
      "641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b",
    );
    await expect(verifyAttestation(nitroDocument)).rejects.toThrow(
      new RegExp(`sha256 ${Buffer.from(pki.rootSha256).toString("hex")}\\) is not a trusted root`),
    );
    // The structural check alone trusts no root and accepts it.
    expect((await verifyAttestationDocument(nitroDocument)).moduleId).toMatch(/^i-/);
  });

  it("refuses stale and future documents", async () => {
    const now = new Date();
    const old = await syntheticNitroDocument(pki, { publicKey, timestamp: now.getTime() - 6 * 60_000 });
    await expect(verifyAttestation(old, pinned)).rejects.toThrow(/s old, over the 300 s limit/);
    expect((await verifyAttestation(old, { ...pinned, maxAgeMs: 10 * 60_000 })).mode).toBe("nitro");
    const future = await syntheticNitroDocument(pki, { publicKey, timestamp: now.getTime() + 5 * 60_000 });
    await expect(verifyAttestation(future, pinned)).rejects.toThrow(/in the future/);
  });

  it("requires a 48-byte PCR0 that is not the debug-mode zero value", async () => {
    const debug = await syntheticNitroDocument(pki, { publicKey, pcrs: new Map([[0, new Uint8Array(48)]]) });
    await expect(verifyAttestation(debug, pinned)).rejects.toThrow(/debug mode/);
    const none = await syntheticNitroDocument(pki, { publicKey, pcrs: new Map([[1, SYNTHETIC_PCR0]]) });
    await expect(verifyAttestation(none, pinned)).rejects.toThrow(/48-byte PCR0/);
    const short = await syntheticNitroDocument(pki, { publicKey, pcrs: new Map([[0, new Uint8Array(32)]]) });
    await expect(verifyAttestation(short, pinned)).rejects.toThrow(/48-byte PCR0/);
  });

  it("refuses broken chains: a non-CA intermediate, an expired signing certificate, a foreign signer", async () => {
    const notCa = await createSyntheticPki({ intermediateNotCa: true });
    await expect(
      verifyAttestation(await syntheticNitroDocument(notCa, { publicKey }), {
        trustedRootSha256: [notCa.rootSha256],
      }),
    ).rejects.toThrow(/issuer of the signing certificate is not a certificate authority/);

    const expired = await createSyntheticPki({
      leafNotBefore: new Date(Date.now() - 7_200_000),
      leafNotAfter: new Date(Date.now() - 3_600_000),
    });
    await expect(
      verifyAttestation(await syntheticNitroDocument(expired, { publicKey }), {
        trustedRootSha256: [expired.rootSha256],
      }),
    ).rejects.toThrow(/signing certificate is not valid at the document's time/);

    // The signing certificate of one PKI presented with the cabundle of another.
    const other = await createSyntheticPki();
    const spliced = await syntheticNitroDocument(
      { ...pki, leaf: other.leaf, leafKey: other.leafKey },
      { publicKey },
    );
    await expect(verifyAttestation(spliced, pinned)).rejects.toThrow(/not signed by its issuer/);
  });

  it("refuses a payload changed after signing", async () => {
    const [protectedHeader, unprotected, payload, signature] = decode(nitroDocument, { useMaps: true }) as [
      Uint8Array,
      Map<number, unknown>,
      Uint8Array,
      Uint8Array,
    ];
    const fields = decode(payload, { useMaps: true }) as Map<string, unknown>;
    fields.set("public_key", Uint8Array.from([4, ...randomBytes(64)]));
    const forged = encode([protectedHeader, unprotected, encode(fields), signature]);
    await expect(verifyAttestation(forged, pinned)).rejects.toThrow(/COSE_Sign1 signature does not verify/);
  });

  it("refuses every single-byte corruption of a valid document", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: nitroDocument.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        async (at, xor) => {
          const corrupted = nitroDocument.slice();
          corrupted[at]! ^= xor;
          await expect(verifyAttestation(corrupted, pinned)).rejects.toThrow();
        },
      ),
      { numRuns: 150 },
    );
  });

  it("refuses oversized and non-COSE input before trusting anything", async () => {
    await expect(verifyAttestation(new Uint8Array(MAX_ATTESTATION_DOCUMENT_BYTES + 1))).rejects.toThrow(
      /over the 65536-byte limit/,
    );
    await expect(verifyAttestation(Uint8Array.of(1, 2, 3))).rejects.toThrow(AttestationFormatError);
    await expect(verifyAttestation(encode([1, 2, 3, 4]))).rejects.toThrow(/wrong types/);
  });
});

describe("verifyAttestation on local-mode documents", () => {
  const localDocument = () => localAttestor.attest({ publicKey, userData: null, nonce });

  it("refuses them unless local documents are allowed", async () => {
    await expect(verifyAttestation(await localDocument())).rejects.toThrow(AttestationPolicyError);
    await expect(verifyAttestation(await localDocument())).rejects.toThrow(/local-mode development document/);
    const verified = await verifyAttestation(await localDocument(), { allowLocal: true });
    expect(verified.mode).toBe("local");
    expect(verified.pcr0).toBeNull();
    expect(verified.document.nonce).toEqual(nonce);
  });

  it("a document with PCRs under an unknown root is not taken for a local one", async () => {
    await expect(verifyAttestation(nitroDocument, { allowLocal: true })).rejects.toThrow(
      /not a trusted root/,
    );
  });

  it("a refusal is an AttestationError of kind policy naming the rule it broke", async () => {
    await expect(verifyAttestation(await localDocument())).rejects.toMatchObject({
      package: "attestation",
      kind: "policy",
      rule: "local-not-allowed",
      details: { rule: "local-not-allowed" },
    });
    await expect(verifyAttestation(nitroDocument, { allowLocal: true })).rejects.toMatchObject({
      rule: "untrusted-root",
    });
    await expect(
      verifyAttestation(await localDocument(), { allowLocal: true, now: new Date(Date.now() + 3_600_000) }),
    ).rejects.toMatchObject({ rule: "too-old" });
  });
});
