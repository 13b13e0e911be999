import type { GeneratedFile } from "./files.js";
import { generateBinary } from "./binary/index.js";
import { generateRpc } from "./rpc/index.js";

/** Runs every generator and returns the full contents of generated/, in a stable order. */
export async function generateAll(): Promise<GeneratedFile[]> {
  const files = [...(await generateRpc()), ...(await generateBinary())];
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
