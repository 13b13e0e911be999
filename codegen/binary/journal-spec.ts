/** The signed-journal layout spec (spec/journal/journal.layout.json): its model and a strict loader. */
import { readFile } from "node:fs/promises";
import { JournalSpecError } from "../errors.js";

export type JournalElement =
  | { readonly name: string; readonly doc: string; readonly kind: "bytes"; readonly length: number }
  | {
      readonly name: string;
      readonly doc: string;
      readonly kind: "uint";
      readonly bits: 64;
      readonly endianness: "big";
    }
  | { readonly name: string; readonly doc: string; readonly kind: "bytesList"; readonly itemLength: number };

export interface JournalLayout {
  readonly doc: string;
  readonly elements: readonly JournalElement[];
}

export { JournalSpecError };

function fail(where: string, message: string): never {
  throw new JournalSpecError(`${where}: ${message}`);
}

function positiveInt(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    fail(where, "expected a positive integer");
  return value;
}

export function parseJournalLayout(json: unknown): JournalLayout {
  if (typeof json !== "object" || json === null) fail("layout", "expected an object");
  const root = json as Record<string, unknown>;
  if (typeof root.doc !== "string") fail("doc", "expected a string");
  if (!Array.isArray(root.elements)) fail("elements", "expected an array");
  const elements = root.elements.map((raw: unknown, i): JournalElement => {
    const where = `elements[${i}]`;
    if (typeof raw !== "object" || raw === null) fail(where, "expected an object");
    const o = raw as Record<string, unknown>;
    if (typeof o.name !== "string" || !/^[a-z][A-Za-z0-9]*$/.test(o.name))
      fail(`${where}.name`, "expected a camelCase name");
    const base = { name: o.name, doc: typeof o.doc === "string" ? o.doc : o.name };
    switch (o.kind) {
      case "bytes":
        return { ...base, kind: "bytes", length: positiveInt(o.length, `${where}.length`) };
      case "uint":
        if (o.bits !== 64 || o.endianness !== "big")
          fail(where, "only big-endian 64-bit integers are supported");
        return { ...base, kind: "uint", bits: 64, endianness: "big" };
      case "bytesList":
        return { ...base, kind: "bytesList", itemLength: positiveInt(o.itemLength, `${where}.itemLength`) };
      default:
        return fail(`${where}.kind`, `unknown kind ${String(o.kind)}`);
    }
  });
  if (elements.filter((e) => e.kind === "bytesList").length > 1)
    fail("elements", "at most one variable-length element");
  if (new Set(elements.map((e) => e.name)).size !== elements.length) fail("elements", "duplicate names");
  return { doc: root.doc, elements };
}

export async function loadJournalLayout(path: string): Promise<JournalLayout> {
  return parseJournalLayout(JSON.parse(await readFile(path, "utf8")));
}
