/**
 * CBOR messages of the AWS Nitro Security Module, as the NSM API's Rust types serialize them with serde
 * (externally tagged enums): a unit variant is its name as a text string, a struct variant is a one-entry
 * map from its name to a map of its fields, fields in declaration order, `Option::None` as null, byte
 * buffers as CBOR byte strings. Only the requests the enclave makes are encoded, and only their responses
 * (plus the module's Error) are decoded; anything else is a decode error.
 */
import { decode, encode } from "cborg";
import { NativeError } from "../errors.js";

/** NSM_REQUEST_MAX_SIZE: the driver refuses larger requests (EMSGSIZE). */
export const NSM_REQUEST_MAX_BYTES = 0x1000;
/** NSM_RESPONSE_MAX_SIZE: the largest response the device writes. */
export const NSM_RESPONSE_MAX_BYTES = 0x3000;

export type NsmRequest =
  | { readonly kind: "DescribePCR"; readonly index: number }
  | { readonly kind: "GetRandom" }
  | {
      readonly kind: "Attestation";
      readonly userData: Uint8Array | null;
      readonly nonce: Uint8Array | null;
      readonly publicKey: Uint8Array | null;
    };

/** The module's ErrorCode enum, in declaration order. */
export const NSM_ERROR_CODES = [
  "Success",
  "InvalidArgument",
  "InvalidIndex",
  "InvalidResponse",
  "ReadOnlyIndex",
  "InvalidOperation",
  "BufferTooSmall",
  "InputTooLarge",
  "InternalError",
] as const;
export type NsmErrorCode = (typeof NSM_ERROR_CODES)[number];

export type NsmResponse =
  | { readonly kind: "DescribePCR"; readonly lock: boolean; readonly data: Uint8Array }
  | { readonly kind: "GetRandom"; readonly random: Uint8Array }
  | { readonly kind: "Attestation"; readonly document: Uint8Array }
  | { readonly kind: "Error"; readonly code: NsmErrorCode };

export class NsmRequestEncodeError extends NativeError<"nsm-request-encode"> {
  override readonly name = "NsmRequestEncodeError";
  constructor(message: string, details: { readonly request: NsmRequest["kind"] }) {
    super(message, { kind: "nsm-request-encode", details });
  }
}

export class NsmResponseDecodeError extends NativeError<"nsm-response-decode"> {
  override readonly name = "NsmResponseDecodeError";
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, { kind: "nsm-response-decode", ...options });
  }
}

// Keep fields in declaration order, as serde writes them (cborg sorts map keys unless told not to).
const encodeOptions = { mapSorter: undefined };

export function encodeNsmRequest(request: NsmRequest): Uint8Array {
  let message: unknown;
  switch (request.kind) {
    case "DescribePCR":
      if (!Number.isInteger(request.index) || request.index < 0 || request.index > 0xffff) {
        throw new NsmRequestEncodeError(`PCR index must be a u16, got ${request.index}`, {
          request: request.kind,
        });
      }
      message = { DescribePCR: { index: request.index } };
      break;
    case "GetRandom":
      message = "GetRandom";
      break;
    case "Attestation":
      message = {
        Attestation: {
          user_data: request.userData,
          nonce: request.nonce,
          public_key: request.publicKey,
        },
      };
      break;
  }
  const bytes = encode(message, encodeOptions);
  if (bytes.length > NSM_REQUEST_MAX_BYTES) {
    throw new NsmRequestEncodeError(
      `${request.kind} request is ${bytes.length} bytes, the NSM accepts at most ${NSM_REQUEST_MAX_BYTES}`,
      { request: request.kind },
    );
  }
  return bytes;
}

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

/** The struct variant's field map, which must hold exactly `names`. */
function fieldsOf(variant: string, body: unknown, names: readonly string[]): Fields {
  if (!isFields(body)) throw new NsmResponseDecodeError(`${variant} response: fields are not a map`);
  const keys = Object.keys(body);
  const missing = names.filter((name) => !Object.hasOwn(body, name));
  const extra = keys.filter((key) => !names.includes(key));
  if (missing.length > 0 || extra.length > 0) {
    throw new NsmResponseDecodeError(
      `${variant} response: expected fields ${names.join(", ")}, got ${keys.join(", ") || "none"}`,
    );
  }
  return body;
}

function bytesField(variant: string, fields: Fields, name: string): Uint8Array {
  const value = fields[name];
  if (!(value instanceof Uint8Array))
    throw new NsmResponseDecodeError(`${variant}.${name} is not a byte string`);
  return new Uint8Array(value);
}

export function decodeNsmResponse(bytes: Uint8Array): NsmResponse {
  if (bytes.length === 0) throw new NsmResponseDecodeError("empty NSM response");
  if (bytes.length > NSM_RESPONSE_MAX_BYTES) {
    throw new NsmResponseDecodeError(
      `NSM response is ${bytes.length} bytes, more than ${NSM_RESPONSE_MAX_BYTES}`,
    );
  }
  let message: unknown;
  try {
    message = decode(bytes, { rejectDuplicateMapKeys: true, allowUndefined: false, useMaps: false });
  } catch (error) {
    throw new NsmResponseDecodeError(`NSM response is not valid CBOR: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof message === "string") {
    throw new NsmResponseDecodeError(`unsupported NSM response variant ${JSON.stringify(message)}`);
  }
  if (!isFields(message) || Object.keys(message).length !== 1) {
    throw new NsmResponseDecodeError("NSM response is not a one-entry map (an externally tagged variant)");
  }
  const [variant, body] = Object.entries(message)[0]!;
  switch (variant) {
    case "DescribePCR": {
      const fields = fieldsOf(variant, body, ["lock", "data"]);
      if (typeof fields.lock !== "boolean")
        throw new NsmResponseDecodeError("DescribePCR.lock is not a boolean");
      return { kind: "DescribePCR", lock: fields.lock, data: bytesField(variant, fields, "data") };
    }
    case "GetRandom":
      return {
        kind: "GetRandom",
        random: bytesField(variant, fieldsOf(variant, body, ["random"]), "random"),
      };
    case "Attestation":
      return {
        kind: "Attestation",
        document: bytesField(variant, fieldsOf(variant, body, ["document"]), "document"),
      };
    case "Error": {
      const code = NSM_ERROR_CODES.find((known) => known === body);
      if (code === undefined)
        throw new NsmResponseDecodeError(`unknown NSM error code ${JSON.stringify(body)}`);
      return { kind: "Error", code };
    }
    default:
      throw new NsmResponseDecodeError(`unsupported NSM response variant ${JSON.stringify(variant)}`);
  }
}
