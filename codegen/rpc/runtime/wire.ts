/**
 * JSON-RPC wire codecs: each Codec validates and decodes one JSON value into its internal form
 * (bigint, Uint8Array, plain objects) and encodes it back. Generated codecs are built from these.
 * Hex only lives here, at the edge: quantities without leading zeros, fixed-length hashes and
 * addresses, even-length byte strings.
 */
import { RpcRuntimeError } from "./rpc-errors.js";

/** A JSON value did not have the expected shape. `path` names where, e.g. `block` or `filter.topics[1]`. */
export class WireError extends RpcRuntimeError<"wire-mismatch"> {
  readonly path: string;
  readonly expected: string;
  /** True when the value was absent rather than malformed. */
  readonly missing: boolean;
  /** True when the value had the right form but is too large (a union reports this over its own message). */
  readonly outOfRange: boolean;

  constructor(path: string, expected: string, got: unknown, outOfRange?: { max: string }) {
    super(
      outOfRange === undefined
        ? `${path}: expected ${expected}, got ${describeValue(got)}`
        : `${path}: ${describeValue(got)} is beyond ${outOfRange.max}, the largest value allowed here`,
      {
        kind: "wire-mismatch",
        details: { path, expected, missing: got === undefined },
      },
    );
    this.path = path;
    this.expected = expected;
    this.missing = got === undefined;
    this.outOfRange = outOfRange !== undefined;
  }
}

const MAX_DESCRIBED = 80;

/** A short rendering of an offending value for error messages (never serializes a large value whole). */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  // JSON.parse already rounded such a number: show the exact value it holds, not JavaScript's rounded text.
  if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value))
    return `${BigInt(value)} (as read: JSON numbers beyond 2^53 are rounded)`;
  if (Array.isArray(value) && value.length > 16) return `an array of ${value.length} items`;
  if (typeof value === "string" && value.length > MAX_DESCRIBED) {
    return `${JSON.stringify(value.slice(0, MAX_DESCRIBED - 5))}... (${value.length} characters)`;
  }
  if (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length > 16
  ) {
    return `an object with ${Object.keys(value).length} keys`;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_DESCRIBED ? `${text.slice(0, MAX_DESCRIBED - 3)}...` : text;
}

/** Validates, decodes and encodes one wire type. `Value` is the internal form, `Json` the wire form. */
export interface Codec<Value, Json> {
  /** What a valid value looks like, for error messages ("a hex quantity"). */
  readonly expected: string;
  /** Validates a JSON value and decodes it; throws WireError naming `path` on mismatch. */
  decode(raw: unknown, path: string): Value;
  /** Encodes an internal value into its JSON form. */
  encode(value: Value): Json;
  /**
   * Whether an internal value has this codec's shape, to pick the union variant that encodes it.
   * Scalars check fully; objects and arrays check shallowly (required fields present, literal
   * fields equal, first array item) so that encoding stays linear in the size of the value.
   */
  is(value: unknown): value is Value;
  /** Set on literal codecs: the one value they accept. */
  readonly literal?: string | number | boolean;
  /** The JSON type every value of this codec has, when there is one (lets a union skip variants). */
  readonly jsonType?: JsonType;
}

export type JsonType = "string" | "number" | "boolean" | "null" | "array" | "object";

export function jsonTypeOf(raw: unknown): JsonType | undefined {
  if (raw === null) return "null";
  if (Array.isArray(raw)) return "array";
  const type = typeof raw;
  return type === "string" || type === "number" || type === "boolean" || type === "object" ? type : undefined;
}

// Codecs of arbitrary shapes are composed at runtime; each generated codec is typed precisely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCodec = Codec<any, any>;

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

function hexBody(raw: unknown, path: string, expected: string): string {
  if (typeof raw !== "string" || !raw.startsWith("0x") || !HEX_DIGITS.test(raw.slice(2))) {
    throw new WireError(path, expected, raw);
  }
  return raw.slice(2);
}

