/** The declarative host-enclave protocol spec (spec/protocol/enclave.protocol.json): its model and a strict loader. */
import { readFile } from "node:fs/promises";
import { ProtocolSpecError } from "../errors.js";

export type PrimitiveName = "u8" | "u16" | "u32" | "u64" | "bool" | "string";
export const PRIMITIVES: readonly PrimitiveName[] = ["u8", "u16", "u32", "u64", "bool", "string"];

/** A type as it appears in a field: a primitive, a named type, or a composite. */
export type TypeExpr =
  | string
  | { readonly kind: "array"; readonly of: TypeExpr; readonly length: number }
  | { readonly kind: "vec"; readonly of: TypeExpr; readonly maxItems?: number }
  | { readonly kind: "option"; readonly of: TypeExpr };

export interface FieldSpec {
  readonly name: string;
  readonly type: TypeExpr;
  /** The message forms that carry this field (absent: every form). */
  readonly forms?: readonly string[];
}

export interface VariantSpec {
  readonly name: string;
  /** Rust discriminant (`#[repr(u8)] Name = n`) of a unit variant; does not affect the wire. */
  readonly discriminant?: number;
  /** Struct-like variant. */
  readonly fields?: readonly FieldSpec[];
  /** Tuple variant (names only name the TypeScript properties). */
  readonly items?: readonly FieldSpec[];
  /** For request variants: the response variant that answers it (an error response may answer any). */
  readonly response?: string;
  /** The wire index in a non-default form, when it differs from the declaration order. */
  readonly indexIn?: Readonly<Record<string, number>>;
}

export type NamedTypeSpec =
  | {
      readonly kind: "fixedBytes";
      readonly length: number;
      readonly lengthPrefixed: boolean;
      readonly doc: string;
    }
  | { readonly kind: "bytes"; readonly doc: string }
  | {
      /**
       * `length` bytes whose first byte is the discriminant of a variant of `tag` (a unit-only enum whose every
       * variant has one): the TypeScript type is those bytes as they are; the wire carries the other
       * `length - 1` bytes as a fixed array, then the tag enum as it is written (its variant index).
       */
      readonly kind: "taggedBytes";
      readonly length: number;
      readonly tag: string;
      readonly doc: string;
    }
  | {
      readonly kind: "struct";
      readonly fields: readonly FieldSpec[];
      readonly doc: string;
      /** The JSON-RPC model (generated/rpc) that is this type's TypeScript form: one type for both codecs. */
      readonly model?: string;
    }
  | { readonly kind: "tuple"; readonly items: readonly FieldSpec[]; readonly doc: string }
  | {
      readonly kind: "enum";
      readonly variants: readonly VariantSpec[];
      readonly doc: string;
      /** As `model` of a struct; such an enum is externally tagged ({ Variant: { fields } }), as its JSON is. */
      readonly model?: string;
    };

export interface FrameSpec {
  readonly lengthPrefixBytes: number;
  readonly lengthPrefixEndianness: "big";
  readonly maxRequestPayloadBytes: number;
  readonly maxResponsePayloadBytes: number;
  readonly maxWriteChunkBytes: number;
  readonly readTimeoutMs: number;
  readonly requestsPerConnection: number;
  readonly requestMessage: string;
  readonly responseMessage: string;
  /** The response variant (one string item) that reports a failure to any request. */
  readonly errorResponse: string;
}

export interface ProtocolSpec {
  readonly doc: string;
  /**
   * The message forms (the first is the default, whose variant indices are the declaration order), each with its
   * doc. A spec without `forms` has one form, "spec".
   */
  readonly forms: readonly { readonly name: string; readonly doc: string }[];
  readonly frame: FrameSpec;
  readonly types: ReadonlyMap<string, NamedTypeSpec>;
}

export { ProtocolSpecError };

function fail(where: string, message: string): never {
  throw new ProtocolSpecError(`${where}: ${message}`);
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(where, "expected an object");
  return value as Record<string, unknown>;
}

function asString(value: unknown, where: string): string {
  if (typeof value !== "string" || value.length === 0) fail(where, "expected a non-empty string");
  return value;
}

function asPositiveInt(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    fail(where, "expected a positive integer");
  return value;
}

function asArray(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) fail(where, "expected an array");
  return value;
}

