/** Emits generated/protocol/: TypeScript types, strict bincode codecs and frame helpers from the protocol spec. */
import { readFile } from "node:fs/promises";
import { type GeneratedFile, runtimeCopy } from "../files.js";
import {
  type FieldSpec,
  type NamedTypeSpec,
  type ProtocolSpec,
  type TypeExpr,
  type VariantSpec,
  PRIMITIVES,
} from "./protocol-spec.js";
import { emitClient } from "./emit-client.js";
import { emitDispatch } from "./emit-dispatch.js";
import { emptySource, literal, toGenerated } from "./source.js";
import { ProtocolSpecError } from "../errors.js";

const VARINT_BITS = { u16: 16, u32: 32, u64: 64 } as const;

function isPrimitive(name: string): boolean {
  return (PRIMITIVES as readonly string[]).includes(name);
}

/** PascalCase -> UPPER_SNAKE_CASE. */
function upperSnake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

function isUnitOnly(variants: readonly VariantSpec[]): boolean {
  return variants.every((v) => v.fields === undefined && v.items === undefined);
}

function variantFields(v: VariantSpec): readonly FieldSpec[] {
  return v.fields ?? v.items ?? [];
}

/** The condition under which a field is on the wire (`on` is the writer or reader), or undefined: always. */
function formCondition(field: FieldSpec, on: "w" | "r"): string | undefined {
  if (field.forms === undefined) return undefined;
  return field.forms.map((form) => `${on}.form === ${literal(form)}`).join(" || ");
}

/** Writes a field, only in the forms that carry it (an optional property then; required in those forms). */
function writeField(compiler: TypeCompiler, field: FieldSpec, value: string, what: string): string {
  const write = compiler.write(field.type, value, what);
  const condition = formCondition(field, "w");
  if (condition === undefined) return write;
  return `if (${condition}) {\nif (${value} === undefined) throw new BincodeEncodeError(\`${what} is required in form \${w.form}\`);\n${write}\n}`;
}

/** Reads a field into a const, undefined in the forms that do not carry it. */
function readField(compiler: TypeCompiler, field: FieldSpec, what: string): string {
  const read = compiler.read(field.type, what);
  const condition = formCondition(field, "r");
  return `const ${field.name} = ${condition === undefined ? read : `${condition} ? ${read} : undefined`};`;
}

/** The properties of a read object: a field some forms lack is left out when it was not read. */
function readProperties(fields: readonly FieldSpec[]): string[] {
  return fields.map((f) =>
    f.forms === undefined ? f.name : `...(${f.name} === undefined ? {} : { ${f.name} })`,
  );
}

/** Whether an enum's wire indices differ from the declaration order in some form. */
function hasFormIndices(variants: readonly VariantSpec[]): boolean {
  return variants.some((v) => v.indexIn !== undefined);
}

/** `w.variant(...)` for the variant declared at `i`, in the writer's form. */
function writeVariant(name: string, t: { readonly variants: readonly VariantSpec[] }, i: number): string {
  return hasFormIndices(t.variants)
    ? `w.variant(${upperSnake(name)}_WIRE_INDEX[w.form]?.[${i}] ?? ${i});`
    : `w.variant(${i});`;
}

/** Type expressions -> TypeScript types, write statements, read expressions and minimal encoded sizes. */
class TypeCompiler {
  private depth = 0;

  constructor(private readonly types: ReadonlyMap<string, NamedTypeSpec>) {}

  private named(name: string): NamedTypeSpec {
    const t = this.types.get(name);
    if (t === undefined) throw new ProtocolSpecError(`unknown type ${name}`);
    return t;
  }