/** Hex quantity without leading zeros (`0x0`, `0x1f`), at most `bits` wide, as a bigint. */
export function uint(
  bits: number,
  expected = `a hex quantity of at most ${bits} bits`,
): Codec<bigint, string> {
  const max = (1n << BigInt(bits)) - 1n;
  const maxDigits = Math.ceil(bits / 4);
  return {
    expected,
    jsonType: "string",
    decode(raw, path) {
      const body = hexBody(raw, path, expected);
      // Up to twice the width, a too-large value is reported as such; anything longer as malformed.
      if (body.length === 0 || body.length > 2 * maxDigits || (body.length > 1 && body[0] === "0")) {
        throw new WireError(path, expected, raw);
      }
      if (body.length > maxDigits || BigInt(`0x${body}`) > max)
        throw new WireError(path, expected, raw, { max: `2^${bits} - 1` });
      return BigInt(`0x${body}`);
    },
    encode(value) {
      if (value < 0n || value > max) throw new RangeError(`${value} does not fit in ${bits} bits`);
      return `0x${value.toString(16)}`;
    },
    is: (value): value is bigint => typeof value === "bigint" && value >= 0n && value <= max,
  };
}

/** Hex quantity without leading zeros, at most `bits` (<= 53) wide, as a JS number. */
export function uintNumber(
  bits: number,
  expected = `a hex quantity of at most ${bits} bits`,
): Codec<number, string> {
  if (bits > 53) throw new RangeError("uintNumber holds at most 53 bits");
  const wide = uint(bits, expected);
  const max = 2 ** bits - 1;
  return {
    expected,
    jsonType: "string",
    decode: (raw, path) => Number(wide.decode(raw, path)),
    encode(value) {
      if (!Number.isInteger(value) || value < 0 || value > max)
        throw new RangeError(`${value} does not fit in ${bits} bits`);
      return `0x${value.toString(16)}`;
    },
    is: (value): value is number =>
      Number.isInteger(value) && (value as number) >= 0 && (value as number) <= max,
  };
}

/** Bytes of an even-length string of hex digits (already checked by the caller). */
function bytesFromHexBody(body: string): Uint8Array {
  return new Uint8Array(Buffer.from(body, "hex"));
}

