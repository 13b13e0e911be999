/**
 * The hand-written runtime that generated code builds on (codegen/rpc/runtime/), copied as it is into
 * generated/rpc/. generated/ is self-contained: a runtime file importing anything but a sibling module, a package
 * or the project's error root (src/errors) is refused.
 */
import { readFile } from "node:fs/promises";
import { CodegenError } from "../errors.js";
import { ERROR_ROOT_FROM_RUNTIME, type GeneratedFile, runtimeCopy } from "../files.js";

const RUNTIME_FILES = [
  "http-transport.ts",
  "method-contract.ts",
  "method-runtime.ts",
  "rpc-errors.ts",
  "wire.ts",
] as const;

/** Module specifiers of a source file's import and export declarations. */
export function moduleSpecifiers(source: string): string[] {
  return [...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)].map((m) => m[1] ?? "");
}

/**
 * Throws CodegenError (runtime-not-self-contained) when `source` imports a module outside its own folder other than
 * the error root.
 */
export function checkSelfContained(name: string, source: string): void {
  const outside = moduleSpecifiers(source).filter(
    (s) => s.startsWith("../") && s !== ERROR_ROOT_FROM_RUNTIME,
  );
  if (outside.length > 0) {
    throw new CodegenError(
      `codegen/rpc/runtime/${name} imports ${outside.join(", ")}: generated/ may only import its own modules and the error root`,
      "runtime-not-self-contained",
      { file: name, imports: outside },
    );
  }
}

export async function runtimeFiles(): Promise<GeneratedFile[]> {
  return Promise.all(
    RUNTIME_FILES.map(async (name) => {
      const source = await readFile(new URL(`./runtime/${name}`, import.meta.url), "utf8");
      checkSelfContained(name, source);
      return { path: `rpc/${name}`, content: runtimeCopy(source) };
    }),
  );
}