function parseTypeExpr(value: unknown, where: string): TypeExpr {
  if (typeof value === "string") return asString(value, where);
  const o = asObject(value, where);
  const kind = o.kind;
  if (kind === "array")
    return {
      kind,
      of: parseTypeExpr(o.of, `${where}.of`),
      length: asPositiveInt(o.length, `${where}.length`),
    };
  if (kind === "vec") {
    const of = parseTypeExpr(o.of, `${where}.of`);
    if (o.maxItems === undefined) return { kind, of };
    return { kind, of, maxItems: asPositiveInt(o.maxItems, `${where}.maxItems`) };
  }
  if (kind === "option") return { kind, of: parseTypeExpr(o.of, `${where}.of`) };
  return fail(where, `unknown type kind ${String(kind)}`);
}

function parseFields(value: unknown, where: string): FieldSpec[] {
  const fields = asArray(value, where).map((f, i): FieldSpec => {
    const o = asObject(f, `${where}[${i}]`);
    return {
      name: asString(o.name, `${where}[${i}].name`),
      type: parseTypeExpr(o.type, `${where}[${i}].type`),
      ...(o.forms === undefined
        ? {}
        : {
            forms: asArray(o.forms, `${where}[${i}].forms`).map((form, j) =>
              asString(form, `${where}[${i}].forms[${j}]`),
            ),
          }),
    };
  });
  const names = new Set(fields.map((f) => f.name));
  if (names.size !== fields.length) fail(where, "duplicate field names");
  return fields;
}

function parseIndexIn(value: unknown, where: string): Record<string, number> {
  const o = asObject(value, where);
  const out: Record<string, number> = {};
  for (const [form, index] of Object.entries(o)) {
    if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0)
      fail(`${where}.${form}`, "expected a variant index (a non-negative integer)");
    out[form] = index;
  }
  return out;
}

function parseForms(value: unknown): { readonly name: string; readonly doc: string }[] {
  if (value === undefined) return [{ name: "spec", doc: "The spec's messages." }];
  const forms = Object.entries(asObject(value, "forms")).map(([name, doc]) => ({
    name,
    doc: asString(doc, `forms.${name}`),
  }));
  if (forms.length === 0) fail("forms", "needs at least one form");
  for (const { name } of forms)
    if (!/^[a-z][a-z0-9-]*$/.test(name))
      fail(`forms.${name}`, "a form name is lower-case letters, digits, -");
  return forms;
}

/**
 * Every form named by a field or variant exists; in every form each enum's wire indices are 0..n-1, each once;
 * the default form takes the declaration order (no indexIn for it).
 */
function checkForms(types: ReadonlyMap<string, NamedTypeSpec>, forms: readonly string[]): void {
  const [defaultForm] = forms;
  const known = (form: string, where: string) => {
    if (!forms.includes(form)) fail(where, `unknown form ${form}`);
  };
  for (const [name, t] of types) {
    const fields: [string, FieldSpec][] =
      t.kind === "struct"
        ? t.fields.map((f) => [`types.${name}.${f.name}`, f])
        : t.kind === "tuple"
          ? t.items.map((f) => [`types.${name}.${f.name}`, f])
          : t.kind === "enum"
            ? t.variants.flatMap((v) =>
                [...(v.fields ?? []), ...(v.items ?? [])].map((f): [string, FieldSpec] => [
                  `types.${name}.${v.name}.${f.name}`,
                  f,
                ]),
              )
            : [];
    for (const [where, field] of fields) for (const form of field.forms ?? []) known(form, `${where}.forms`);
    if (t.kind !== "enum") continue;
    for (const v of t.variants)
      for (const form of Object.keys(v.indexIn ?? {})) {
        known(form, `types.${name}.${v.name}.indexIn`);
        if (form === defaultForm)
          fail(`types.${name}.${v.name}.indexIn`, `the default form ${form} takes the declaration order`);
      }
    for (const form of forms) {
      const indices = t.variants.map((v, i) => v.indexIn?.[form] ?? i);
      if (new Set(indices).size !== indices.length || indices.some((i) => i >= indices.length))
        fail(`types.${name}`, `the wire indices in form ${form} are not 0..${indices.length - 1}, each once`);
    }
  }
}

/** The optional `model`: the name of the generated/rpc type this protocol type is. */
function modelOf(o: Record<string, unknown>, where: string): { readonly model?: string } {
  return o.model === undefined ? {} : { model: asString(o.model, `${where}.model`) };
}

