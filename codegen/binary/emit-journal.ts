/** Emits generated/journal/: the signed-journal type, packer and unpacker from the layout spec. */
import { ERROR_ROOT_FROM_GENERATED, type GeneratedFile } from "../files.js";
import type { JournalElement, JournalLayout } from "./journal-spec.js";
import { emptySource, literal, toGenerated } from "./source.js";

function tsType(e: JournalElement): string {
  switch (e.kind) {
    case "bytes":
      return "Uint8Array";
    case "uint":
      return "bigint";
    case "bytesList":
      return "readonly Uint8Array[]";
  }
}

function fixedWidth(e: JournalElement): number {
  switch (e.kind) {
    case "bytes":
      return e.length;
    case "uint":
      return e.bits / 8;
    case "bytesList":
      return 0;
  }
}

function describe(e: JournalElement): string {
  switch (e.kind) {
    case "bytes":
      return `${e.length} bytes`;
    case "uint":
      return `u${e.bits}, ${e.bits / 8} bytes big-endian`;
    case "bytesList":
      return `${e.itemLength} bytes each`;
  }
}

function packStatements(e: JournalElement): string {
  const field = `journal.${e.name}`;
  switch (e.kind) {
    case "bytes":
      return `out.set(exactBytes(${field}, ${e.length}, ${literal(e.name)}), at);\nat += ${e.length};`;
    case "uint":
      return `view.setBigUint64(at, u64(${field}, ${literal(e.name)}), false);\nat += 8;`;
    case "bytesList":
      return `for (const item of ${field}) {\nout.set(exactBytes(item, ${e.itemLength}, ${literal(`${e.name}[]`)}), at);\nat += ${e.itemLength};\n}`;
  }
}

function unpackStatements(e: JournalElement, list: JournalElement | undefined): string {
  switch (e.kind) {
    case "bytes":
      return `const ${e.name} = bytes.slice(at, at + ${e.length});\nat += ${e.length};`;
    case "uint":
      return `const ${e.name} = view.getBigUint64(at, false);\nat += 8;`;
    case "bytesList": {
      if (list === undefined) throw new Error("unreachable");
      return `const ${e.name}: Uint8Array[] = [];\nfor (let i = 0; i < count; i++) {\n${e.name}.push(bytes.slice(at, at + ${e.itemLength}));\nat += ${e.itemLength};\n}`;
    }
  }
}

