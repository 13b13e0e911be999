/**
 * Where the load generator's contracts and their artifacts live (`contracts/src/load`, `contracts/artifacts/load`),
 * without the ABIs: the compiler reads this before the ABI module exists.
 */
import { join } from "node:path";
import { ARTIFACTS_DIR, SOURCES_DIR } from "./artifact-format.js";

export const LOAD_SOURCES_DIR = join(SOURCES_DIR, "load");
export const LOAD_ARTIFACTS_DIR = join(ARTIFACTS_DIR, "load");
/** Unit names of the load set: `src/load/<File>.sol`. */
export const LOAD_UNIT_PREFIX = "src/load";
