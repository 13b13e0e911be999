/** Compiles spec/typespec/main.tsp with the TypeSpec compiler API and reads it into an RpcSpec. */
import { fileURLToPath } from "node:url";
import {
  compile,
  formatDiagnostic,
  getDoc,
  getMaxValue,
  getMinValue,
  getOpExamples,
  getPattern,
  getReturnsDoc,
  isArrayModelType,
  isRecordModelType,
  isErrorModel,
  NodeHost,
  serializeValueAsJson,
  type Interface,
  type Model,
  type ModelProperty,
  type Operation,
  type Program,
  type Scalar,
  type Type,
  type Union,
} from "@typespec/compiler";
import type {
  Decl,
  ErrorDecl,
  ExampleDecl,
  MethodDecl,
  ParamStructure,
  PropertyDecl,
  RpcSpec,
  ScalarCodec,
  ServiceDecl,
  WireType,
} from "./model.js";
import { SpecError } from "../errors.js";

export const TYPESPEC_MAIN = fileURLToPath(new URL("../../spec/typespec/main.tsp", import.meta.url));

export { SpecError };

/** Compiles the TypeSpec sources; throws SpecError listing every diagnostic on failure. */
export async function compileTypeSpec(main = TYPESPEC_MAIN): Promise<Program> {
  const program = await compile(NodeHost, main, { noEmit: true, warningAsError: true });
  if (program.diagnostics.length > 0) {
    throw new SpecError(
      `TypeSpec compilation failed:\n${program.diagnostics.map((d) => formatDiagnostic(d)).join("\n")}`,
    );
  }
  return program;
}

/** Reads the arguments a decorator of spec/typespec/lib/rpc.tsp recorded on a type. */
function decoratorArgs(program: Program, decorator: string, target: Type): unknown[] | undefined {
  return program.stateMap(Symbol.for(`op-enclave-suite.rpc.${decorator}`)).get(target) as
    unknown[] | undefined;
}

function docOf(program: Program, type: Type): { doc?: string } {
  const doc = getDoc(program, type);
  return doc === undefined ? {} : { doc };
}

const STD_SCALARS: Record<string, WireType> = {
  string: { kind: "string" },
  boolean: { kind: "boolean" },
  float64: { kind: "number" },
};

/** TypeSpec's numeric scalars a codec-less scalar may extend: true for the integer ones. */
const STD_NUMBERS: Record<string, boolean> = {
  float64: false,
  float32: false,
  int32: true,
  int16: true,
  int8: true,
  uint32: true,
  uint16: true,
  uint8: true,
  safeint: true,
};

/** The TypeSpec built-in scalar a scalar is or extends. */
function stdBase(scalar: Scalar): Scalar | undefined {
  for (let s: Scalar | undefined = scalar; s !== undefined; s = s.baseScalar) {
    if (s.namespace?.name === "TypeSpec") return s;
  }
  return undefined;
}

