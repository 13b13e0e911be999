/** Where the generator reads the registry export and writes the generated module. */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_REGISTRY_PATH = resolve(here, "../../../../shared/data/superchain-configs.json");
export const GENERATED_PATH = join(here, "superchain.generated.ts");
