/**
 * The intermediate form of the JSON-RPC spec: what codegen/rpc reads out of the compiled TypeSpec
 * program, and what every emitter (OpenRPC, types, codecs, methods) works from.
 */
import { SpecError } from "../errors.js";

/** A reference to a type as it appears on the wire. */
export type WireType =
  | { readonly kind: "ref"; readonly name: string }
  | { readonly kind: "string" }
  | { readonly kind: "boolean" }
  /** A JSON number; `integer` and the inclusive bounds come from TypeSpec's int scalars, @minValue and @maxValue. */
  | {
      readonly kind: "number";
      readonly integer?: boolean;
      readonly minimum?: number;
      readonly maximum?: number;
    }
  | { readonly kind: "null" }
  | { readonly kind: "literal"; readonly value: string | number | boolean }
  | { readonly kind: "array"; readonly items: WireType }
  /** A JSON object with any string keys, all values of one type (TypeSpec `Record<T>`). */
  | { readonly kind: "record"; readonly values: WireType }
  | { readonly kind: "union"; readonly variants: readonly WireType[] };

export type ScalarCodecKind =
  "uint" | "uintNumber" | "bytes" | "storageKey" | "jsonUint" | "byteArray" | "decimal";

export interface ScalarCodec {
  readonly kind: ScalarCodecKind;
  readonly bits?: number;
  readonly length?: number;
  readonly maxLength?: number;
}

interface DeclBase {
  readonly name: string;
  readonly doc?: string;
  /** The phrase validators use for what they expected. */
  readonly expects?: string;
}

export interface ScalarDecl extends DeclBase {
  readonly kind: "scalar";
  readonly codec: ScalarCodec;
  readonly pattern?: string;
  /**
   * Inclusive lower bound of a jsonUint scalar, from TypeSpec's @minValue: published in the schema;
   * the handler enforces it (the codec decodes any non-negative integer).
   */
  readonly minimum?: number;
}

export interface PropertyDecl {
  readonly name: string;
  readonly doc?: string;
  readonly optional: boolean;
  readonly type: WireType;
}

export interface ModelDecl extends DeclBase {
  readonly kind: "model";
  readonly properties: readonly PropertyDecl[];
  /**
   * Groups of property names never given together (`@notTogether`): a group of one is a property
   * the object must not have at all. A null value counts as absent, as everywhere in decoding.
   */
  readonly notTogether?: readonly (readonly string[])[];
}

export interface UnionDecl extends DeclBase {
  readonly kind: "union";
  readonly variants: readonly { readonly name?: string; readonly type: WireType }[];
}

export type Decl = ScalarDecl | ModelDecl | UnionDecl;

export interface ErrorDecl {
  readonly name: string;
  readonly doc?: string;
  readonly code: number;
  readonly message: string;
  readonly data?: WireType;
}

export interface ParamDecl {
  readonly name: string;
  readonly doc?: string;
  readonly required: boolean;
  readonly type: WireType;
}

export type ParamStructure = "by-position" | "either";

/** An example call: params in positional order (omitted ones left out) and the JSON result. */
export interface ExampleDecl {
  readonly name: string;
  readonly params: readonly { readonly name: string; readonly value: unknown }[];
  readonly result: unknown;
}

export interface MethodDecl {
  readonly name: string;
  readonly doc?: string;
  readonly paramStructure: ParamStructure;
  readonly params: readonly ParamDecl[];
  readonly result: { readonly name: string; readonly doc?: string; readonly type: WireType };
  /** Names of the ErrorDecls this method may answer with. */
  readonly errors: readonly string[];
  readonly examples: readonly ExampleDecl[];
}

export interface ServiceDecl {
  /** Short lowercase id: names files, the client class and the handler interface. */
  readonly id: string;
  readonly title: string;
  readonly version: string;
  readonly doc?: string;
  /** Where the service is served (`@rpcServer`), in declaration order. */
  readonly servers: readonly { readonly name: string; readonly url: string }[];
  readonly methods: readonly MethodDecl[];
}

/** The whole spec, every list in a stable order. */
export interface RpcSpec {
  /** Named types reachable from the services, sorted by name. */
  readonly decls: readonly Decl[];
  /** Errors used by some method, sorted by name. */
  readonly errors: readonly ErrorDecl[];
  /** Services sorted by id; methods in declaration order. */
  readonly services: readonly ServiceDecl[];
}

export function findDecl(spec: RpcSpec, name: string): Decl {
  const decl = spec.decls.find((d) => d.name === name);
  if (decl === undefined) throw new SpecError(`spec: no declaration named ${name}`);
  return decl;
}

/** Names of the declarations a type refers to directly. */
export function referencedNames(type: WireType): string[] {
  switch (type.kind) {
    case "ref":
      return [type.name];
    case "array":
      return referencedNames(type.items);
    case "record":
      return referencedNames(type.values);
    case "union":
      return type.variants.flatMap(referencedNames);
    default:
      return [];
  }
}

/** Names of the declarations a declaration refers to directly. */
export function declDependencies(decl: Decl): string[] {
  switch (decl.kind) {
    case "scalar":
      return [];
    case "model":
      return decl.properties.flatMap((p) => referencedNames(p.type));
    case "union":
      return decl.variants.flatMap((v) => referencedNames(v.type));
  }
}

/** Declarations ordered so that each comes after everything it refers to (ties by name). */
export function dependencyOrder(decls: readonly Decl[]): Decl[] {
  const byName = new Map(decls.map((d) => [d.name, d]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const out: Decl[] = [];
  const visit = (decl: Decl): void => {
    if (done.has(decl.name)) return;
    if (visiting.has(decl.name)) throw new SpecError(`spec: recursive type ${decl.name} is not supported`);
    visiting.add(decl.name);
    for (const dep of [...new Set(declDependencies(decl))].sort()) {
      const target = byName.get(dep);
      if (target !== undefined) visit(target);
    }
    visiting.delete(decl.name);
    done.add(decl.name);
    out.push(decl);
  };
  for (const decl of decls) visit(decl);
  return out;
}