  tsType(expr: TypeExpr): string {
    if (typeof expr === "string") {
      switch (expr) {
        case "u8":
        case "u16":
        case "u32":
          return "number";
        case "u64":
          return "bigint";
        case "bool":
          return "boolean";
        case "string":
          return "string";
        default:
          return expr;
      }
    }
    if (expr.kind === "array" || (expr.kind === "vec" && expr.of === "u8")) return "Uint8Array";
    const inner = this.tsType(expr.of);
    if (expr.kind === "vec") return inner.includes("|") ? `readonly (${inner})[]` : `readonly ${inner}[]`;
    return `${inner} | null`;
  }

  /** The fewest bytes any value of the type encodes to (used to bound collection counts before reading). */
  minBytes(expr: TypeExpr): number {
    if (typeof expr === "string") {
      if (isPrimitive(expr)) return 1;
      const t = this.named(expr);
      switch (t.kind) {
        case "fixedBytes":
          return t.length + (t.lengthPrefixed ? 1 : 0);
        case "bytes":
          return 1;
        case "taggedBytes":
          return t.length - 1 + this.minBytes(t.tag);
        case "struct":
          return t.fields.reduce((sum, f) => sum + this.minFieldBytes(f), 0);
        case "tuple":
          return t.items.reduce((sum, f) => sum + this.minBytes(f.type), 0);
        case "enum":
          return (
            1 +
            Math.min(
              ...t.variants.map((v) => variantFields(v).reduce((sum, f) => sum + this.minFieldBytes(f), 0)),
            )
          );
      }
    }
    if (expr.kind === "array") return expr.length;
    return 1;
  }

  /** A field's fewest bytes: none when some form does not carry it. */
  private minFieldBytes(field: FieldSpec): number {
    return field.forms === undefined ? this.minBytes(field.type) : 0;
  }

  write(expr: TypeExpr, value: string, what: string): string {
    if (typeof expr === "string") {
      switch (expr) {
        case "u8":
          return `w.u8(${value});`;
        case "u16":
        case "u32":
          return `w.varint(BigInt(${value}), ${VARINT_BITS[expr]});`;
        case "u64":
          return `w.varint(${value}, 64);`;
        case "bool":
          return `w.u8(${value} ? 1 : 0);`;
        case "string":
          return `w.string(${value});`;
        default:
          return `write${expr}(w, ${value});`;
      }
    }
    if (expr.kind === "array") return `w.fixedArray(${value}, ${expr.length}, ${literal(what)});`;
    const cap = expr.kind === "vec" && expr.maxItems !== undefined ? expr.maxItems : undefined;
    if (expr.kind === "vec" && expr.of === "u8") {
      return cap === undefined ? `w.bytes(${value});` : `w.bytes(${value}, ${cap}, ${literal(what)});`;
    }
    const name = `${expr.kind === "vec" ? "item" : "some"}${this.depth++}`;
    const body = this.write(expr.of, name, what);
    this.depth--;
    return expr.kind === "vec"
      ? `w.vec(${value}, (${name}) => {\n${body}\n}${cap === undefined ? "" : `, ${cap}, ${literal(what)}`});`
      : `w.option(${value}, (${name}) => {\n${body}\n});`;
  }

  read(expr: TypeExpr, what: string): string {
    if (typeof expr === "string") {
      switch (expr) {
        case "u8":
          return "r.u8()";
        case "u16":
        case "u32":
          return `Number(r.varint(${VARINT_BITS[expr]}))`;
        case "u64":
          return "r.varint(64)";
        case "bool":
          return `r.bool(${literal(what)})`;
        case "string":
          return `r.string(${literal(what)})`;
        default:
          return `read${expr}(r)`;
      }
    }
    if (expr.kind === "array") return `r.raw(${expr.length})`;
    const cap = expr.kind === "vec" && expr.maxItems !== undefined ? `, ${expr.maxItems}` : "";
    if (expr.kind === "vec" && expr.of === "u8") return `r.bytes(${literal(what)}${cap})`;
    if (expr.kind === "vec")
      return `r.vec(${this.minBytes(expr.of)}, ${literal(what)}, () => ${this.read(expr.of, `${what}[]`)}${cap})`;
    return `r.option(${literal(what)}, () => ${this.read(expr.of, what)})`;
  }
}

