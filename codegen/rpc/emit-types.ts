/** Emits generated/rpc/types.ts: a decoded type and a JSON wire type per named spec type. */
import type { SourceFile } from "ts-morph";
import type { GeneratedFile } from "../files.js";
import type { Decl, RpcSpec } from "./model.js";
import {
  createProject,
  DECODED_SCALAR,
  docs,
  JSON_SCALAR,
  jsonTypeName,
  renderSourceFile,
  typeExpression,
} from "./ts-output.js";

export function emitTypes(spec: RpcSpec): GeneratedFile {
  const file = createProject().createSourceFile("types.ts");
  file.addStatements([
    "// Decoded types (`Block`) are what handlers and clients work with: quantities are bigint, byte",
    "// strings Uint8Array. JSON types (`BlockJson`) are the exact wire form.",
  ]);
  for (const decl of spec.decls) {
    for (const form of ["decoded", "json"] as const) emitDecl(file, decl, form);
  }
  return renderSourceFile(file, "types.ts");
}

function emitDecl(file: SourceFile, decl: Decl, form: "decoded" | "json"): void {
  const name = form === "decoded" ? decl.name : jsonTypeName(decl.name);
  const doc = docs(form === "decoded" ? decl.doc : `Wire form of {@link ${decl.name}}.`);
  switch (decl.kind) {
    case "scalar":
      file.addTypeAlias({
        name,
        isExported: true,
        docs: doc,
        type: form === "decoded" ? DECODED_SCALAR[decl.codec.kind] : JSON_SCALAR[decl.codec.kind],
      });
      return;
    case "model":
      file.addInterface({
        name,
        isExported: true,
        docs: doc,
        properties: decl.properties.map((p) => ({
          name: p.name,
          type: typeExpression(p.type, form),
          hasQuestionToken: p.optional,
          docs: form === "decoded" ? docs(p.doc) : [],
        })),
      });
      return;
    case "union":
      file.addTypeAlias({
        name,
        isExported: true,
        docs: doc,
        type: decl.variants.map((v) => typeExpression(v.type, form)).join(" | "),
      });
      return;
  }
}