/** Walks the services of a compiled program into an RpcSpec. */
export function readSpec(program: Program): RpcSpec {
  const decls = new Map<string, Decl>();
  const errors = new Map<string, ErrorDecl>();
  const declared = new Map<string, Type>();

  /** True when this exact type was already read; throws when another type took its name. */
  const alreadyRead = (name: string, type: Type): boolean => {
    const previous = declared.get(name);
    if (previous === undefined) {
      declared.set(name, type);
      return false;
    }
    if (previous !== type) throw new SpecError(`two types are named ${name}`);
    return true;
  };

  const wireType = (type: Type, where: string): WireType => {
    switch (type.kind) {
      case "Intrinsic":
        if (type.name === "null") return { kind: "null" };
        break;
      case "String":
      case "Number":
      case "Boolean":
        return { kind: "literal", value: type.value };
      case "Scalar":
        return scalarRef(type, where);
      case "Model":
        if (isArrayModelType(type))
          return { kind: "array", items: wireType(type.indexer.value, `${where}[]`) };
        if (isRecordModelType(program, type))
          return { kind: "record", values: wireType(type.indexer.value, `${where}{}`) };
        if (type.name === "") break;
        modelDecl(type);
        return { kind: "ref", name: type.name };
      case "Union":
        if (type.name === undefined) {
          return { kind: "union", variants: [...type.variants.values()].map((v) => wireType(v.type, where)) };
        }
        unionDecl(type);
        return { kind: "ref", name: type.name };
    }
    throw new SpecError(
      `${where}: unsupported type (${type.kind}); use named models, unions and rpc scalars`,
    );
  };

  const scalarRef = (scalar: Scalar, where: string): WireType => {
    const args = decoratorArgs(program, "codec", scalar);
    if (args === undefined) {
      if (scalar.namespace?.name === "TypeSpec") {
        const std = STD_SCALARS[scalar.name];
        if (std === undefined) throw new SpecError(`${where}: scalar ${scalar.name} has no @codec`);
        return std;
      }
      // A bounded number (`@minValue(0) @maxValue(100) scalar Percentile extends float64`): inline.
      const base = stdBase(scalar);
      const integer = base === undefined ? undefined : STD_NUMBERS[base.name];
      if (integer === undefined) throw new SpecError(`${where}: scalar ${scalar.name} has no @codec`);
      const minimum = getMinValue(program, scalar);
      const maximum = getMaxValue(program, scalar);
      return {
        kind: "number",
        ...(integer ? { integer } : {}),
        ...(minimum === undefined ? {} : { minimum }),
        ...(maximum === undefined ? {} : { maximum }),
      };
    }
    if (!alreadyRead(scalar.name, scalar)) {
      const [kind, options] = args as [ScalarCodec["kind"], Omit<ScalarCodec, "kind"> | undefined];
      const pattern = getPattern(program, scalar);
      const minimum = getMinValue(program, scalar);
      if (minimum !== undefined && kind !== "jsonUint")
        throw new SpecError(`${where}: @minValue is supported on jsonUint scalars only (${scalar.name})`);
      decls.set(scalar.name, {
        kind: "scalar",
        name: scalar.name,
        ...docOf(program, scalar),
        ...expectsOf(scalar),
        codec: { kind, ...options },
        ...(pattern === undefined ? {} : { pattern }),
        ...(minimum === undefined ? {} : { minimum }),
      });
    }
    return { kind: "ref", name: scalar.name };
  };

  const expectsOf = (type: Type): { expects?: string } => {
    const args = decoratorArgs(program, "expects", type);
    return args === undefined ? {} : { expects: String(args[0]) };
  };

  const propertiesOf = (model: Model): PropertyDecl[] => {
    const own = [...model.properties.values()].map((p) => propertyDecl(p, `${model.name}.${p.name}`));
    return model.baseModel === undefined ? own : [...propertiesOf(model.baseModel), ...own];
  };

  const propertyDecl = (prop: ModelProperty, where: string): PropertyDecl => ({
    name: prop.name,
    ...docOf(program, prop),
    optional: prop.optional,
    type: wireType(prop.type, where),
  });

  const reading = new Set<Type>();
  const modelDecl = (model: Model): void => {
    if (isErrorModel(program, model)) throw new SpecError(`error model ${model.name} used as a data type`);
    if (reading.has(model)) throw new SpecError(`recursive type ${model.name} is not supported`);
    if (alreadyRead(model.name, model)) return;
    reading.add(model);
    const properties = propertiesOf(model);
    reading.delete(model);
    const groups = ((decoratorArgs(program, "notTogether", model) ?? []) as [string[]][]).map(
      ([names]) => names,
    );
    for (const names of groups) {
      const declared = names.filter((n) => properties.some((p) => p.name === n));
      if (names.length === 0 || (names.length > 1 && declared.length !== names.length))
        throw new SpecError(`${model.name}: @notTogether needs declared properties, got ${names.join(", ")}`);
      if (names.length === 1 && declared.length === 1)
        throw new SpecError(`${model.name}: @notTogether of one name refuses a property it declares`);
    }
    decls.set(model.name, {
      kind: "model",
      name: model.name,
      ...docOf(program, model),
      ...expectsOf(model),
      properties,
      ...(groups.length === 0 ? {} : { notTogether: groups }),
    });
  };

  const unionDecl = (union: Union): void => {
    const name = union.name as string;
    if (reading.has(union)) throw new SpecError(`recursive type ${name} is not supported`);
    if (alreadyRead(name, union)) return;
    reading.add(union);
    const variants = [...union.variants.values()].map((v) => ({
      ...(typeof v.name === "string" ? { name: v.name } : {}),
      type: wireType(v.type, `${name}.${String(v.name)}`),
    }));
    reading.delete(union);
    decls.set(name, { kind: "union", name, ...docOf(program, union), ...expectsOf(union), variants });
  };

  const errorDecl = (model: Model): string => {
    if (errors.has(model.name)) return model.name;
    const code = model.properties.get("code")?.type;
    const message = model.properties.get("message")?.type;
    if (code?.kind !== "Number" || message?.kind !== "String") {
      throw new SpecError(`error ${model.name}: needs literal code and message properties`);
    }
    const data = model.properties.get("data");
    errors.set(model.name, {
      name: model.name,
      ...docOf(program, model),
      code: code.value,
      message: message.value,
      ...(data === undefined ? {} : { data: wireType(data.type, `${model.name}.data`) }),
    });
    return model.name;
  };

  const methodDecl = (op: Operation, iface: Interface): MethodDecl => {
    const structure = (decoratorArgs(program, "paramStructure", op) ??
      decoratorArgs(program, "paramStructure", iface) ?? ["by-position"])[0] as ParamStructure;
    const params = [...op.parameters.properties.values()].map((p) => ({
      name: p.name,
      ...docOf(program, p),
      required: !p.optional,
      type: wireType(p.type, `${op.name}(${p.name})`),
    }));
    const firstOptional = params.findIndex((p) => !p.required);
    if (firstOptional >= 0 && params.slice(firstOptional).some((p) => p.required)) {
      throw new SpecError(`${op.name}: a required parameter follows an optional one`);
    }
    const returned =
      op.returnType.kind === "Union" && op.returnType.name === undefined
        ? [...op.returnType.variants.values()].map((v) => v.type)
        : [op.returnType];
    const errorNames: string[] = [];
    const results: WireType[] = [];
    for (const type of returned) {
      if (type.kind === "Model" && isErrorModel(program, type)) errorNames.push(errorDecl(type));
      else results.push(wireType(type, `${op.name} result`));
    }
    const [first] = results;
    if (first === undefined) throw new SpecError(`${op.name}: no result type`);
    const resultName = decoratorArgs(program, "resultName", op)?.[0];
    const resultDoc = getReturnsDoc(program, op);
    return {
      name: op.name,
      ...docOf(program, op),
      paramStructure: structure,
      params,
      result: {
        name: typeof resultName === "string" ? resultName : "result",
        ...(resultDoc === undefined ? {} : { doc: resultDoc }),
        type: results.length === 1 ? first : { kind: "union", variants: results },
      },
      errors: errorNames,
      examples: examplesOf(op, params),
    };
  };

  /** `@opExample`s as JSON, params in positional order. */
  const examplesOf = (op: Operation, params: readonly { name: string }[]): ExampleDecl[] =>
    getOpExamples(program, op).map((example, i) => {
      const named = (
        example.parameters === undefined
          ? {}
          : serializeValueAsJson(program, example.parameters, op.parameters)
      ) as Record<string, unknown>;
      if (example.returnType === undefined) throw new SpecError(`${op.name}: an example needs a returnType`);
      return {
        name: example.title ?? `${op.name} example ${i + 1}`,
        params: params
          .filter((p) => named[p.name] !== undefined)
          .map((p) => ({ name: p.name, value: named[p.name] })),
        result: serializeValueAsJson(program, example.returnType, op.returnType),
      };
    });

  const services: ServiceDecl[] = [];
  const serviceState = program.stateMap(Symbol.for("op-enclave-suite.rpc.rpcService"));
  const serverState = program.stateMap(Symbol.for("op-enclave-suite.rpc.rpcServer"));
  for (const [target, args] of serviceState) {
    if (target.kind !== "Interface") continue;
    const [id, title, version] = args as [string, string, string];
    const methods = [...target.operations.values()].map((op) => methodDecl(op, target));
    const servers = ((serverState.get(target) ?? []) as [string, string][]).map(([name, url]) => {
      if (!/^https?:\/\/[^/\s]+/.test(url))
        throw new SpecError(`${id}: @rpcServer needs an absolute URL, got ${url}`);
      return { name, url };
    });
    services.push({ id, title, version, ...docOf(program, target), servers, methods });
  }
  if (services.length === 0) throw new SpecError("no @rpcService interface found");

  const byName = <T extends { name: string }>(a: T, b: T): number =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  return {
    decls: [...decls.values()].sort(byName),
    errors: [...errors.values()].sort(byName),
    services: services.sort((a, b) => (a.id < b.id ? -1 : 1)),
  };
}