function emitTypes(spec: ProtocolSpec, compiler: TypeCompiler): GeneratedFile {
  const path = "protocol/types.ts";
  const sf = emptySource(path);
  sf.addStatements(`/** ${spec.doc} */`);
  const models = [...spec.types].filter(([, t]) => modelName(t) !== undefined);
  if (models.length > 0)
    sf.addImportDeclaration({
      leadingTrivia:
        "// The prover's data model is generated once, from spec/typespec, into generated/rpc; the frames carry it as is.\n",
      isTypeOnly: true,
      namedImports: models.map(([name, t]) =>
        modelName(t) === name ? name : { name: modelName(t)!, alias: name },
      ),
      moduleSpecifier: "../rpc/index.js",
    });
  if (models.length > 0)
    sf.addExportDeclaration({ isTypeOnly: true, namedExports: models.map(([name]) => name) });
  for (const [name, t] of spec.types) {
    if (modelName(t) !== undefined) continue;
    switch (t.kind) {
      case "fixedBytes":
        sf.addTypeAlias({
          name,
          isExported: true,
          type: "Uint8Array",
          docs: [`${t.length} bytes. ${t.doc}`],
        });
        sf.addStatements(
          `/** Length of a ${name} in bytes. */\nexport const ${upperSnake(name)}_LENGTH = ${t.length};`,
        );
        break;
      case "bytes":
        sf.addTypeAlias({ name, isExported: true, type: "Uint8Array", docs: [t.doc] });
        break;
      case "taggedBytes":
        sf.addTypeAlias({
          name,
          isExported: true,
          type: "Uint8Array",
          docs: [`${t.length} bytes, the first the discriminant of a ${t.tag}. ${t.doc}`],
        });
        sf.addStatements(
          `/** Length of a ${name} in bytes. */\nexport const ${upperSnake(name)}_LENGTH = ${t.length};`,
        );
        break;
      case "struct":
        sf.addInterface({
          name,
          isExported: true,
          docs: [t.doc],
          properties: t.fields.map((f) => ({
            name: f.name,
            type: compiler.tsType(f.type),
            isReadonly: true,
            hasQuestionToken: f.forms !== undefined,
            docs: [
              `Wire field \`${f.name}\`${f.forms === undefined ? "" : ` (forms ${f.forms.join(", ")} only)`}.`,
            ],
          })),
        });
        break;
      case "tuple":
        sf.addTypeAlias({
          name,
          isExported: true,
          docs: [t.doc],
          type: `readonly [${t.items.map((f) => `${f.name}: ${compiler.tsType(f.type)}`).join(", ")}]`,
        });
        break;
      case "enum":
        if (isUnitOnly(t.variants)) {
          sf.addTypeAlias({
            name,
            isExported: true,
            docs: [t.doc],
            type: t.variants.map((v) => literal(v.name)).join(" | "),
          });
          sf.addStatements(
            `/** The variants of ${name} in declaration order: the index is the wire variant index. */\nexport const ${upperSnake(name)}_VARIANTS: readonly ${name}[] = [${t.variants.map((v) => literal(v.name)).join(", ")}];`,
          );
          if (t.variants.every((v) => v.discriminant !== undefined)) {
            sf.addStatements(
              `/** Rust discriminant of each variant (not its wire index). */\nexport const ${upperSnake(name)}_DISCRIMINANTS: Readonly<Record<${name}, number>> = {\n${t.variants.map((v) => `${v.name}: ${v.discriminant},`).join("\n")}\n};`,
            );
            sf.addFunction({
              name: `${lowerFirst(name)}FromDiscriminant`,
              isExported: true,
              docs: [`The variant whose discriminant is \`discriminant\`, or undefined.`],
              parameters: [{ name: "discriminant", type: "number" }],
              returnType: `${name} | undefined`,
              statements: `switch (discriminant) {\n${t.variants.map((v) => `case ${v.discriminant}:\nreturn ${literal(v.name)};`).join("\n")}\ndefault:\nreturn undefined;\n}`,
            });
          }
        } else {
          for (const v of t.variants) {
            sf.addInterface({
              name: `${name}${v.name}`,
              isExported: true,
              docs: [
                `${name}::${v.name} (variant index ${t.variants.indexOf(v)}${Object.entries(v.indexIn ?? {})
                  .map(([form, index]) => `, ${index} in form ${form}`)
                  .join("")}).`,
              ],
              properties: [
                { name: "kind", type: literal(v.name), isReadonly: true },
                ...variantFields(v).map((f) => ({
                  name: f.name,
                  type: compiler.tsType(f.type),
                  isReadonly: true,
                  hasQuestionToken: f.forms !== undefined,
                })),
              ],
            });
          }
          sf.addTypeAlias({
            name,
            isExported: true,
            docs: [t.doc],
            type: t.variants.map((v) => `${name}${v.name}`).join(" | "),
          });
        }
        break;
    }
  }
  sf.addStatements(
    [
      `/**\n * The protocol's message forms:\n${spec.forms.map((f) => ` * - ${f.name}: ${f.doc}`).join("\n")}\n */`,
      `export type ProtocolForm = ${spec.forms.map((f) => literal(f.name)).join(" | ")};`,
      `/** Every form, the default first. */`,
      `export const PROTOCOL_FORMS: readonly ProtocolForm[] = [${spec.forms.map((f) => literal(f.name)).join(", ")}];`,
      `/** The default form: variant indices in declaration order. */`,
      `export const DEFAULT_PROTOCOL_FORM: ProtocolForm = ${literal(spec.forms[0]!.name)};`,
    ].join("\n"),
  );
  sf.formatText({ indentSize: 2 });
  return toGenerated(path, sf);
}

