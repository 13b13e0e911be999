/**
 * Local-mode attestation documents: the AWS Nitro attestation document structure (a CBOR map with
 * module_id, digest, timestamp, pcrs, certificate, cabundle, public_key, user_data, nonce) inside an
 * untagged COSE_Sign1 signed with ES384, by a per-process development P-384 key whose certificate chains
 * to a per-process self-signed root. Everything is marked LOCAL: no verifier that pins the AWS Nitro root
 * accepts it, but a registrar's parsing and signature path can be exercised end to end.
 */
import { webcrypto } from "node:crypto";
import { encode } from "cborg";
import { LOCAL_MODULE_ID_PREFIX } from "./verify.js";
import { loadX509 } from "./x509.js";
// Readers verify these documents with verify.ts.

const ES384_ALGORITHM_ID = -35; // COSE alg: ECDSA with SHA-384
const P384 = { name: "ECDSA", namedCurve: "P-384", hash: "SHA-384" } as const;
const SIGNATURE = { name: "ECDSA", hash: "SHA-384" } as const;

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

function sigStructure(protectedHeader: Uint8Array, payload: Uint8Array): Uint8Array {
  return encode(["Signature1", protectedHeader, new Uint8Array(0), payload]);
}

/** The per-process development signing identity: a P-384 key and its two-certificate chain. */
export class LocalAttestor {
  private constructor(
    private readonly signingKey: CryptoKey,
    readonly moduleId: string,
    readonly certificate: Uint8Array,
    readonly rootCertificate: Uint8Array,
  ) {}

  static async create(random: (length: number) => Uint8Array): Promise<LocalAttestor> {
    const x509 = await loadX509();
    const id = Buffer.from(random(8)).toString("hex");
    const moduleId = `${LOCAL_MODULE_ID_PREFIX}-${id}`;
    const notBefore = new Date(Date.now() - 60_000);
    const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
    const rootKeys = (await webcrypto.subtle.generateKey(P384, true, ["sign", "verify"])) as CryptoKeyPair;
    const root = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: `01${id}`,
      name: `CN=LOCAL DEVELOPMENT ENCLAVE ROOT (NOT AWS NITRO) ${id}, O=LOCAL DEVELOPMENT ONLY`,
      notBefore,
      notAfter,
      signingAlgorithm: P384,
      keys: rootKeys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 1, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      ],
    });
    const leafKeys = (await webcrypto.subtle.generateKey(P384, true, ["sign", "verify"])) as CryptoKeyPair;
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: `02${id}`,
      subject: `CN=${moduleId}, O=LOCAL DEVELOPMENT ONLY`,
      issuer: root.subject,
      notBefore,
      notAfter,
      signingAlgorithm: P384,
      publicKey: leafKeys.publicKey,
      signingKey: rootKeys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ],
    });
    return new LocalAttestor(
      leafKeys.privateKey,
      moduleId,
      new Uint8Array(leaf.rawData),
      new Uint8Array(root.rawData),
    );
  }

  /** A COSE_Sign1 document over the given fields (pcrs empty: local mode has no PCRs). */
  async attest(fields: {
    publicKey: Uint8Array;
    userData: Uint8Array | null;
    nonce: Uint8Array | null;
  }): Promise<Uint8Array> {
    const payload = encode(
      new Map<string, unknown>([
        ["module_id", this.moduleId],
        ["digest", "SHA384"],
        ["timestamp", Date.now()],
        ["pcrs", new Map<number, Uint8Array>()],
        ["certificate", this.certificate],
        ["cabundle", [this.rootCertificate]],
        ["public_key", fields.publicKey],
        ["user_data", fields.userData],
        ["nonce", fields.nonce],
      ]),
    );
    const protectedHeader = encode(new Map([[1, ES384_ALGORITHM_ID]]));
    const signature = new Uint8Array(
      await webcrypto.subtle.sign(SIGNATURE, this.signingKey, sigStructure(protectedHeader, payload)),
    );
    return encode([protectedHeader, new Map(), payload, signature]);
  }
}
