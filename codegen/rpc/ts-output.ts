/** Shared helpers of the TypeScript emitters: the ts-morph project, formatting, names and type expressions. */
import { IndentationText, NewLineKind, Project, QuoteKind, type SourceFile } from "ts-morph";
import { GENERATED_HEADER, type GeneratedFile } from "../files.js";
import type { ScalarCodecKind, WireType } from "./model.js";

/** An in-memory ts-morph project configured for the repository's style. */
export function createProject(): Project {
  return new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      quoteKind: QuoteKind.Double,
      newLineKind: NewLineKind.LineFeed,
      useTrailingCommas: true,
    },
  });
}

/** Formats a source file and returns it as a generated file under generated/rpc/. */
export function renderSourceFile(file: SourceFile, name: string): GeneratedFile {
  file.formatText({ indentSize: 2, convertTabsToSpaces: true, ensureNewLineAtEndOfFile: true });
  return { path: `rpc/${name}`, content: GENERATED_HEADER + spaceTopLevelStatements(file.getFullText()) };
}

/** Puts a blank line between top-level statements and collapses empty blocks (`{\n}` -> `{}`). */
function spaceTopLevelStatements(text: string): string {
  const lines = text.replace(/\{\n\s*\}/g, "{}").split("\n");
  const out: string[] = [];
  for (const line of lines) {
    const previous = out[out.length - 1];
    const startsStatement = line.startsWith("/**") || line.startsWith("export ");
    if (startsStatement && previous !== undefined && previous.endsWith(";") && !previous.startsWith(" "))
      out.push("");
    out.push(line);
  }
  return out.join("\n");
}

/** Decoded (internal) TypeScript type of each scalar codec. */
export const DECODED_SCALAR: Record<ScalarCodecKind, string> = {
  uint: "bigint",
  uintNumber: "number",
  bytes: "Uint8Array",
  storageKey: "Uint8Array",
  jsonUint: "bigint",
  byteArray: "Uint8Array",
  decimal: "bigint",
};

/** Wire (JSON) TypeScript type of each scalar codec. */
export const JSON_SCALAR: Record<ScalarCodecKind, string> = {
  uint: "string",
  uintNumber: "string",
  bytes: "string",
  storageKey: "string",
  jsonUint: "number",
  byteArray: "number[]",
  decimal: "string",
};

export const jsonTypeName = (name: string): string => `${name}Json`;
export const codecName = (name: string): string => `${name}Codec`;

/** `eth_getBlockByNumber` -> `EthGetBlockByNumber`. */
export function pascalCase(name: string): string {
  return name
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

/** The TypeScript type of a wire type, decoded or as JSON; `prefix` qualifies named types (e.g. "T."). */
export function typeExpression(type: WireType, form: "decoded" | "json", prefix = ""): string {
  switch (type.kind) {
    case "ref":
      return prefix + (form === "decoded" ? type.name : jsonTypeName(type.name));
    case "string":
    case "boolean":
    case "number":
    case "null":
      return type.kind;
    case "literal":
      return JSON.stringify(type.value);
    case "array": {
      const items = typeExpression(type.items, form, prefix);
      return type.items.kind === "union" ? `(${items})[]` : `${items}[]`;
    }
    case "record":
      return `Record<string, ${typeExpression(type.values, form, prefix)}>`;
    case "union":
      return type.variants.map((v) => typeExpression(v, form, prefix)).join(" | ");
  }
}

/** An expression building the codec of a wire type; `wire` is the runtime module, `prefix` qualifies named codecs. */
export function codecExpression(type: WireType, prefix = ""): string {
  switch (type.kind) {
    case "ref":
      return prefix + codecName(type.name);
    case "string":
      return "wire.string";
    case "boolean":
      return "wire.boolean";
    case "number":
      return type.integer === undefined && type.minimum === undefined && type.maximum === undefined
        ? "wire.number"
        : `wire.boundedNumber(${JSON.stringify({
            ...(type.integer === undefined ? {} : { integer: type.integer }),
            ...(type.minimum === undefined ? {} : { minimum: type.minimum }),
            ...(type.maximum === undefined ? {} : { maximum: type.maximum }),
          })})`;
    case "null":
      return "wire.nullValue";
    case "literal":
      return `wire.literal(${JSON.stringify(type.value)})`;
    case "array":
      return `wire.array(${codecExpression(type.items, prefix)})`;
    case "record":
      return `wire.record(${codecExpression(type.values, prefix)})`;
    case "union":
      return `wire.union([${type.variants.map((v) => codecExpression(v, prefix)).join(", ")}])`;
  }
}

/** JSDoc for an optional doc string. */
export function docs(doc: string | undefined): string[] {
  return doc === undefined ? [] : [doc];
}