/** The generated/rpc model a struct or enum is, if any. */
function modelName(t: NamedTypeSpec): string | undefined {
  return t.kind === "struct" || t.kind === "enum" ? t.model : undefined;
}

/** An externally tagged enum (a model's): `{ Variant: { fields } }`, as its JSON is. */
function isExternallyTagged(t: NamedTypeSpec): boolean {
  return t.kind === "enum" && t.model !== undefined;
}

function writeBody(name: string, t: NamedTypeSpec, compiler: TypeCompiler): string {
  switch (t.kind) {
    case "fixedBytes":
      return t.lengthPrefixed
        ? `w.fixedBytesWithLength(value, ${t.length}, ${literal(name)});`
        : `w.fixedArray(value, ${t.length}, ${literal(name)});`;
    case "bytes":
      return "w.bytes(value);";
    case "taggedBytes":
      return [
        `if (value.length !== ${t.length}) throw new BincodeEncodeError(\`${name} must be ${t.length} bytes, got \${value.length}\`);`,
        `const tag = ${lowerFirst(t.tag)}FromDiscriminant(value[0]!);`,
        `if (tag === undefined) throw new BincodeEncodeError(\`${name}: unknown ${t.tag} byte \${value[0]}\`);`,
        `w.raw(value.subarray(1));`,
        `write${t.tag}(w, tag);`,
      ].join("\n");
    case "struct":
      return t.fields.map((f) => writeField(compiler, f, `value.${f.name}`, `${name}.${f.name}`)).join("\n");
    case "tuple":
      return t.items.map((f, i) => compiler.write(f.type, `value[${i}]`, `${name}.${f.name}`)).join("\n");
    case "enum": {
      if (isUnitOnly(t.variants)) {
        const cases = t.variants
          .map((v, i) => `case ${literal(v.name)}:\n${writeVariant(name, t, i)}\nreturn;`)
          .join("\n");
        return `switch (value) {\n${cases}\ndefault:\nthrow new BincodeEncodeError(\`${name}: unknown variant \${String(value)}\`);\n}`;
      }
      if (isExternallyTagged(t)) {
        const branches = t.variants.map((v, i) => {
          const fields = variantFields(v).map((f) =>
            writeField(compiler, f, `inner.${f.name}`, `${name}::${v.name}.${f.name}`),
          );
          return `if (${literal(v.name)} in value) {\nconst inner = value.${v.name};\n${writeVariant(name, t, i)}\n${fields.join("\n")}\nreturn;\n}`;
        });
        return `${branches.join("\n")}\nthrow new BincodeEncodeError(\`${name}: no known variant in \${Object.keys(value).join(", ")}\`);`;
      }
      const cases = t.variants
        .map((v, i) => {
          const fields = variantFields(v).map((f) =>
            writeField(compiler, f, `value.${f.name}`, `${name}::${v.name}.${f.name}`),
          );
          return `case ${literal(v.name)}:\n${writeVariant(name, t, i)}\n${fields.join("\n")}${fields.length > 0 ? "\n" : ""}return;`;
        })
        .join("\n");
      return `switch (value.kind) {\n${cases}\ndefault:\nthrow new BincodeEncodeError(\`${name}: unknown variant \${String((value as { kind: unknown }).kind)}\`);\n}`;
    }
  }
}

