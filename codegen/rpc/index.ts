/**
 * The JSON-RPC generator: compiles spec/typespec, publishes one OpenRPC document per service in
 * generated/openrpc/, and emits types, codecs, errors, method specs, clients and handler tables
 * into generated/rpc/.
 */
import type { GeneratedFile } from "../files.js";
import { compileTypeSpec, readSpec } from "./compile.js";
import { emitCodecs } from "./emit-codecs.js";
import { emitErrors } from "./emit-errors.js";
import { emitIndex } from "./emit-index.js";
import { emitService } from "./emit-service.js";
import { emitTypes } from "./emit-types.js";
import { mergeRecordedExamples } from "./examples.js";
import { buildOpenRpcDocuments } from "./openrpc.js";
import { runtimeFiles } from "./runtime-files.js";

export async function generateRpc(): Promise<GeneratedFile[]> {
  const spec = mergeRecordedExamples(readSpec(await compileTypeSpec()));
  const documents = await buildOpenRpcDocuments(spec);
  const openrpc = [...documents].map(([id, document]) => ({
    path: `openrpc/${id}.openrpc.json`,
    content: `${JSON.stringify(document, null, 2)}\n`,
  }));
  return [
    ...openrpc,
    ...(await runtimeFiles()),
    emitTypes(spec),
    emitCodecs(spec),
    emitErrors(spec),
    ...spec.services.map(emitService),
    emitIndex(spec),
  ];
}
