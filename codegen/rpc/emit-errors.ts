/**
 * Emits generated/rpc/errors.ts: one RpcError subclass per spec error whose code is not already a
 * standard JSON-RPC error class of the runtime (codegen/rpc/runtime/rpc-errors.ts). Each class's kind is its
 * spec name in kebab case (BlockNotFound: "block-not-found").
 */
import type { GeneratedFile } from "../files.js";
import type { RpcSpec } from "./model.js";
import { codecExpression, createProject, docs, renderSourceFile, typeExpression } from "./ts-output.js";

/** Codes with a hand-written class in the runtime's rpc-errors.ts. */
const STANDARD_CODES = new Set([-32700, -32600, -32601, -32602, -32603]);

/** "BlockNotFound" -> "block-not-found". */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
}

export function emitErrors(spec: RpcSpec): GeneratedFile {
  const file = createProject().createSourceFile("errors.ts");
  const errors = spec.errors.filter((e) => !STANDARD_CODES.has(e.code));
  file.addImportDeclaration({ moduleSpecifier: "./rpc-errors.js", namedImports: ["RpcError"] });
  if (errors.some((e) => e.data !== undefined)) {
    file.addImportDeclaration({ moduleSpecifier: "./codecs.js", namespaceImport: "C" });
    file.addImportDeclaration({ moduleSpecifier: "./types.js", namespaceImport: "T", isTypeOnly: true });
  }
  for (const error of errors) {
    const dataType = error.data === undefined ? undefined : typeExpression(error.data, "decoded", "T.");
    const options =
      dataType === undefined ? "{ cause?: unknown }" : `{ data?: ${dataType}; cause?: unknown }`;
    const kind = JSON.stringify(kebabCase(error.name));
    const superOptions =
      error.data === undefined
        ? `{ cause: options.cause, kind: ${kind} }`
        : `{ cause: options.cause, kind: ${kind}, data: options.data === undefined ? undefined : ${codecExpression(error.data, "C.")}.encode(options.data) }`;
    file.addClass({
      name: `${error.name}Error`,
      isExported: true,
      extends: "RpcError",
      docs: docs(`${error.doc ?? error.name} (code ${error.code})`),
      properties: [{ name: "CODE", isStatic: true, isReadonly: true, initializer: String(error.code) }],
      ctors: [
        {
          parameters: [
            { name: "message", initializer: JSON.stringify(error.message) },
            { name: "options", type: options, initializer: "{}" },
          ],
          statements: [`super(${error.code}, message, ${superOptions});`],
        },
      ],
    });
  }
  return renderSourceFile(file, "errors.ts");
}