function readBody(name: string, t: NamedTypeSpec, compiler: TypeCompiler): string {
  switch (t.kind) {
    case "fixedBytes":
      return t.lengthPrefixed
        ? `return r.fixedBytesWithLength(${t.length}, ${literal(name)});`
        : `return r.raw(${t.length});`;
    case "bytes":
      return `return r.bytes(${literal(name)});`;
    case "taggedBytes":
      return `const value = new Uint8Array(${t.length});\nread${name}Into(r, value, 0);\nreturn value;`;
    case "struct": {
      const reads = t.fields.map((f) => readField(compiler, f, `${name}.${f.name}`));
      return `${reads.join("\n")}\nreturn { ${readProperties(t.fields).join(", ")} };`;
    }
    case "tuple": {
      const reads = t.items.map((f) => `const ${f.name} = ${compiler.read(f.type, `${name}.${f.name}`)};`);
      return `${reads.join("\n")}\nreturn [${t.items.map((f) => f.name).join(", ")}];`;
    }
    case "enum": {
      const wireName = hasFormIndices(t.variants) ? "wire" : "index";
      const unknown = `default:\nreturn r.failAt(start, \`${name}: unknown variant index \${${wireName}}\`);`;
      const cases = t.variants.map((v, i) => {
        if (isUnitOnly(t.variants)) return `case ${i}:\nreturn ${literal(v.name)};`;
        const fields = variantFields(v);
        const reads = fields.map((f) => readField(compiler, f, `${name}::${v.name}.${f.name}`));
        if (isExternallyTagged(t))
          return `case ${i}: {\n${reads.join("\n")}\nreturn { ${v.name}: { ${readProperties(fields).join(", ")} } };\n}`;
        const props = [`kind: ${literal(v.name)}`, ...readProperties(fields)].join(", ");
        return `case ${i}: {\n${reads.join("\n")}${reads.length > 0 ? "\n" : ""}return { ${props} };\n}`;
      });
      const index = hasFormIndices(t.variants)
        ? `const wire = r.variant();\nconst order = ${upperSnake(name)}_WIRE_INDEX[r.form];\nconst index = order === undefined ? wire : order.indexOf(wire);`
        : "const index = r.variant();";
      return `const start = r.position;\n${index}\nswitch (index) {\n${cases.join("\n")}\n${unknown}\n}`;
    }
  }
}

