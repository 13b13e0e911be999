/**
 * Verification of AWS Nitro style attestation documents (COSE_Sign1, ES384, a CBOR payload carrying the
 * module id, PCRs, the signing certificate, the CA bundle, public_key, user_data and nonce), the path a
 * registrar takes before binding an enclave signer onchain.
 *
 * Two levels:
 * - `verifyAttestationDocument`: the document is well formed, its certificate chain is internally consistent
 *   (cabundle[0] self-signed, each entry signed by the previous one, the leaf by the last, every certificate
 *   valid at the document's timestamp, issuers are CAs) and the COSE signature verifies with the leaf key.
 *   It trusts no particular root: use it to read a document, never to trust one.
 * - `verifyAttestation`: the above, plus the root pinned by its SHA-256 fingerprint (by default the AWS Nitro
 *   Enclaves Root G1), a freshness limit, and the Nitro rules for PCR0 (48 bytes, not the all-zero value of
 *   a debug-mode enclave). Local-mode development documents (their own per-process root, module id marked
 *   LOCAL, no PCRs) pass only with `allowLocal`.
 */
import { createHash, webcrypto } from "node:crypto";
import { decode, encode } from "cborg";
import { AttestationError, type AttestationErrorOptions } from "./errors.js";
import { loadX509, type X509 } from "./x509.js";

/** SHA-256 of the DER AWS Nitro Enclaves Root G1 certificate (CN=aws.nitro-enclaves, valid 2019–2049). */
export const AWS_NITRO_ROOT_G1_SHA256 = Uint8Array.from(
  Buffer.from("641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b", "hex"),
);
/** Module ids of local-mode (development) enclaves start with this. */
export const LOCAL_MODULE_ID_PREFIX = "LOCAL-DEVELOPMENT-ENCLAVE";
/** Real documents are about 4.5 KiB; anything past this is refused before decoding. */
export const MAX_ATTESTATION_DOCUMENT_BYTES = 64 * 1024;
/** Default freshness limit of `verifyAttestation`. */
export const DEFAULT_MAX_ATTESTATION_AGE_MS = 5 * 60_000;

const ES384_ALGORITHM_ID = -35;
const COSE_SIGN1_TAG = 18;
const P384 = { name: "ECDSA", namedCurve: "P-384" } as const;
const ES384 = { name: "ECDSA", hash: "SHA-384" } as const;
const MAX_CABUNDLE = 8;
const CBOR_OPTIONS = { useMaps: true, strict: true, rejectDuplicateMapKeys: true } as const;

/** The payload of an attestation document. */
export interface AttestationDocument {
  readonly moduleId: string;
  readonly digest: string;
  /** Milliseconds since the Unix epoch. */
  readonly timestamp: bigint;
  readonly pcrs: ReadonlyMap<number, Uint8Array>;
  readonly certificate: Uint8Array;
  readonly cabundle: readonly Uint8Array[];
  readonly publicKey: Uint8Array | null;
  readonly userData: Uint8Array | null;
  readonly nonce: Uint8Array | null;
}

/** A document that is not a well-formed, correctly signed COSE_Sign1 attestation. */
export class AttestationFormatError extends AttestationError<"format"> {
  override readonly name = "AttestationFormatError";
  constructor(message: string, options: AttestationErrorOptions = {}) {
    super(message, { kind: "format", ...options });
  }
}

/** The policy rule a document broke (`details.rule` of an AttestationPolicyError). */
export type AttestationPolicyRule =
  "too-old" | "future-timestamp" | "untrusted-root" | "local-not-allowed" | "missing-pcr0" | "debug-mode";

/** A well-formed document that a verification policy does not accept (root, age, PCRs, local mode). */
export class AttestationPolicyError extends AttestationError<"policy"> {
  override readonly name = "AttestationPolicyError";
  constructor(
    message: string,
    readonly rule: AttestationPolicyRule,
  ) {
    super(message, { kind: "policy", details: { rule } });
  }
}

interface DecodedDocument {
  readonly document: AttestationDocument;
  readonly toBeSigned: Uint8Array;
  readonly signature: Uint8Array;
}

function bytesField(map: Map<unknown, unknown>, key: string, nullable: boolean): Uint8Array | null {
  const value = map.get(key);
  if ((value === null || value === undefined) && nullable) return null;
  if (!(value instanceof Uint8Array)) throw new AttestationFormatError(`${key} must be a byte string`);
  return value;
}

function decodeCbor(bytes: Uint8Array, what: string, tags?: ((inner: unknown) => unknown)[]): unknown {
  try {
    return decode(bytes, tags === undefined ? CBOR_OPTIONS : { ...CBOR_OPTIONS, tags });
  } catch (error) {
    throw new AttestationFormatError(`${what} is not valid CBOR: ${(error as Error).message}`);
  }
}

