/** `npm run codegen`: regenerates generated/ from spec/, from scratch. */
import { fileURLToPath } from "node:url";
import { writeGenerated } from "./files.js";
import { generateAll } from "./generate.js";

const outDir = fileURLToPath(new URL("../generated/", import.meta.url));
const files = await generateAll();
await writeGenerated(outDir, files);
console.log(`codegen: wrote ${files.length} files to generated/`);