function emitCodec(spec: ProtocolSpec, compiler: TypeCompiler): GeneratedFile {
  const path = "protocol/codec.ts";
  const sf = emptySource(path);
  sf.addStatements(
    "/** Strict bincode codecs for every protocol type: decode rejects truncation, trailing bytes, unknown variants, bad tags and over-long lengths. */",
  );
  sf.addImportDeclaration({
    moduleSpecifier: "./bincode.js",
    namedImports: ["BincodeEncodeError", "BincodeReader", "BincodeWriter"],
  });
  sf.addImportDeclaration({
    moduleSpecifier: "./types.js",
    isTypeOnly: true,
    namedImports: [...spec.types.keys(), "ProtocolForm"],
  });
  const tags = [...spec.types.values()].flatMap((t) => (t.kind === "taggedBytes" ? [t.tag] : []));
  sf.addImportDeclaration({
    moduleSpecifier: "./types.js",
    namedImports: [
      "DEFAULT_PROTOCOL_FORM",
      ...[...new Set(tags)].flatMap((tag) => [
        `${upperSnake(tag)}_DISCRIMINANTS`,
        `${lowerFirst(tag)}FromDiscriminant`,
      ]),
    ],
  });
  for (const [name, t] of spec.types) {
    if (t.kind !== "enum" || !hasFormIndices(t.variants)) continue;
    const tables = spec.forms
      .slice(1)
      .map((form) => `${form.name}: [${t.variants.map((v, i) => v.indexIn?.[form.name] ?? i).join(", ")}],`);
    sf.addStatements(
      `/** ${name}: each form's wire index of the variants in declaration order (the default form's is the order itself). */\nconst ${upperSnake(name)}_WIRE_INDEX: Readonly<Record<string, readonly number[]>> = {\n${tables.join("\n")}\n};`,
    );
  }
  for (const [name, t] of spec.types) {
    sf.addFunction({
      name: `write${name}`,
      isExported: true,
      docs: [`Appends a ${name} to a bincode writer.`],
      parameters: [
        { name: "w", type: "BincodeWriter" },
        { name: "value", type: name },
      ],
      returnType: "void",
      statements: writeBody(name, t, compiler),
    });
    sf.addFunction({
      name: `read${name}`,
      isExported: true,
      docs: [`Reads a ${name} from a bincode reader (throws BincodeDecodeError).`],
      parameters: [{ name: "r", type: "BincodeReader" }],
      returnType: name,
      statements: readBody(name, t, compiler),
    });
    if (t.kind === "taggedBytes")
      sf.addFunction({
        name: `read${name}Into`,
        isExported: true,
        docs: [
          `Reads a ${name} into \`out\` at \`at\` (${t.length} bytes, the ${t.tag} byte first) without allocating (throws BincodeDecodeError).`,
        ],
        parameters: [
          { name: "r", type: "BincodeReader" },
          { name: "out", type: "Uint8Array" },
          { name: "at", type: "number" },
        ],
        returnType: "void",
        statements: `r.rawInto(out, at + 1, ${t.length - 1});\nout[at] = ${upperSnake(t.tag)}_DISCRIMINANTS[read${t.tag}(r)];`,
      });
    sf.addFunction({
      name: `encode${name}`,
      isExported: true,
      docs: [`A ${name} as a complete bincode payload in \`form\` (default: the default form).`],
      parameters: [
        { name: "value", type: name },
        { name: "form", type: "ProtocolForm", initializer: "DEFAULT_PROTOCOL_FORM" },
      ],
      returnType: "Uint8Array",
      statements: `const w = new BincodeWriter(form);\nwrite${name}(w, value);\nreturn w.finish();`,
    });
    sf.addFunction({
      name: `decode${name}`,
      isExported: true,
      docs: [
        `Decodes a complete payload holding exactly one ${name} in \`form\`; trailing bytes are an error.`,
      ],
      parameters: [
        { name: "bytes", type: "Uint8Array" },
        { name: "form", type: "ProtocolForm", initializer: "DEFAULT_PROTOCOL_FORM" },
      ],
      returnType: name,
      statements: `const r = new BincodeReader(bytes, form);\nconst value = read${name}(r);\nr.end();\nreturn value;`,
    });
  }
  sf.formatText({ indentSize: 2 });
  return toGenerated(path, sf);
}