function parseNamedType(name: string, value: unknown): NamedTypeSpec {
  const where = `types.${name}`;
  const o = asObject(value, where);
  const doc = asString(o.doc ?? name, `${where}.doc`);
  switch (o.kind) {
    case "fixedBytes":
      if (typeof o.lengthPrefixed !== "boolean") fail(where, "lengthPrefixed must be a boolean");
      return {
        kind: "fixedBytes",
        length: asPositiveInt(o.length, `${where}.length`),
        lengthPrefixed: o.lengthPrefixed,
        doc,
      };
    case "bytes":
      return { kind: "bytes", doc };
    case "taggedBytes": {
      const length = asPositiveInt(o.length, `${where}.length`);
      if (length < 2)
        fail(`${where}.length`, "a tagged byte string holds its tag byte and at least one more");
      return { kind: "taggedBytes", length, tag: asString(o.tag, `${where}.tag`), doc };
    }
    case "struct":
      return { kind: "struct", fields: parseFields(o.fields, `${where}.fields`), doc, ...modelOf(o, where) };
    case "tuple":
      return { kind: "tuple", items: parseFields(o.items, `${where}.items`), doc };
    case "enum": {
      const variants = asArray(o.variants, `${where}.variants`).map((v, i): VariantSpec => {
        const vw = `${where}.variants[${i}]`;
        const vo = asObject(v, vw);
        if (vo.fields !== undefined && vo.items !== undefined)
          fail(vw, "a variant has fields or items, not both");
        const variant: VariantSpec = {
          name: asString(vo.name, `${vw}.name`),
          ...(vo.discriminant !== undefined
            ? { discriminant: asPositiveInt(vo.discriminant, `${vw}.discriminant`) }
            : {}),
          ...(vo.fields !== undefined ? { fields: parseFields(vo.fields, `${vw}.fields`) } : {}),
          ...(vo.items !== undefined ? { items: parseFields(vo.items, `${vw}.items`) } : {}),
          ...(vo.response !== undefined ? { response: asString(vo.response, `${vw}.response`) } : {}),
          ...(vo.indexIn !== undefined ? { indexIn: parseIndexIn(vo.indexIn, `${vw}.indexIn`) } : {}),
        };
        return variant;
      });
      if (variants.length === 0) fail(where, "an enum needs at least one variant");
      if (new Set(variants.map((v) => v.name)).size !== variants.length)
        fail(where, "duplicate variant names");
      const model = modelOf(o, where);
      if (model.model !== undefined && variants.some((v) => v.items !== undefined))
        fail(where, "an enum with a model has struct-like variants only");
      return { kind: "enum", variants, doc, ...model };
    }
    default:
      return fail(where, `unknown kind ${String(o.kind)}`);
  }
}

function parseFrame(value: unknown): FrameSpec {
  const o = asObject(value, "frame");
  if (o.lengthPrefixBytes !== 4) fail("frame.lengthPrefixBytes", "only a 4-byte prefix is supported");
  if (o.lengthPrefixEndianness !== "big")
    fail("frame.lengthPrefixEndianness", "only big-endian is supported");
  const frame: FrameSpec = {
    lengthPrefixBytes: 4,
    lengthPrefixEndianness: "big",
    maxRequestPayloadBytes: asPositiveInt(o.maxRequestPayloadBytes, "frame.maxRequestPayloadBytes"),
    maxResponsePayloadBytes: asPositiveInt(o.maxResponsePayloadBytes, "frame.maxResponsePayloadBytes"),
    maxWriteChunkBytes: asPositiveInt(o.maxWriteChunkBytes, "frame.maxWriteChunkBytes"),
    readTimeoutMs: asPositiveInt(o.readTimeoutMs, "frame.readTimeoutMs"),
    requestsPerConnection: asPositiveInt(o.requestsPerConnection, "frame.requestsPerConnection"),
    requestMessage: asString(o.requestMessage, "frame.requestMessage"),
    responseMessage: asString(o.responseMessage, "frame.responseMessage"),
    errorResponse: asString(o.errorResponse, "frame.errorResponse"),
  };
  for (const key of ["maxRequestPayloadBytes", "maxResponsePayloadBytes"] as const) {
    if (frame[key] > 0xffff_ffff) fail(`frame.${key}`, "cannot exceed what a 4-byte prefix can announce");
  }
  return frame;
}

