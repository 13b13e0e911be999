/**
 * Regenerates `superchain.generated.ts` from the registry export. Run by hand when the registry changes:
 *   npx tsx src/chain/chains/generate.ts [../shared/data/superchain-configs.json]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { format } from "prettier";
import { DEFAULT_REGISTRY_PATH, GENERATED_PATH } from "./generate-paths.js";
import { extractChainData, renderGeneratedModule } from "./registry.js";

async function main(): Promise<void> {
  const source = process.argv[2] ?? DEFAULT_REGISTRY_PATH;
  const data = extractChainData(JSON.parse(readFileSync(source, "utf8")));
  const text = await format(renderGeneratedModule(data), {
    parser: "typescript",
    printWidth: 110,
    trailingComma: "all",
  });
  writeFileSync(GENERATED_PATH, text);
  process.stdout.write(`${GENERATED_PATH}: ${data.map((c) => `${c.name} (${c.l2ChainId})`).join(", ")}\n`);
}

await main();
