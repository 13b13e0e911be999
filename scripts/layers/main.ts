/**
 * `npm run check:layers [-- --root <dir>]`: the layer check over a source tree (the repository by default).
 * Prints one line per finding and exits 1 when there is any, 0 otherwise. docs/layers.md explains the rules.
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { checkLayers } from "./check.js";
import { readTree } from "./tree.js";

const USAGE = `usage: npm run check:layers [-- --root <dir>]

Checks that every import points down the declared layers (scripts/layers/packages.ts), reaches another
package only through its index.ts, and that no import cycle exists. Exit status 1 on any finding.`;

function main(): void {
  const { values } = parseArgs({
    options: { root: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const root = values.root ?? fileURLToPath(new URL("../..", import.meta.url));
  const files = readTree(root);
  const findings = checkLayers(files);
  for (const finding of findings) {
    process.stdout.write(
      `${finding.kind}: ${finding.file}${finding.specifier === "" ? "" : ` "${finding.specifier}"`}: ${finding.message}\n`,
    );
  }
  process.stdout.write(`layers: ${files.length} files, ${findings.length} findings\n`);
  if (findings.length > 0) process.exitCode = 1;
}

main();
