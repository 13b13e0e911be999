/** Emits generated/rpc/index.ts, re-exporting everything a server or client needs. */
import type { GeneratedFile } from "../files.js";
import type { RpcSpec } from "./model.js";
import { createProject, renderSourceFile } from "./ts-output.js";

const INDEX_DOC = `/**
 * The JSON-RPC data model, codecs and clients (foundation; generated from spec/typespec by codegen/rpc).
 *
 * Public surface: the types (type-only), their wire codecs (and the raw \`wire\` namespace), each method's typed
 * errors and the runtime's JSON-RPC errors, the HTTP client transport (\`httpTransport\`, \`readCappedText\`,
 * \`RemoteRpcError\`), the method contracts and runtime, and each service's client and handler binder (node,
 * prover).
 *
 * Concepts owned: the JSON-RPC form of every type and method the specification defines.
 */
`;

export function emitIndex(spec: RpcSpec): GeneratedFile {
  const file = createProject().createSourceFile("index.ts");
  file.addExportDeclaration({ moduleSpecifier: "./codecs.js" });
  file.addExportDeclaration({ moduleSpecifier: "./errors.js" });
  file.addExportDeclaration({ moduleSpecifier: "./rpc-errors.js" });
  file.addExportDeclaration({ moduleSpecifier: "./http-transport.js" });
  file.addExportDeclaration({ moduleSpecifier: "./method-contract.js" });
  file.addExportDeclaration({ moduleSpecifier: "./method-runtime.js" });
  for (const service of spec.services) file.addExportDeclaration({ moduleSpecifier: `./${service.id}.js` });
  file.addExportDeclaration({ moduleSpecifier: "./types.js", isTypeOnly: true });
  file.addExportDeclaration({ moduleSpecifier: "./wire.js", namespaceExport: "wire" });
  file.insertText(0, INDEX_DOC);
  return renderSourceFile(file, "index.ts");
}