function emitFrame(spec: ProtocolSpec): GeneratedFile {
  const path = "protocol/frame.ts";
  const f = spec.frame;
  const sf = emptySource(path);
  sf.addStatements(
    "/** Frames of the host-enclave protocol, bound to the limits of spec/protocol/enclave.protocol.json. */",
  );
  sf.addImportDeclaration({
    moduleSpecifier: "./codec.js",
    namedImports: [
      `decode${f.requestMessage}`,
      `decode${f.responseMessage}`,
      `encode${f.requestMessage}`,
      `encode${f.responseMessage}`,
    ],
  });
  sf.addImportDeclaration({
    moduleSpecifier: "./frame-runtime.js",
    namedImports: ["FrameReader", "encodeFrameWithLimit", "splitIntoChunks"],
  });
  sf.addImportDeclaration({
    moduleSpecifier: "./types.js",
    isTypeOnly: true,
    namedImports: [f.requestMessage, f.responseMessage, "ProtocolForm"],
  });
  sf.addImportDeclaration({ moduleSpecifier: "./types.js", namedImports: ["DEFAULT_PROTOCOL_FORM"] });
  const constants: [string, number, string][] = [
    ["FRAME_LENGTH_PREFIX_BYTES", f.lengthPrefixBytes, "Width of the big-endian unsigned length prefix."],
    [
      "MAX_REQUEST_PAYLOAD_BYTES",
      f.maxRequestPayloadBytes,
      "Largest request payload an enclave accepts; larger prefixes are refused before reading.",
    ],
    [
      "MAX_RESPONSE_PAYLOAD_BYTES",
      f.maxResponsePayloadBytes,
      "Largest response payload a host accepts; larger prefixes are refused before reading.",
    ],
    ["MAX_WRITE_CHUNK_BYTES", f.maxWriteChunkBytes, "Every write of a frame is at most this many bytes."],
    ["READ_TIMEOUT_MS", f.readTimeoutMs, "A frame must complete within this time."],
    [
      "REQUESTS_PER_CONNECTION",
      f.requestsPerConnection,
      "Requests served on one connection before it is closed.",
    ],
  ];
  for (const [name, value, doc] of constants) {
    sf.addStatements(`/** ${doc} */\nexport const ${name} = ${value};`);
  }
  const fn = (name: string, doc: string, params: string, returns: string, body: string) =>
    sf.addStatements(`/** ${doc} */\nexport function ${name}(${params}): ${returns} {\n${body}\n}`);
  fn(
    "encodeRequestFrame",
    "A request as a complete frame (prefix and payload).",
    `request: ${f.requestMessage}, form: ProtocolForm = DEFAULT_PROTOCOL_FORM`,
    "Uint8Array",
    `return encodeFrameWithLimit(encode${f.requestMessage}(request, form), MAX_REQUEST_PAYLOAD_BYTES);`,
  );
  fn(
    "encodeResponseFrame",
    "A response as a complete frame (prefix and payload).",
    `response: ${f.responseMessage}, form: ProtocolForm = DEFAULT_PROTOCOL_FORM`,
    "Uint8Array",
    `return encodeFrameWithLimit(encode${f.responseMessage}(response, form), MAX_RESPONSE_PAYLOAD_BYTES);`,
  );
  fn(
    "decodeRequestPayload",
    "Decodes the payload of a request frame (throws BincodeDecodeError).",
    "payload: Uint8Array, form: ProtocolForm = DEFAULT_PROTOCOL_FORM",
    f.requestMessage,
    `return decode${f.requestMessage}(payload, form);`,
  );
  fn(
    "decodeResponsePayload",
    "Decodes the payload of a response frame (throws BincodeDecodeError).",
    "payload: Uint8Array, form: ProtocolForm = DEFAULT_PROTOCOL_FORM",
    f.responseMessage,
    `return decode${f.responseMessage}(payload, form);`,
  );
  fn(
    "newRequestFrameReader",
    "A reader for the one request frame of a connection (enclave side); `admit` may refuse an announced length.",
    "maxPayloadBytes: number = MAX_REQUEST_PAYLOAD_BYTES, admit?: (announcedLength: number) => void",
    "FrameReader",
    "return new FrameReader(Math.min(maxPayloadBytes, MAX_REQUEST_PAYLOAD_BYTES), admit);",
  );
  fn(
    "newResponseFrameReader",
    "A reader for the one response frame of a connection (host side); `admit` may refuse an announced length.",
    "maxPayloadBytes: number = MAX_RESPONSE_PAYLOAD_BYTES, admit?: (announcedLength: number) => void",
    "FrameReader",
    "return new FrameReader(Math.min(maxPayloadBytes, MAX_RESPONSE_PAYLOAD_BYTES), admit);",
  );
  fn(
    "frameWriteChunks",
    "A frame split into the writes the transport performs (each at most MAX_WRITE_CHUNK_BYTES).",
    "frame: Uint8Array",
    "Uint8Array[]",
    "return splitIntoChunks(frame, MAX_WRITE_CHUNK_BYTES);",
  );
  sf.formatText({ indentSize: 2 });
  return toGenerated(path, sf);
}

