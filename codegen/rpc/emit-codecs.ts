/** Emits generated/rpc/codecs.ts: a validating decoder and an encoder (a wire.Codec) per named spec type. */
import { VariableDeclarationKind } from "ts-morph";
import type { GeneratedFile } from "../files.js";
import {
  type Decl,
  dependencyOrder,
  findDecl,
  type ModelDecl,
  type RpcSpec,
  type ScalarDecl,
  type UnionDecl,
} from "./model.js";
import {
  codecExpression,
  codecName,
  createProject,
  docs,
  jsonTypeName,
  renderSourceFile,
} from "./ts-output.js";
import { SpecError } from "../errors.js";

export function emitCodecs(spec: RpcSpec): GeneratedFile {
  const file = createProject().createSourceFile("codecs.ts");
  file.addImportDeclaration({ moduleSpecifier: "./types.js", namespaceImport: "T", isTypeOnly: true });
  file.addImportDeclaration({ moduleSpecifier: "./wire.js", namespaceImport: "wire" });
  for (const decl of dependencyOrder(spec.decls)) {
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: docs(`Validates, decodes and encodes {@link T.${decl.name}}.`),
      declarations: [
        {
          name: codecName(decl.name),
          type: `wire.Codec<T.${decl.name}, T.${jsonTypeName(decl.name)}>`,
          initializer: codecInitializer(spec, decl),
        },
      ],
    });
  }
  return renderSourceFile(file, "codecs.ts");
}

function expectedOf(decl: Decl): string {
  if (decl.expects !== undefined) return decl.expects;
  if (decl.kind !== "model") return decl.name;
  return `${/^[AEIOU]/.test(decl.name) ? "an" : "a"} ${decl.name} object`;
}

function codecInitializer(spec: RpcSpec, decl: Decl): string {
  const expected = JSON.stringify(expectedOf(decl));
  switch (decl.kind) {
    case "scalar":
      return scalarInitializer(decl, expected);
    case "model": {
      const fields = decl.properties.map(
        (p) =>
          `{ name: ${JSON.stringify(p.name)}, codec: ${codecExpression(p.type)}, optional: ${p.optional} }`,
      );
      const groups = decl.notTogether === undefined ? "" : `, ${JSON.stringify(decl.notTogether)}`;
      return `wire.object<T.${decl.name}, T.${jsonTypeName(decl.name)}>([\n${fields.join(",\n")},\n], ${expected}${groups})`;
    }
    case "union": {
      const discriminant = discriminantOf(spec, decl);
      if (discriminant !== undefined) {
        const entries = discriminant.tags.map(([tag, type]) => `${JSON.stringify(tag)}: ${codecName(type)}`);
        return `wire.discriminated(${JSON.stringify(discriminant.property)}, {\n${entries.join(",\n")},\n}, ${expected})`;
      }
      const variants = decl.variants.map((v) => codecExpression(v.type));
      return decl.expects === undefined
        ? `wire.union([${variants.join(", ")}])`
        : `wire.union([${variants.join(", ")}], ${expected})`;
    }
  }
}

function scalarInitializer(decl: ScalarDecl, expected: string): string {
  const { kind, bits, length, maxLength } = decl.codec;
  const need = (value: number | undefined, what: string): number => {
    if (value === undefined) throw new SpecError(`scalar ${decl.name}: codec ${kind} needs ${what}`);
    return value;
  };
  switch (kind) {
    case "uint":
      return `wire.uint(${need(bits, "bits")}, ${expected})`;
    case "uintNumber":
      return `wire.uintNumber(${need(bits, "bits")}, ${expected})`;
    case "jsonUint":
      // A @minValue is published only: the service checks it with its own message (the prover host's
      // validateProofRequest), which clients already read.
      return `wire.jsonUint(${need(bits, "bits")}, ${expected})`;
    case "bytes":
      return `wire.hexBytes(${length ?? "undefined"}, ${expected})`;
    case "storageKey":
      return `wire.storageKey(${expected})`;
    case "decimal":
      return `wire.decimal(${expected})`;
    case "byteArray": {
      const limits = [
        ...(length === undefined ? [] : [`length: ${length}`]),
        ...(maxLength === undefined ? [] : [`maxLength: ${maxLength}`]),
      ];
      return `wire.byteArray({ ${limits.join(", ")} }, ${expected})`;
    }
  }
}

/**
 * A union whose variants are all models with a required string-literal property of the same name
 * (a transaction's `type`) is decoded by dispatching on that property.
 */
function discriminantOf(
  spec: RpcSpec,
  decl: UnionDecl,
): { property: string; tags: [string, string][] } | undefined {
  const models: ModelDecl[] = [];
  for (const variant of decl.variants) {
    const target = variant.type.kind === "ref" ? findDecl(spec, variant.type.name) : undefined;
    if (target?.kind !== "model") return undefined;
    models.push(target);
  }
  for (const candidate of models[0]?.properties ?? []) {
    const tags: [string, string][] = [];
    for (const model of models) {
      const prop = model.properties.find((p) => p.name === candidate.name && !p.optional);
      if (prop?.type.kind !== "literal" || typeof prop.type.value !== "string") break;
      tags.push([prop.type.value, model.name]);
    }
    if (tags.length === models.length && new Set(tags.map(([tag]) => tag)).size === tags.length) {
      return { property: candidate.name, tags };
    }
  }
  return undefined;
}
