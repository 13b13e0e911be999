/** Assembles one OpenRPC 1.x document per service and validates it with @open-rpc/schema-utils-js. */
import { dereferenceDocument, validateOpenRPCDocument } from "@open-rpc/schema-utils-js";
import {
  type Decl,
  declDependencies,
  findDecl,
  referencedNames,
  type RpcSpec,
  type ScalarDecl,
  type ServiceDecl,
  type WireType,
} from "./model.js";
import { InvalidOpenRpcDocumentError, SpecError } from "../errors.js";

/** The document type of @open-rpc/schema-utils-js (OpenRPC 1.3 / 1.4; a 1.2.6 document fits it). */
export type OpenrpcDocument = Parameters<typeof validateOpenRPCDocument>[0];

/**
 * 1.2.6, the newest version third parties' tools accept (@open-rpc/test-coverage's meta-schema stops
 * there; @open-rpc/generator's TypeScript client types `openrpc` as a 1.2.x literal). Nothing in our
 * documents needs a later version.
 */
export const OPENRPC_VERSION = "1.2.6";

export { InvalidOpenRpcDocumentError };

type JsonSchema = Record<string, unknown>;

const MAX_SAFE_INTEGER = 2 ** 53 - 1;

function withDoc(schema: JsonSchema, doc: string | undefined): JsonSchema {
  return doc === undefined ? schema : { ...schema, description: doc };
}

export function schemaOf(type: WireType): JsonSchema {
  switch (type.kind) {
    case "ref":
      return { $ref: `#/components/schemas/${type.name}` };
    case "string":
      return { type: "string" };
    case "boolean":
      return { type: "boolean" };
    case "number":
      return {
        type: type.integer === true ? "integer" : "number",
        ...(type.minimum === undefined ? {} : { minimum: type.minimum }),
        ...(type.maximum === undefined ? {} : { maximum: type.maximum }),
      };
    case "null":
      return { type: "null" };
    case "literal":
      return { type: typeof type.value, const: type.value };
    case "array":
      return { type: "array", items: schemaOf(type.items) };
    case "record":
      return { type: "object", additionalProperties: schemaOf(type.values) };
    case "union":
      return { anyOf: type.variants.map(schemaOf) };
  }
}

function scalarSchema(decl: ScalarDecl): JsonSchema {
  const { codec } = decl;
  switch (codec.kind) {
    case "jsonUint":
      return { type: "integer", minimum: decl.minimum ?? 0, maximum: MAX_SAFE_INTEGER };
    case "byteArray":
      return {
        type: "array",
        items: { type: "integer", minimum: 0, maximum: 255 },
        ...(codec.length === undefined ? {} : { minItems: codec.length, maxItems: codec.length }),
        ...(codec.maxLength === undefined ? {} : { maxItems: codec.maxLength }),
      };
    default:
      return { type: "string", ...(decl.pattern === undefined ? {} : { pattern: decl.pattern }) };
  }
}

/**
 * The title of a named union variant: the union's name then the variant's (`BlockNumberOrTag` +
 * `number` = `BlockNumberOrTagNumber`). Generators name types after titles, so every title in a
 * document must be unique; a variant's bare name ("number", "single") recurs across unions.
 */
export function variantTitle(union: string, variant: string): string {
  return union + variant.charAt(0).toUpperCase() + variant.slice(1);
}

function declSchema(decl: Decl): JsonSchema {
  const base = { title: decl.name, ...(decl.doc === undefined ? {} : { description: decl.doc }) };
  switch (decl.kind) {
    case "scalar":
      return { ...base, ...scalarSchema(decl) };
    case "model":
      return {
        ...base,
        type: "object",
        required: decl.properties.filter((p) => !p.optional).map((p) => p.name),
        properties: Object.fromEntries(
          decl.properties.map((p) => [p.name, withDoc(schemaOf(p.type), p.doc)]),
        ),
        ...notTogetherSchema(decl.notTogether ?? []),
      };
    case "union":
      return {
        ...base,
        anyOf: decl.variants.map((v) =>
          v.name === undefined
            ? schemaOf(v.type)
            : { title: variantTitle(decl.name, v.name), ...schemaOf(v.type) },
        ),
      };
  }
}

