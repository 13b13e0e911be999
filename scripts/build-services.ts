/**
 * `npm run build:services [-- --out <dir>]`: bundles every service and worker entry (src/bundles) into `.build/services`
 * or `<dir>`. Tests build them for each run themselves; this is for starting a service from its bundle by hand.
 */
import { parseArgs } from "node:util";
import { buildBundles, DEFAULT_BUNDLE_DIR } from "../src/bundles/index.js";

const { values } = parseArgs({ options: { out: { type: "string" } } });
const build = await buildBundles(values.out ?? DEFAULT_BUNDLE_DIR);
process.stdout.write(
  `${build.entries.length} bundles in ${build.bundleDir} (${Math.round(build.milliseconds)} ms)\n`,
);
