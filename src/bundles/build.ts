/**
 * Builds the bundles of SERVICE_ENTRIES and WORKER_ENTRIES with esbuild: one ES module per entry (plus a source
 * map), packages from node_modules left as imports (native addons and wasm load as they do from source).
 *
 * A bundle runs from another folder than its sources, so each module's `import.meta.url` is replaced by the URL of
 * its source file: files located relative to a module (contract artifacts, fixtures, native addons, package.json)
 * are found where they are. The entry module keeps the bundle's own URL, so its main-module check
 * (`process.argv[1] === fileURLToPath(import.meta.url)`) holds. Worker threads find their bundles through
 * SERVICE_BUNDLE_DIR (entries.ts).
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { REPO_ROOT, SERVICE_ENTRIES, WORKER_ENTRIES } from "./entries.js";

/** What a build wrote and how long it took. */
export interface BundleBuild {
  readonly bundleDir: string;
  readonly entries: readonly string[];
  readonly milliseconds: number;
}

/**
 * Replaces `import.meta.url` in every repository module but the entries with the module's own source URL (an esbuild
 * transform: only the expression, never text in strings or comments; its inline source map keeps stack traces on the
 * TypeScript lines).
 */
function sourceUrlPlugin(esbuild: typeof import("esbuild"), entryPaths: ReadonlySet<string>): Plugin {
  return {
    name: "source-import-meta-url",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (entryPaths.has(args.path) || args.path.split(sep).includes("node_modules")) return undefined;
        const text = await readFile(args.path, "utf8");
        if (!text.includes("import.meta.url")) return undefined;
        const transformed = await esbuild.transform(text, {
          loader: /\.[cm]?ts$/.test(args.path) ? "ts" : "js",
          format: "esm",
          target: "node20",
          define: { "import.meta.url": JSON.stringify(pathToFileURL(args.path).href) },
          sourcemap: "inline",
          sourcefile: args.path,
        });
        return { contents: transformed.code, loader: "js" };
      });
    },
  };
}

/** Bundles every service and worker entry into `bundleDir` (absolute, or relative to the repository root). */
export async function buildBundles(bundleDir: string): Promise<BundleBuild> {
  const started = performance.now();
  const outdir = isAbsolute(bundleDir) ? bundleDir : join(REPO_ROOT, bundleDir);
  const entries = [...SERVICE_ENTRIES, ...WORKER_ENTRIES];
  const entryPaths = entries.map((entry) => join(REPO_ROOT, entry));
  const esbuild = await import("esbuild");
  await esbuild.build({
    absWorkingDir: REPO_ROOT,
    entryPoints: entryPaths,
    outbase: REPO_ROOT,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "linked",
    define: { SERVICE_BUNDLE_DIR: JSON.stringify(pathToFileURL(outdir + sep).href) },
    plugins: [sourceUrlPlugin(esbuild, new Set(entryPaths))],
    logLevel: "warning",
  });
  return { bundleDir: outdir, entries, milliseconds: performance.now() - started };
}