export function bytesToHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`;
}

/** `0x` + an even number of hex digits as bytes; with `length`, exactly that many bytes. */
export function hexBytes(
  length?: number,
  expected = length === undefined ? "hex data" : `${length} bytes of hex data`,
): Codec<Uint8Array, string> {
  return {
    expected,
    jsonType: "string",
    decode(raw, path) {
      const body = hexBody(raw, path, expected);
      if (body.length % 2 !== 0 || (length !== undefined && body.length !== 2 * length)) {
        throw new WireError(path, expected, raw);
      }
      return bytesFromHexBody(body);
    },
    encode(value) {
      if (length !== undefined && value.length !== length)
        throw new RangeError(`expected ${length} bytes, got ${value.length}`);
      return bytesToHex(value);
    },
    is: (value): value is Uint8Array =>
      value instanceof Uint8Array && (length === undefined || value.length === length),
  };
}

/** A storage slot: `0x` + at most 64 hex digits (leading zeros and odd length allowed), as 32 bytes. */
export function storageKey(
  expected = "a storage slot (0x followed by at most 64 hex digits)",
): Codec<Uint8Array, string> {
  const word = hexBytes(32, expected);
  return {
    expected,
    jsonType: "string",
    decode(raw, path) {
      const body = hexBody(raw, path, expected);
      if (body.length > 64) throw new WireError(path, expected, raw);
      return bytesFromHexBody(body.padStart(64, "0"));
    },
    encode: (value) => word.encode(value),
    is: word.is,
  };
}

/** A non-negative JSON integer (at most 2^53 - 1, and `bits` wide), as a bigint. */
export function jsonUint(bits: number, expected = "a non-negative JSON integer"): Codec<bigint, number> {
  const max = (1n << BigInt(bits)) - 1n;
  return {
    expected,
    jsonType: "number",
    decode(raw, path) {
      if (typeof raw === "number" && Number.isInteger(raw) && raw >= 0 && BigInt(raw) > max)
        throw new WireError(path, expected, raw, { max: `2^${bits} - 1` });
      if (typeof raw !== "number" || !Number.isSafeInteger(raw) || raw < 0) {
        throw new WireError(path, expected, raw);
      }
      return BigInt(raw);
    },
    encode(value) {
      if (value < 0n || value > max || value > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new RangeError(`${value} cannot be sent as an exact JSON integer`);
      }
      return Number(value);
    },
    is: (value): value is bigint => typeof value === "bigint" && value >= 0n && value <= max,
  };
}

/** Bytes as a JSON array of numbers 0-255 (serde's encoding), with a fixed or maximum length. */
export function byteArray(
  limits: { length?: number; maxLength?: number } = {},
  expected = "an array of byte values (0-255)",
): Codec<Uint8Array, number[]> {
  const { length, maxLength } = limits;
  const fits = (n: number): boolean =>
    (length === undefined || n === length) && (maxLength === undefined || n <= maxLength);
  return {
    expected,
    jsonType: "array",
    decode(raw, path) {
      // Check the length before touching the elements: callers may send huge arrays.
      if (!Array.isArray(raw) || !fits(raw.length)) throw new WireError(path, expected, raw);
      const out = new Uint8Array(raw.length);
      for (let i = 0; i < raw.length; i++) {
        const byte: unknown = raw[i];
        if (typeof byte !== "number" || !Number.isInteger(byte) || byte < 0 || byte > 255) {
          throw new WireError(`${path}[${i}]`, "a byte value (0-255)", byte);
        }
        out[i] = byte;
      }
      return out;
    },
    encode(value) {
      if (!fits(value.length)) throw new RangeError(`byte array of ${value.length} bytes is out of bounds`);
      return Array.from(value);
    },
    is: (value): value is Uint8Array => value instanceof Uint8Array && fits(value.length),
  };
}

/** A decimal integer string without leading zeros, as a bigint. */
export function decimal(expected = "a decimal integer string"): Codec<bigint, string> {
  return {
    expected,
    jsonType: "string",
    decode(raw, path) {
      if (typeof raw !== "string" || !/^(0|[1-9][0-9]{0,77})$/.test(raw))
        throw new WireError(path, expected, raw);
      return BigInt(raw);
    },
    encode(value) {
      if (value < 0n) throw new RangeError(`${value} is negative`);
      return value.toString(10);
    },
    is: (value): value is bigint => typeof value === "bigint" && value >= 0n,
  };
}

export const string: Codec<string, string> = {
  expected: "a string",
  jsonType: "string",
  decode(raw, path) {
    if (typeof raw !== "string") throw new WireError(path, "a string", raw);
    return raw;
  },
  encode: (value) => value,
  is: (value): value is string => typeof value === "string",
};

export const boolean: Codec<boolean, boolean> = {
  expected: "a boolean",
  jsonType: "boolean",
  decode(raw, path) {
    if (typeof raw !== "boolean") throw new WireError(path, "a boolean", raw);
    return raw;
  },
  encode: (value) => value,
  is: (value): value is boolean => typeof value === "boolean",
};

export const number: Codec<number, number> = {
  expected: "a number",
  jsonType: "number",
  decode(raw, path) {
    if (typeof raw !== "number" || !Number.isFinite(raw)) throw new WireError(path, "a number", raw);
    return raw;
  },
  encode: (value) => value,
  is: (value): value is number => typeof value === "number" && Number.isFinite(value),
};

/** A JSON number with inclusive bounds, optionally an integer (TypeSpec's int scalars, @minValue, @maxValue). */
export function boundedNumber(bounds: {
  integer?: boolean;
  minimum?: number;
  maximum?: number;
}): Codec<number, number> {
  const { integer = false, minimum, maximum } = bounds;
  const kind = integer ? "an integer" : "a number";
  const expected =
    minimum !== undefined && maximum !== undefined
      ? `${kind} between ${minimum} and ${maximum}`
      : minimum !== undefined
        ? `${kind} of at least ${minimum}`
        : maximum !== undefined
          ? `${kind} of at most ${maximum}`
          : kind;
  const fits = (value: unknown): value is number =>
    typeof value === "number" &&
    Number.isFinite(value) &&
    (!integer || Number.isInteger(value)) &&
    (minimum === undefined || value >= minimum) &&
    (maximum === undefined || value <= maximum);
  return {
    expected,
    jsonType: "number",
    decode(raw, path) {
      if (!fits(raw)) throw new WireError(path, expected, raw);
      return raw;
    },
    encode(value) {
      if (!fits(value)) throw new RangeError(`${value} is not ${expected}`);
      return value;
    },
    is: fits,
  };
}

export const nullValue: Codec<null, null> = {
  expected: "null",
  jsonType: "null",
  decode(raw, path) {
    if (raw !== null) throw new WireError(path, "null", raw);
    return null;
  },
  encode: () => null,
  is: (value): value is null => value === null,
};

/** Exactly one JSON literal (a string, number or boolean). */
export function literal<const L extends string | number | boolean>(value: L): Codec<L, L> {
  const expected = JSON.stringify(value);
  return {
    expected,
    decode(raw, path) {
      if (raw !== value) throw new WireError(path, expected, raw);
      return value;
    },
    encode: () => value,
    is: (candidate): candidate is L => candidate === value,
    literal: value,
    jsonType: typeof value as JsonType,
  };
}

/** A JSON array whose every element matches `items`. */
export function array<V, J>(
  items: Codec<V, J>,
  expected = `an array (each item ${items.expected})`,
): Codec<V[], J[]> {
  return {
    expected,
    jsonType: "array",
    decode(raw, path) {
      if (!Array.isArray(raw)) throw new WireError(path, expected, raw);
      return raw.map((item, i) => items.decode(item, `${path}[${i}]`));
    },
    encode: (value) => value.map((item) => items.encode(item)),
    is: (value): value is V[] => Array.isArray(value) && (value.length === 0 || items.is(value[0])),
  };
}

/**
 * A JSON object with any keys, every value of one codec (TypeSpec `Record<T>`). Decoded objects have
 * no prototype, so a hostile key such as `__proto__` is only a key.
 */
export function record<V, J>(
  values: Codec<V, J>,
  expected = `an object (each value ${values.expected})`,
): Codec<Record<string, V>, Record<string, J>> {
  const isObject = (raw: unknown): raw is Record<string, unknown> =>
    typeof raw === "object" && raw !== null && !Array.isArray(raw) && !(raw instanceof Uint8Array);
  return {
    expected,
    jsonType: "object",
    decode(raw, path) {
      if (!isObject(raw)) throw new WireError(path, expected, raw);
      const out = Object.create(null) as Record<string, V>;
      for (const key of Object.keys(raw)) out[key] = values.decode(raw[key], `${path}.${key}`);
      return out;
    },
    encode(value) {
      const out = Object.create(null) as Record<string, J>;
      for (const key of Object.keys(value)) out[key] = values.encode(value[key]!);
      return out;
    },
    is: (value): value is Record<string, V> => {
      if (!isObject(value)) return false;
      const first = Object.keys(value)[0];
      return first === undefined || values.is(value[first]);
    },
  };
}

/**
 * One of several types, tried in order; the first that decodes wins. When every variant fails and
 * some failed deeper inside the value (at a field of an object), the closest match is reported: a
 * malformed field beats a missing one, then the deepest path wins. Otherwise the error lists what
 * each variant expected.
 */
export function union(
  variants: readonly AnyCodec[],
  expected = variants.map((v) => v.expected).join(" or "),
): AnyCodec {
  return {
    expected,
    decode(raw, path) {
      let deepest: WireError | undefined;
      const type = jsonTypeOf(raw);
      for (const variant of variants) {
        // Skip variants that cannot match without building an error (decoding stays cheap).
        if (variant.jsonType !== undefined && variant.jsonType !== type) continue;
        if (variant.literal !== undefined && variant.literal !== raw) continue;
        try {
          return variant.decode(raw, path);
        } catch (error) {
          if (!(error instanceof WireError)) throw error;
          // An error inside the value, or "too large" for a value of the right form, says more than the union.
          if ((error.path !== path || error.outOfRange) && (deepest === undefined || closer(error, deepest)))
            deepest = error;
        }
      }
      throw deepest ?? new WireError(path, expected, raw);
    },
    encode(value) {
      const variant = variants.find((v) => v.is(value));
      if (variant === undefined) throw new TypeError(`value does not match ${expected}`);
      return variant.encode(value);
    },
    is: (value): value is unknown => variants.some((v) => v.is(value)),
  };
}

function closer(a: WireError, b: WireError): boolean {
  if (a.missing !== b.missing) return !a.missing;
  return a.path.length > b.path.length;
}

/** A union of object types told apart by a string property (e.g. a transaction's `type`). */
export function discriminated(
  property: string,
  variants: Readonly<Record<string, AnyCodec>>,
  expected: string,
): AnyCodec {
  const tags = Object.keys(variants);
  const tagExpected = `one of ${tags.join("|")}`;
  const pick = (value: unknown): AnyCodec | undefined => {
    if (!isPlainObject(value)) return undefined;
    const tag = value[property];
    return typeof tag === "string" && Object.hasOwn(variants, tag) ? variants[tag] : undefined;
  };
  return {
    expected,
    jsonType: "object",
    decode(raw, path) {
      if (!isPlainObject(raw)) throw new WireError(path, expected, raw);
      const variant = pick(raw);
      if (variant === undefined) throw new WireError(`${path}.${property}`, tagExpected, raw[property]);
      return variant.decode(raw, path);
    },
    encode(value) {
      const variant = pick(value);
      if (variant === undefined) throw new TypeError(`${property} is not ${tagExpected}`);
      return variant.encode(value);
    },
    is: (value): value is unknown => pick(value)?.is(value) ?? false,
  };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

export interface Field {
  readonly name: string;
  readonly codec: AnyCodec;
  readonly optional: boolean;
}

/**
 * A JSON object with the given fields. Unknown fields are ignored. An optional field may be absent
 * or null (null counts as absent unless the field's type admits null); encoding omits undefined.
 * `notTogether` lists groups of field names never given together (non-null); a group of one names
 * a field the object must not have.
 */
export function object<V, J>(
  fields: readonly Field[],
  expected: string,
  notTogether: readonly (readonly string[])[] = [],
): Codec<V, J> {
  return {
    expected,
    jsonType: "object",
    decode(raw, path) {
      if (!isPlainObject(raw)) throw new WireError(path, expected, raw);
      for (const names of notTogether) {
        if (
          names.every((name) => Object.hasOwn(raw, name) && raw[name] !== null && raw[name] !== undefined)
        ) {
          throw new WireError(
            names.length === 1 ? `${path}.${names[0]}` : path,
            names.length === 1
              ? `no ${names[0]} (not accepted here)`
              : `${expected} without ${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} together`,
            Object.fromEntries(names.map((name) => [name, raw[name]])),
          );
        }
      }
      const out: Record<string, unknown> = {};
      for (const field of fields) {
        const value = Object.hasOwn(raw, field.name) ? raw[field.name] : undefined;
        if (field.optional && (value === undefined || (value === null && !field.codec.is(null)))) continue;
        out[field.name] = field.codec.decode(value, `${path}.${field.name}`);
      }
      return out as V;
    },
    encode(value) {
      const source = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const field of fields) {
        const item = source[field.name];
        if (item === undefined) {
          if (!field.optional) throw new TypeError(`missing required field ${field.name}`);
          continue;
        }
        out[field.name] = field.codec.encode(item);
      }
      return out as J;
    },
    is(value): value is V {
      if (!isPlainObject(value)) return false;
      return fields.every((f) => (value[f.name] === undefined ? f.optional : f.codec.is(value[f.name])));
    },
  };
}
