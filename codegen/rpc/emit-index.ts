/** Emits generated/rpc/index.ts, re-exporting everything a server or client needs. */
import type { GeneratedFile } from "../files.js";
import type { RpcSpec } from "./model.js";
import { createProject, renderSourceFile } from "./ts-output.js";

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
  return renderSourceFile(file, "index.ts");
}
