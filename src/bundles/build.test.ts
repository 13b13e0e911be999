import { describe, expect, it } from "vitest";
import { BundledPackageLocationError, packageLocationUses } from "./build.js";

/** An esbuild bundle's shape: the banner, then each module after a comment naming its path. */
const BUNDLE = [
  "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
  "",
  "// ../../main/node_modules/thread-stream/index.js",
  "var worker = join(__dirname, 'lib', 'worker.js');",
  "// ../../main/node_modules/viem/_esm/index.js",
  "var version = '2.0.0';",
  "// ../../main/node_modules/some-wasm/package.json",
  "var pkg = { name: 'some-wasm' };",
  "// ../../main/node_modules/some-wasm/loader.mjs",
  "var wasm = new URL('./kzg.wasm', import.meta.url);",
  "var resolved = require.resolve('./data.bin');",
  "// src/chain/dev-chain/predeploys.ts",
  "var url = new URL('./predeploys.artifact.json', import.meta.url);",
  "// src/node/main.ts",
  "if (process.argv[1] === fileURLToPath(import.meta.url)) main();",
].join("\n");

describe("packageLocationUses", () => {
  it("finds package code that looks for files beside the package, never the repository's own modules or the banner", () => {
    expect(packageLocationUses(BUNDLE)).toEqual([
      { module: "thread-stream/index.js", line: "var worker = join(__dirname, 'lib', 'worker.js');" },
      { module: "some-wasm/loader.mjs", line: "var wasm = new URL('./kzg.wasm', import.meta.url);" },
      { module: "some-wasm/loader.mjs", line: "var resolved = require.resolve('./data.bin');" },
    ]);
  });

  it("names the modules in the error the build throws", () => {
    const error = new BundledPackageLocationError(packageLocationUses(BUNDLE));
    expect(error.uses).toHaveLength(3);
    expect(error.message).toContain("thread-stream/index.js");
    expect(error.message).toContain("EXTERNAL_PACKAGES");
  });
});
