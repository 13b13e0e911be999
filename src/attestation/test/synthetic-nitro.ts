/**
 * Test support: attestation documents shaped like AWS Nitro's (root → intermediate → signing certificate,
 * PCRs 0–2 of 48 bytes, tagged or untagged COSE_Sign1), signed by a throwaway PKI whose root fingerprint a
 * test pins in place of the AWS root. Lets the Nitro path of the verifier and the registrar run here.
 */
import "reflect-metadata";
import { createHash, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { encode } from "cborg";

const P384 = { name: "ECDSA", namedCurve: "P-384", hash: "SHA-384" } as const;
const ES384 = { name: "ECDSA", hash: "SHA-384" } as const;
type KeyPair = webcrypto.CryptoKeyPair;

export interface SyntheticPki {
  readonly rootSha256: Uint8Array;
  readonly root: Uint8Array;
  readonly intermediate: Uint8Array;
  readonly leaf: Uint8Array;
  readonly leafKey: webcrypto.CryptoKey;
}

export interface PkiOptions {
  /** Validity of the signing certificate; default one hour around now. */
  readonly leafNotBefore?: Date;
  readonly leafNotAfter?: Date;
  /** Issue the intermediate without the CA flag (a broken chain). */
  readonly intermediateNotCa?: boolean;
}

const generate = async (): Promise<KeyPair> =>
  (await webcrypto.subtle.generateKey(P384, true, ["sign", "verify"])) as KeyPair;

export async function createSyntheticPki(options: PkiOptions = {}): Promise<SyntheticPki> {
  const now = Date.now();
  const [rootKeys, intermediateKeys, leafKeys] = await Promise.all([generate(), generate(), generate()]);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=synthetic.nitro-enclaves, O=TEST ONLY",
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 86_400_000 * 365),
    signingAlgorithm: P384,
    keys: rootKeys,
    extensions: [new x509.BasicConstraintsExtension(true, 2, true)],
  });
  const intermediate = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: "CN=synthetic.zonal.nitro-enclaves, O=TEST ONLY",
    issuer: root.subject,
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 86_400_000 * 30),
    signingAlgorithm: P384,
    publicKey: intermediateKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [new x509.BasicConstraintsExtension(options.intermediateNotCa !== true, 0, true)],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: "03",
    subject: "CN=i-0123456789abcdef0-enc0123456789abcdef, O=TEST ONLY",
    issuer: intermediate.subject,
    notBefore: options.leafNotBefore ?? new Date(now - 3_600_000),
    notAfter: options.leafNotAfter ?? new Date(now + 3_600_000),
    signingAlgorithm: P384,
    publicKey: leafKeys.publicKey,
    signingKey: intermediateKeys.privateKey,
    extensions: [new x509.BasicConstraintsExtension(false, undefined, true)],
  });
  const rootDer = new Uint8Array(root.rawData);
  return {
    rootSha256: new Uint8Array(createHash("sha256").update(rootDer).digest()),
    root: rootDer,
    intermediate: new Uint8Array(intermediate.rawData),
    leaf: new Uint8Array(leaf.rawData),
    leafKey: leafKeys.privateKey,
  };
}

export interface SyntheticDocumentFields {
  readonly publicKey: Uint8Array | null;
  readonly userData?: Uint8Array | null;
  readonly nonce?: Uint8Array | null;
  /** PCR index → value; default PCR0–2 of 48 bytes (PCR0 = 0x11…). */
  readonly pcrs?: ReadonlyMap<number, Uint8Array>;
  readonly timestamp?: number;
  readonly moduleId?: string;
  /** Wrap in CBOR tag 18 (COSE_Sign1). */
  readonly tagged?: boolean;
}

export const SYNTHETIC_PCR0 = new Uint8Array(48).fill(0x11);

/** A COSE_Sign1 attestation document signed by the PKI's signing certificate. */
export async function syntheticNitroDocument(
  pki: SyntheticPki,
  fields: SyntheticDocumentFields,
): Promise<Uint8Array> {
  const pcrs =
    fields.pcrs ??
    new Map([
      [0, SYNTHETIC_PCR0],
      [1, new Uint8Array(48).fill(0x22)],
      [2, new Uint8Array(48).fill(0x33)],
    ]);
  const payload = encode(
    new Map<string, unknown>([
      ["module_id", fields.moduleId ?? "i-0123456789abcdef0-enc0123456789abcdef"],
      ["digest", "SHA384"],
      ["timestamp", fields.timestamp ?? Date.now()],
      ["pcrs", pcrs],
      ["certificate", pki.leaf],
      ["cabundle", [pki.root, pki.intermediate]],
      ["public_key", fields.publicKey],
      ["user_data", fields.userData ?? null],
      ["nonce", fields.nonce ?? null],
    ]),
  );
  const protectedHeader = encode(new Map([[1, -35]]));
  const signature = new Uint8Array(
    await webcrypto.subtle.sign(
      ES384,
      pki.leafKey,
      encode(["Signature1", protectedHeader, new Uint8Array(0), payload]),
    ),
  );
  const sign1 = encode([protectedHeader, new Map(), payload, signature]);
  if (fields.tagged !== true) return sign1;
  // CBOR head of tag 18: major type 6, value 18.
  return Buffer.concat([Uint8Array.of(0xc0 | 18), sign1]);
}
