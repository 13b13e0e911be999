/** Where the shared derivation fixtures live (../shared/fixtures/derive from the repository root; override with DERIVE_FIXTURES_DIR). */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const DERIVE_FIXTURES_DIR =
  process.env.DERIVE_FIXTURES_DIR ??
  resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared/fixtures/derive");