/**
 * `@notTogether` groups as JSON Schema: `not: {required: [...]}` for one group, `not: {anyOf: [...]}`
 * for several. `required` counts a null-valued property as present where the codec counts it absent;
 * the properties concerned do not admit null, so such an object is outside the schema either way.
 */
function notTogetherSchema(groups: readonly (readonly string[])[]): JsonSchema {
  if (groups.length === 0) return {};
  const required = groups.map((names) => ({ required: [...names] }));
  return { not: required.length === 1 ? required[0] : { anyOf: required } };
}

/** Names of every declaration reachable from the given types, sorted. */
function reachable(spec: RpcSpec, roots: readonly WireType[]): string[] {
  const seen = new Set<string>();
  const queue = roots.flatMap(referencedNames);
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...declDependencies(findDecl(spec, name)));
  }
  return [...seen].sort();
}

/** The OpenRPC document of one service (not yet validated). */
export function buildOpenRpcDocument(spec: RpcSpec, service: ServiceDecl): OpenrpcDocument {
  const errorsUsed = [...new Set(service.methods.flatMap((m) => m.errors))].sort();
  const errorDecls = errorsUsed.map((name) => {
    const decl = spec.errors.find((e) => e.name === name);
    if (decl === undefined) throw new SpecError(`unknown error ${name}`);
    return decl;
  });
  const roots = service.methods.flatMap((m) => [...m.params.map((p) => p.type), m.result.type]);
  roots.push(...errorDecls.flatMap((e) => (e.data === undefined ? [] : [e.data])));
  const schemas = Object.fromEntries(
    reachable(spec, roots).map((name) => [name, declSchema(findDecl(spec, name))]),
  );
  const document = {
    openrpc: OPENRPC_VERSION,
    info: {
      title: service.title,
      version: service.version,
      ...(service.doc === undefined ? {} : { description: service.doc }),
    },
    ...(service.servers.length === 0
      ? {}
      : { servers: service.servers.map((s) => ({ name: s.name, url: s.url })) }),
    methods: service.methods.map((method) => ({
      name: method.name,
      ...(method.doc === undefined ? {} : { description: method.doc }),
      paramStructure: method.paramStructure,
      params: method.params.map((p) => ({
        name: p.name,
        ...(p.doc === undefined ? {} : { description: p.doc }),
        required: p.required,
        schema: schemaOf(p.type),
      })),
      result: {
        name: method.result.name,
        ...(method.result.doc === undefined ? {} : { description: method.result.doc }),
        schema: schemaOf(method.result.type),
      },
      errors: method.errors.map((name) => ({ $ref: `#/components/errors/${name}` })),
      ...(method.examples.length === 0
        ? {}
        : {
            examples: method.examples.map((example) => ({
              name: example.name,
              params: example.params,
              result: { name: method.result.name, value: example.result },
            })),
          }),
    })),
    components: {
      schemas,
      errors: Object.fromEntries(
        errorDecls.map((e) => [
          e.name,
          { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: schemaOf(e.data) }) },
        ]),
      ),
    },
  };
  return document as unknown as OpenrpcDocument;
}

/** Validates a document against the OpenRPC meta-schema and checks that every $ref resolves. */
export async function validateOpenRpc(document: OpenrpcDocument): Promise<void> {
  const result = validateOpenRPCDocument(document);
  if (result !== true) throw new InvalidOpenRpcDocumentError(`${document.info.title}: ${result.message}`);
  try {
    await dereferenceDocument(structuredClone(document));
  } catch (error) {
    throw new InvalidOpenRpcDocumentError(
      `${document.info.title}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Every service's document, validated, keyed by service id. */
export async function buildOpenRpcDocuments(spec: RpcSpec): Promise<Map<string, OpenrpcDocument>> {
  const documents = new Map<string, OpenrpcDocument>();
  for (const service of spec.services) {
    const document = buildOpenRpcDocument(spec, service);
    await validateOpenRpc(document);
    documents.set(service.id, document);
  }
  return documents;
}
