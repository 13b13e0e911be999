/** Reads a source tree for the layer check. */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isSourceFile, type SourceFile } from "./check.js";
import { IGNORED_FOLDERS } from "./packages.js";

/** Every source file under `root` (paths relative to it, '/'-separated). */
export function readTree(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      const rel = relative(root, full).split(sep).join("/");
      if (entry.isDirectory()) {
        if (IGNORED_FOLDERS.includes(rel) || entry.name === "node_modules" || entry.name === "build")
          continue;
        walk(full);
      } else if (entry.isFile() && isSourceFile(rel)) {
        files.push({ path: rel, text: readFileSync(full, "utf8") });
      }
    }
  };
  walk(root);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