export function emitJournal(layout: JournalLayout): GeneratedFile[] {
  const path = "journal/journal.ts";
  const sf = emptySource(path);
  sf.addImportDeclaration({ moduleSpecifier: ERROR_ROOT_FROM_GENERATED, namedImports: ["SuiteError"] });
  const list = layout.elements.find((e) => e.kind === "bytesList");
  const fixed = layout.elements.reduce((sum, e) => sum + fixedWidth(e), 0);
  const itemLength = list?.kind === "bytesList" ? list.itemLength : 0;
  sf.addStatements(`/** ${layout.doc} */`);
  sf.addInterface({
    name: "Journal",
    isExported: true,
    docs: [`The signed journal, elements in packing order.`],
    properties: layout.elements.map((e) => ({
      name: e.name,
      type: tsType(e),
      isReadonly: true,
      docs: [`${describe(e)}. ${e.doc}`],
    })),
  });
  sf.addStatements(
    `/** Bytes of a journal without variable-length elements. */\nexport const JOURNAL_FIXED_LENGTH = ${fixed};`,
  );
  if (list !== undefined) {
    sf.addStatements(
      `/** Bytes of one \`${list.name}\` entry. */\nexport const JOURNAL_LIST_ITEM_LENGTH = ${itemLength};`,
    );
  }
  sf.addStatements(`/**
 * Root of the journal code's errors: the project's one error root, SuiteError (src/errors), for the journal
 * package (a machine-readable \`kind\`, structured \`details\`, the standard \`cause\` and \`walk()\`).
 */
export abstract class JournalError<Kind extends string = string> extends SuiteError<Kind> {
  readonly package = "journal";
}

/** A journal value that cannot be packed, or bytes that are not a journal. */
export class JournalLayoutError extends JournalError<"layout-violated"> {
  constructor(message: string) {
    super(message, { kind: "layout-violated" });
  }
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;

function exactBytes(value: Uint8Array, length: number, what: string): Uint8Array {
  if (!(value instanceof Uint8Array) || value.length !== length) {
    throw new JournalLayoutError(\`\${what} must be \${length} bytes, got \${value instanceof Uint8Array ? value.length : typeof value}\`);
  }
  return value;
}

function u64(value: bigint, what: string): bigint {
  if (typeof value !== "bigint" || value < 0n || value > U64_MAX) throw new JournalLayoutError(\`\${what} must be a u64, got \${String(value)}\`);
  return value;
}`);
  const count = list === undefined ? "0" : `${list.name}Count`;
  sf.addStatements(
    `/** The packed length of a journal${list === undefined ? "" : ` with \`${count}\` ${list.name}`}. */\nexport function journalLength(${list === undefined ? "" : `${count}: number`}): number {\nreturn JOURNAL_FIXED_LENGTH${list === undefined ? "" : ` + JOURNAL_LIST_ITEM_LENGTH * ${count}`};\n}`,
  );
  sf.addStatements(
    `/** Packs a journal (throws JournalLayoutError for a wrong-sized element). */\nexport function packJournal(journal: Journal): Uint8Array {\nconst out = new Uint8Array(journalLength(${list === undefined ? "" : `journal.${list.name}.length`}));\nconst view = new DataView(out.buffer);\nlet at = 0;\n${layout.elements.map(packStatements).join("\n")}\nreturn out;\n}`,
  );
  const lengthCheck =
    list === undefined
      ? `if (bytes.length !== JOURNAL_FIXED_LENGTH) throw new JournalLayoutError(\`a journal is \${JOURNAL_FIXED_LENGTH} bytes, got \${bytes.length}\`);`
      : `if (bytes.length < JOURNAL_FIXED_LENGTH || (bytes.length - JOURNAL_FIXED_LENGTH) % JOURNAL_LIST_ITEM_LENGTH !== 0) {\nthrow new JournalLayoutError(\`a journal is \${JOURNAL_FIXED_LENGTH} + \${JOURNAL_LIST_ITEM_LENGTH}*N bytes, got \${bytes.length}\`);\n}\nconst count = (bytes.length - JOURNAL_FIXED_LENGTH) / JOURNAL_LIST_ITEM_LENGTH;`;
  sf.addStatements(
    `/** Unpacks journal bytes (throws JournalLayoutError unless the length is ${fixed}${list === undefined ? "" : ` + ${itemLength}*N`}). */\nexport function unpackJournal(bytes: Uint8Array): Journal {\n${lengthCheck}\nconst view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);\nlet at = 0;\n${layout.elements.map((e) => unpackStatements(e, list)).join("\n")}\nreturn { ${layout.elements.map((e) => e.name).join(", ")} };\n}`,
  );
  sf.formatText({ indentSize: 2 });
  const index = emptySource("journal/index.ts");
  index.addStatements(
    [
      "/**",
      " * The signed journal (foundation; generated from spec/journal by codegen/binary).",
      " *",
      " * Public surface: `Journal`, `packJournal` / `unpackJournal`, `journalLength`, the layout constants",
      " * (`JOURNAL_FIXED_LENGTH`, `JOURNAL_LIST_ITEM_LENGTH`) and `JournalLayoutError`.",
      " *",
      " * Concepts owned: the journal's byte layout (what the enclave signs and the contracts hash).",
      " */",
      'export * from "./journal.js";',
    ].join("\n"),
  );
  return [toGenerated(path, sf), toGenerated("journal/index.ts", index)];
}
