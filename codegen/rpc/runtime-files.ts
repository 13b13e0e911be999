/**
 * The hand-written runtime that generated code builds on (codegen/rpc/runtime/), copied into
 * generated/rpc/ so that generated/ is self-contained. Only import paths that climb out of the
 * directory are adjusted for its new depth.
 */
import { readFile } from "node:fs/promises";
import { GENERATED_HEADER, type GeneratedFile } from "../files.js";

const RUNTIME_FILES = ["http-transport.ts", "method-runtime.ts", "wire.ts"] as const;

export async function runtimeFiles(): Promise<GeneratedFile[]> {
  return Promise.all(
    RUNTIME_FILES.map(async (name) => {
      const source = await readFile(new URL(`./runtime/${name}`, import.meta.url), "utf8");
      // codegen/rpc/runtime/ is one level deeper than generated/rpc/.
      const content = source.replaceAll('from "../../../src/', 'from "../../src/');
      return { path: `rpc/${name}`, content: GENERATED_HEADER + content };
    }),
  );
}