function emitIndex(): GeneratedFile {
  const path = "protocol/index.ts";
  const sf = emptySource(path);
  sf.addStatements(
    [
      "/**",
      " * The host-enclave protocol (foundation, rank 0.5; generated from spec/protocol by codegen/binary).",
      " *",
      " * Public surface: the message types and their bincode codecs (`BincodeReader` / `BincodeWriter` and the",
      " * per-message codecs), the frames (`FrameReader`, the frame writers and `FRAME_PREFIX_BYTES`), the enclave",
      " * client and the request dispatch, and the errors (`ProtocolError` root, frame and bincode errors).",
      " *",
      " * Concepts owned: the bincode form of every host-enclave message and its frame.",
      " */",
      'export { BincodeDecodeError, BincodeEncodeError, BincodeReader, BincodeWriter } from "./bincode.js";',
      'export * from "./client.js";',
      'export * from "./codec.js";',
      'export * from "./dispatch.js";',
      'export * from "./frame.js";',
      "export {",
      "  FRAME_PREFIX_BYTES,",
      "  FrameError,",
      "  type FrameErrorKind,",
      "  FrameReader,",
      "  FrameTooLargeError,",
      '} from "./frame-runtime.js";',
      'export { ProtocolError, type ProtocolErrorDetails, type ProtocolErrorOptions } from "./protocol-error.js";',
      'export * from "./types.js";',
    ].join("\n"),
  );
  return toGenerated(path, sf);
}

async function copyRuntime(name: string, target: string): Promise<GeneratedFile> {
  const source = await readFile(new URL(`./runtime/${name}`, import.meta.url), "utf8");
  return {
    path: target,
    content: runtimeCopy(source, `// Copied from codegen/binary/runtime/${name}.\n`),
  };
}

export async function emitProtocol(spec: ProtocolSpec): Promise<GeneratedFile[]> {
  const compiler = new TypeCompiler(spec.types);
  const types = emitTypes(spec, compiler);
  return [
    types,
    emitCodec(spec, compiler),
    emitFrame(spec),
    emitDispatch(spec),
    emitClient(spec, (expr) => compiler.tsType(expr)),
    emitIndex(),
    await copyRuntime("bincode.ts", "protocol/bincode.ts"),
    await copyRuntime("frame.ts", "protocol/frame-runtime.ts"),
    await copyRuntime("protocol-error.ts", "protocol/protocol-error.ts"),
  ];
}
