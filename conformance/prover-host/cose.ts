/**
 * Just enough of COSE_Sign1 (RFC 9052) and the AWS Nitro attestation document to check what a host
 * returns: a CBOR array [protected, unprotected, payload, signature] (optionally tag 18) whose payload
 * is a CBOR map carrying public_key, user_data and nonce. Signature and certificate chain checks are the
 * registrar's job (they depend on the root a deployment trusts), not the host's.
 */
import { decode } from "cborg";

export interface AttestationFields {
  readonly moduleId: unknown;
  readonly publicKey: Uint8Array | null;
  readonly userData: Uint8Array | null;
  readonly nonce: Uint8Array | null;
}

const COSE_SIGN1_TAG = 18;

function bytesOrNull(value: unknown, what: string): Uint8Array | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return value;
  throw new Error(`attestation ${what} is neither bytes nor null`);
}

export function readAttestation(document: Uint8Array): AttestationFields {
  const tags: ((inner: unknown) => unknown)[] = [];
  tags[COSE_SIGN1_TAG] = (inner) => inner;
  const outer = decode(document, { tags, useMaps: true }) as unknown;
  if (!Array.isArray(outer) || outer.length !== 4) throw new Error("not a COSE_Sign1 array of four items");
  const [protectedHeader, , payload, signature] = outer as unknown[];
  if (!(protectedHeader instanceof Uint8Array))
    throw new Error("COSE_Sign1 protected header is not a byte string");
  if (!(payload instanceof Uint8Array)) throw new Error("COSE_Sign1 payload is not a byte string");
  if (!(signature instanceof Uint8Array) || signature.length === 0)
    throw new Error("COSE_Sign1 has no signature");
  const fields = decode(payload, { useMaps: true }) as unknown;
  if (!(fields instanceof Map)) throw new Error("attestation payload is not a CBOR map");
  return {
    moduleId: fields.get("module_id"),
    publicKey: bytesOrNull(fields.get("public_key"), "public_key"),
    userData: bytesOrNull(fields.get("user_data"), "user_data"),
    nonce: bytesOrNull(fields.get("nonce"), "nonce"),
  };
}
