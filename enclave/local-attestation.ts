/**
 * Local-mode attestation documents: the AWS Nitro attestation document structure (a CBOR map with
 * module_id, digest, timestamp, pcrs, certificate, cabundle, public_key, user_data, nonce) inside an
 * untagged COSE_Sign1 signed with ES384, by a per-process development P-384 key whose certificate chains
 * to a per-process self-signed root. Everything is marked LOCAL: no verifier that pins the AWS Nitro root
 * accepts it, but a registrar's parsing and signature path can be exercised end to end.
 */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { decode, encode } from "cborg";

export const LOCAL_MODULE_ID_PREFIX = "LOCAL-DEVELOPMENT-ENCLAVE";
const ES384_ALGORITHM_ID = -35; // COSE alg: ECDSA with SHA-384
const P384 = { name: "ECDSA", namedCurve: "P-384", hash: "SHA-384" } as const;
const SIGNATURE = { name: "ECDSA", hash: "SHA-384" } as const;

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** The payload of an attestation document. */
export interface AttestationDocument {
  readonly moduleId: string;
  readonly digest: string;
  readonly timestamp: bigint;
  readonly pcrs: ReadonlyMap<number, Uint8Array>;
  readonly certificate: Uint8Array;
  readonly cabundle: readonly Uint8Array[];
  readonly publicKey: Uint8Array | null;
  readonly userData: Uint8Array | null;
  readonly nonce: Uint8Array | null;
}

/** A document that is not a well-formed, correctly signed COSE_Sign1 attestation. */
export class AttestationFormatError extends Error {
  override readonly name = "AttestationFormatError";
}

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

function bytesField(map: Map<unknown, unknown>, key: string, nullable: boolean): Uint8Array | null {
  const value = map.get(key);
  if (value === null && nullable) return null;
  if (!(value instanceof Uint8Array)) throw new AttestationFormatError(`${key} must be a byte string`);
  return value;
}

/**
 * Parses a COSE_Sign1 attestation document and verifies its ES384 signature against the leaf
 * certificate, and the leaf against the first cabundle entry. Returns the payload. (Pinning the root is
 * the caller's policy: a local document chains to its own per-process root.)
 */
export async function verifyAttestationDocument(document: Uint8Array): Promise<AttestationDocument> {
  let outer: unknown;
  try {
    outer = decode(document, { useMaps: true, strict: true, rejectDuplicateMapKeys: true });
  } catch (error) {
    throw new AttestationFormatError(`not CBOR: ${(error as Error).message}`);
  }
  if (!Array.isArray(outer) || outer.length !== 4) throw new AttestationFormatError("not a COSE_Sign1 array");
  const [protectedHeader, , payload, signature] = outer as unknown[];
  if (
    !(protectedHeader instanceof Uint8Array) ||
    !(payload instanceof Uint8Array) ||
    !(signature instanceof Uint8Array)
  ) {
    throw new AttestationFormatError("COSE_Sign1 fields have the wrong types");
  }
  const header = decode(protectedHeader, { useMaps: true }) as Map<number, unknown>;
  if (header.get(1) !== ES384_ALGORITHM_ID) throw new AttestationFormatError("algorithm is not ES384");
  const map = decode(payload, { useMaps: true, strict: true, rejectDuplicateMapKeys: true }) as Map<
    unknown,
    unknown
  >;
  const certificate = bytesField(map, "certificate", false) as Uint8Array;
  const cabundle = map.get("cabundle");
  if (!Array.isArray(cabundle) || cabundle.length === 0 || !cabundle.every((c) => c instanceof Uint8Array)) {
    throw new AttestationFormatError("cabundle must be a non-empty array of certificates");
  }
  const leaf = new x509.X509Certificate(certificate);
  const root = new x509.X509Certificate(cabundle[0] as Uint8Array);
  if (!(await leaf.verify({ publicKey: root, signatureOnly: true }))) {
    throw new AttestationFormatError("certificate is not signed by the cabundle root");
  }
  const leafKey = await leaf.publicKey.export(P384, ["verify"]);
  const valid = await webcrypto.subtle.verify(
    SIGNATURE,
    leafKey,
    signature,
    sigStructure(protectedHeader, payload),
  );
  if (!valid) throw new AttestationFormatError("COSE_Sign1 signature does not verify");
  const pcrs = map.get("pcrs");
  const timestamp = map.get("timestamp");
  const moduleId = map.get("module_id");
  const digest = map.get("digest");
  if (!(pcrs instanceof Map)) throw new AttestationFormatError("pcrs must be a map");
  if (typeof timestamp !== "number" && typeof timestamp !== "bigint")
    throw new AttestationFormatError("bad timestamp");
  if (typeof moduleId !== "string" || typeof digest !== "string")
    throw new AttestationFormatError("bad module_id/digest");
  return {
    moduleId,
    digest,
    timestamp: BigInt(timestamp),
    pcrs: pcrs as Map<number, Uint8Array>,
    certificate,
    cabundle: cabundle as Uint8Array[],
    publicKey: bytesField(map, "public_key", true),
    userData: bytesField(map, "user_data", true),
    nonce: bytesField(map, "nonce", true),
  };
}
