/** Where the shared OP Sepolia fixtures live (override with OP_FIXTURES_DIR). */
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES_DIR =
  process.env.OP_FIXTURES_DIR ??
  resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/op-sepolia");

export function fixtureFiles(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith(".json.gz"))
    .sort()
    .map((f) => join(FIXTURES_DIR, f));
}
