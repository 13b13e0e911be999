/**
 * fast-check arbitraries generated from the JSON Schemas of a dereferenced OpenRPC document, for the
 * subset of JSON Schema our documents use (codegen/rpc/openrpc.ts): `const`, `anyOf`, string
 * `pattern`, integer and number bounds, arrays with `minItems`/`maxItems`, objects with
 * `properties`/`required` or `additionalProperties`. `not` is ignored here: a value that falls
 * into a `not` is told apart afterwards by validating it (param-strictness.test.ts).
 */
import fc from "fast-check";

export type JsonSchema = Record<string, unknown>;

/** Array lengths drawn when a schema sets no bound (JSON arrays in requests stay small). */
const DEFAULT_MAX_ITEMS = 3;
/** Below this depth arrays and records are drawn empty where the schema allows it. */
const MAX_DEPTH = 5;

class UnsupportedSchemaError extends Error {
  constructor(readonly schema: JsonSchema) {
    super(`no arbitrary for the schema ${JSON.stringify(schema).slice(0, 200)}`);
    this.name = "UnsupportedSchemaError";
  }
}

function integerArbitrary(min: number, max: number): fc.Arbitrary<number> {
  const small = fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) });
  if (min >= -(2 ** 31) && max <= 2 ** 31 - 1) return small;
  // Wide ranges: small values (most requests) and the bounds, which validators get wrong most.
  return fc.oneof(
    { weight: 3, arbitrary: small },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
    { weight: 1, arbitrary: fc.maxSafeNat().filter((n) => n >= min && n <= max) },
  );
}

/** Values the schema accepts (up to `not`), biased to small ones. */
export function arbitraryOf(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) {
    return fc.oneof(...(schema.anyOf as JsonSchema[]).map((s) => arbitraryOf(s, depth)));
  }
  switch (schema.type) {
    case "string":
      return typeof schema.pattern === "string"
        ? fc.stringMatching(new RegExp(schema.pattern))
        : fc.string({ maxLength: 12 });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "integer":
      return integerArbitrary(
        typeof schema.minimum === "number" ? schema.minimum : Number.MIN_SAFE_INTEGER,
        typeof schema.maximum === "number" ? schema.maximum : Number.MAX_SAFE_INTEGER,
      );
    case "number": {
      const min = typeof schema.minimum === "number" ? schema.minimum : -1e9;
      const max = typeof schema.maximum === "number" ? schema.maximum : 1e9;
      return fc.oneof(
        fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
        fc.constantFrom(min, max),
      );
    }
    case "array": {
      const items = schema.items as JsonSchema | undefined;
      if (items === undefined) throw new UnsupportedSchemaError(schema);
      const minLength = typeof schema.minItems === "number" ? schema.minItems : 0;
      const bound = typeof schema.maxItems === "number" ? schema.maxItems : Infinity;
      const maxLength = Math.min(
        bound,
        depth >= MAX_DEPTH ? minLength : Math.max(minLength, DEFAULT_MAX_ITEMS),
      );
      return fc.array(arbitraryOf(items, depth + 1), { minLength, maxLength });
    }
    case "object": {
      if (typeof schema.additionalProperties === "object" && schema.additionalProperties !== null) {
        return fc.dictionary(
          fc.string({ maxLength: 8 }),
          arbitraryOf(schema.additionalProperties as JsonSchema, depth + 1),
          { maxKeys: depth >= MAX_DEPTH ? 0 : 2, noNullPrototype: true },
        );
      }
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      return fc.record(
        Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(s, depth + 1)])),
        { requiredKeys: required, noNullPrototype: true },
      );
    }
  }
  throw new UnsupportedSchemaError(schema);
}

/** A JSON value of any shape (for mutations): what a confused or hostile client may send. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2, noUnicodeString: true });
