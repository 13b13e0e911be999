import type { GeneratedFile } from "../files.js";

/** Placeholder until the rpc generator lands: produces no files. */
export async function generateRpc(): Promise<GeneratedFile[]> {
  return [];
}