/** COSE Sig_structure of a COSE_Sign1 without external data. */
function sigStructure(protectedHeader: Uint8Array, payload: Uint8Array): Uint8Array {
  return encode(["Signature1", protectedHeader, new Uint8Array(0), payload]);
}

function decodeDocument(bytes: Uint8Array): DecodedDocument {
  if (bytes.length > MAX_ATTESTATION_DOCUMENT_BYTES)
    throw new AttestationFormatError(
      `document is ${bytes.length} bytes, over the ${MAX_ATTESTATION_DOCUMENT_BYTES}-byte limit`,
    );
  const tags: ((inner: unknown) => unknown)[] = [];
  tags[COSE_SIGN1_TAG] = (inner) => inner;
  const outer = decodeCbor(bytes, "document", tags);
  if (!Array.isArray(outer) || outer.length !== 4) throw new AttestationFormatError("not a COSE_Sign1 array");
  const [protectedHeader, unprotectedHeader, payload, signature] = outer as unknown[];
  if (
    !(protectedHeader instanceof Uint8Array) ||
    !(unprotectedHeader instanceof Map) ||
    !(payload instanceof Uint8Array) ||
    !(signature instanceof Uint8Array)
  ) {
    throw new AttestationFormatError("COSE_Sign1 fields have the wrong types");
  }
  const header = decodeCbor(protectedHeader, "protected header");
  if (!(header instanceof Map) || header.get(1) !== ES384_ALGORITHM_ID)
    throw new AttestationFormatError("algorithm is not ES384");
  const map = decodeCbor(payload, "payload");
  if (!(map instanceof Map)) throw new AttestationFormatError("payload is not a map");
  const moduleId = map.get("module_id");
  const digest = map.get("digest");
  const timestamp = map.get("timestamp");
  const pcrs = map.get("pcrs");
  const cabundle = map.get("cabundle");
  if (typeof moduleId !== "string" || moduleId.length === 0)
    throw new AttestationFormatError("module_id must be a non-empty text string");
  if (digest !== "SHA384") throw new AttestationFormatError(`digest must be SHA384, got ${String(digest)}`);
  if ((typeof timestamp !== "number" || !Number.isSafeInteger(timestamp)) && typeof timestamp !== "bigint")
    throw new AttestationFormatError("timestamp must be an unsigned integer");
  if (!(pcrs instanceof Map) || pcrs.size > 32)
    throw new AttestationFormatError("pcrs must be a map of ≤ 32 entries");
  for (const [index, value] of pcrs as Map<unknown, unknown>) {
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= 32)
      throw new AttestationFormatError(`PCR index ${String(index)} is out of range`);
    if (!(value instanceof Uint8Array) || ![32, 48, 64].includes(value.length))
      throw new AttestationFormatError(`PCR${index} must be 32, 48 or 64 bytes`);
  }
  if (
    !Array.isArray(cabundle) ||
    cabundle.length === 0 ||
    cabundle.length > MAX_CABUNDLE ||
    !cabundle.every((c) => c instanceof Uint8Array)
  ) {
    throw new AttestationFormatError(`cabundle must hold 1 to ${MAX_CABUNDLE} certificates`);
  }
  return {
    document: {
      moduleId,
      digest,
      timestamp: BigInt(timestamp),
      pcrs: pcrs as Map<number, Uint8Array>,
      certificate: bytesField(map, "certificate", false) as Uint8Array,
      cabundle: cabundle as Uint8Array[],
      publicKey: bytesField(map, "public_key", true),
      userData: bytesField(map, "user_data", true),
      nonce: bytesField(map, "nonce", true),
    },
    toBeSigned: sigStructure(protectedHeader, payload),
    signature,
  };
}

function certificateOf(x509: typeof X509, der: Uint8Array, what: string): X509.X509Certificate {
  try {
    return new x509.X509Certificate(der);
  } catch (error) {
    throw new AttestationFormatError(`${what} is not an X.509 certificate: ${(error as Error).message}`);
  }
}

async function checkSignedBy(
  x509: typeof X509,
  cert: X509.X509Certificate,
  issuer: X509.X509Certificate,
  what: string,
  at: Date,
): Promise<void> {
  if (at < cert.notBefore || at > cert.notAfter)
    throw new AttestationFormatError(`${what} is not valid at the document's time ${at.toISOString()}`);
  const constraints = issuer.getExtension(x509.BasicConstraintsExtension);
  if (constraints?.ca !== true)
    throw new AttestationFormatError(`the issuer of ${what} is not a certificate authority`);
  const valid = await cert.verify({ publicKey: issuer, signatureOnly: true }).catch(() => false);
  if (!valid) throw new AttestationFormatError(`${what} is not signed by its issuer in the cabundle`);
}

/**
 * Checks the chain and the COSE signature of a decoded document; returns the DER root certificate
 * (cabundle[0]).
 */
