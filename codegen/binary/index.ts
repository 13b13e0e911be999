import type { GeneratedFile } from "../files.js";

/** Placeholder until the binary generator lands: produces no files. */
export async function generateBinary(): Promise<GeneratedFile[]> {
  return [];
}