/** A taggedBytes tag: a unit-only enum, each variant with a distinct discriminant that fits the tag byte. */
function checkTag(types: ReadonlyMap<string, NamedTypeSpec>, name: string, tag: string): void {
  const where = `types.${name}.tag`;
  const t = types.get(tag);
  if (t?.kind !== "enum") fail(where, `${tag} is not an enum in types`);
  if (t.variants.some((v) => v.fields !== undefined || v.items !== undefined))
    fail(where, `${tag} must have unit variants only`);
  const discriminants = t.variants.map((v) => v.discriminant);
  if (discriminants.some((d) => d === undefined || d > 0xff))
    fail(where, `every variant of ${tag} needs a discriminant of at most 255 (the tag byte)`);
  if (new Set(discriminants).size !== discriminants.length)
    fail(where, `the discriminants of ${tag} are not distinct`);
}

/** Checks that every referenced name exists and that no type contains itself. */
function checkReferences(types: ReadonlyMap<string, NamedTypeSpec>): void {
  for (const [name, t] of types) if (t.kind === "taggedBytes") checkTag(types, name, t.tag);
  const isKnown = (name: string) => (PRIMITIVES as readonly string[]).includes(name) || types.has(name);
  const visit = (expr: TypeExpr, where: string, stack: readonly string[]): void => {
    if (typeof expr === "string") {
      if (!isKnown(expr)) fail(where, `unknown type ${expr}`);
      const named = types.get(expr);
      if (named === undefined) return;
      if (stack.includes(expr)) fail(where, `recursive type ${[...stack, expr].join(" -> ")}`);
      for (const [field, type] of fieldsOf(named)) visit(type, `${where}.${field}`, [...stack, expr]);
      return;
    }
    if (expr.kind === "array" && expr.of !== "u8") fail(where, "only arrays of u8 are supported");
    visit(expr.of, where, stack);
  };
  for (const name of types.keys()) visit(name, `types.${name}`, []);
}

/** Every (field name, type) a named type contains, across variants. */
export function fieldsOf(named: NamedTypeSpec): [string, TypeExpr][] {
  switch (named.kind) {
    case "struct":
      return named.fields.map((f) => [f.name, f.type]);
    case "tuple":
      return named.items.map((f) => [f.name, f.type]);
    case "enum":
      return named.variants.flatMap((v) =>
        [...(v.fields ?? []), ...(v.items ?? [])].map((f): [string, TypeExpr] => [
          `${v.name}.${f.name}`,
          f.type,
        ]),
      );
    default:
      return [];
  }
}

/** Every request variant names an existing response variant; the error response carries one string. */
function checkRequestResponsePairs(types: ReadonlyMap<string, NamedTypeSpec>, frame: FrameSpec): void {
  const request = types.get(frame.requestMessage);
  const response = types.get(frame.responseMessage);
  if (request?.kind !== "enum" || response?.kind !== "enum") return;
  const responseNames = new Set(response.variants.map((v) => v.name));
  for (const variant of request.variants) {
    if (variant.response === undefined)
      fail(`${frame.requestMessage}.${variant.name}`, "needs a response variant");
    if (!responseNames.has(variant.response)) {
      fail(`${frame.requestMessage}.${variant.name}`, `unknown response variant ${variant.response}`);
    }
  }
  const error = response.variants.find((v) => v.name === frame.errorResponse);
  const items = error?.items ?? [];
  if (items.length !== 1 || items[0]?.type !== "string") {
    fail(
      "frame.errorResponse",
      `${frame.errorResponse} must be a ${frame.responseMessage} variant with one string item`,
    );
  }
}

export function parseProtocolSpec(json: unknown): ProtocolSpec {
  const root = asObject(json, "spec");
  const typesObject = asObject(root.types, "types");
  const types = new Map<string, NamedTypeSpec>();
  for (const [name, value] of Object.entries(typesObject)) {
    if ((PRIMITIVES as readonly string[]).includes(name)) fail(`types.${name}`, "shadows a primitive");
    types.set(name, parseNamedType(name, value));
  }
  checkReferences(types);
  const forms = parseForms(root.forms);
  checkForms(
    types,
    forms.map((f) => f.name),
  );
  const frame = parseFrame(root.frame);
  for (const message of [frame.requestMessage, frame.responseMessage]) {
    if (types.get(message)?.kind !== "enum")
      fail("frame", `message type ${message} must be an enum in types`);
  }
  checkRequestResponsePairs(types, frame);
  return { doc: asString(root.doc, "doc"), forms, frame, types };
}

export async function loadProtocolSpec(path: string): Promise<ProtocolSpec> {
  return parseProtocolSpec(JSON.parse(await readFile(path, "utf8")));
}