async function verifySignatures(decoded: DecodedDocument): Promise<Uint8Array> {
  const { document } = decoded;
  const at = new Date(Number(document.timestamp));
  const x509 = await loadX509();
  const bundle = document.cabundle.map((der, i) => certificateOf(x509, der, `cabundle[${i}]`));
  const leaf = certificateOf(x509, document.certificate, "certificate");
  await checkSignedBy(x509, bundle[0]!, bundle[0]!, "the root certificate (cabundle[0])", at);
  for (let i = 1; i < bundle.length; i++)
    await checkSignedBy(x509, bundle[i]!, bundle[i - 1]!, `cabundle[${i}]`, at);
  await checkSignedBy(x509, leaf, bundle[bundle.length - 1]!, "the signing certificate", at);
  let leafKey: webcrypto.CryptoKey;
  try {
    leafKey = await leaf.publicKey.export(P384, ["verify"]);
  } catch {
    throw new AttestationFormatError("the signing certificate's key is not a P-384 key");
  }
  const valid = await webcrypto.subtle.verify(ES384, leafKey, decoded.signature, decoded.toBeSigned);
  if (!valid) throw new AttestationFormatError("COSE_Sign1 signature does not verify");
  return document.cabundle[0]!;
}

/**
 * Parses a COSE_Sign1 attestation document and verifies its internal consistency: the certificate chain
 * from cabundle[0] to the signing certificate and the ES384 signature. Trusts no particular root.
 */
export async function verifyAttestationDocument(bytes: Uint8Array): Promise<AttestationDocument> {
  const decoded = decodeDocument(bytes);
  await verifySignatures(decoded);
  return decoded.document;
}

export interface AttestationPolicy {
  /** SHA-256 fingerprints of the DER root certificates to trust; default: the AWS Nitro Enclaves Root G1. */
  readonly trustedRootSha256?: readonly Uint8Array[];
  /** Accept local-mode (development) documents, which chain to their own per-process root. */
  readonly allowLocal?: boolean;
  /** Documents older than this (or more than a minute in the future) are refused; default 5 minutes. */
  readonly maxAgeMs?: number;
  /** The reference time; default now. */
  readonly now?: Date;
}

export interface VerifiedAttestation {
  readonly document: AttestationDocument;
  /** `nitro`: chains to a trusted root; `local`: a development document accepted by `allowLocal`. */
  readonly mode: "nitro" | "local";
  /** PCR0 of a nitro document (48 bytes); null for local documents, which have none. */
  readonly pcr0: Uint8Array | null;
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((byte, i) => byte === b[i]);

/** `verifyAttestationDocument` plus a policy: a pinned root, freshness, Nitro PCR0 rules, local mode. */
export async function verifyAttestation(
  bytes: Uint8Array,
  policy: AttestationPolicy = {},
): Promise<VerifiedAttestation> {
  const decoded = decodeDocument(bytes);
  const root = await verifySignatures(decoded);
  const { document } = decoded;
  const now = (policy.now ?? new Date()).getTime();
  const age = now - Number(document.timestamp);
  const maxAge = policy.maxAgeMs ?? DEFAULT_MAX_ATTESTATION_AGE_MS;
  if (age > maxAge)
    throw new AttestationPolicyError(
      `the document is ${Math.round(age / 1000)} s old, over the ${maxAge / 1000} s limit`,
      "too-old",
    );
  if (age < -60_000)
    throw new AttestationPolicyError("the document's timestamp is in the future", "future-timestamp");
  const rootSha256 = new Uint8Array(createHash("sha256").update(root).digest());
  const trusted = (policy.trustedRootSha256 ?? [AWS_NITRO_ROOT_G1_SHA256]).some((pin) =>
    equalBytes(pin, rootSha256),
  );
  if (!trusted) {
    const local = document.moduleId.startsWith(LOCAL_MODULE_ID_PREFIX) && document.pcrs.size === 0;
    if (!local)
      throw new AttestationPolicyError(
        `the root certificate (sha256 ${Buffer.from(rootSha256).toString("hex")}) is not a trusted root`,
        "untrusted-root",
      );
    if (policy.allowLocal !== true)
      throw new AttestationPolicyError(
        `a local-mode development document (${document.moduleId}): accepted only when local documents are allowed`,
        "local-not-allowed",
      );
    return { document, mode: "local", pcr0: null };
  }
  const pcr0 = document.pcrs.get(0);
  if (pcr0 === undefined || pcr0.length !== 48)
    throw new AttestationPolicyError("a Nitro document must carry a 48-byte PCR0", "missing-pcr0");
  if (pcr0.every((byte) => byte === 0))
    throw new AttestationPolicyError("PCR0 is all zeros: the enclave runs in debug mode", "debug-mode");
  return { document, mode: "nitro", pcr0 };
}
