/**
 * Builds the bundles of SERVICE_ENTRIES and WORKER_ENTRIES with esbuild: one ES module per entry (plus a source
 * map), the packages from node_modules inside it but for EXTERNAL_PACKAGES (native addons, wasm and worker files
 * found beside a package's own files load as they do from source). A process then reads one file instead of the
 * hundreds of modules of viem, ox, noble and the EVM: a service's start costs about a quarter of the CPU it did
 * with every package left as an import.
 *
 * A bundle runs from another folder than its sources, so each module's `import.meta.url` is replaced by the URL of
 * its source file: files located relative to a module (contract artifacts, fixtures, native addons, package.json)
 * are found where they are. The entry module keeps the bundle's own URL, so its main-module check
 * (`process.argv[1] === fileURLToPath(import.meta.url)`) holds. Worker threads find their bundles through
 * SERVICE_BUNDLE_DIR (entries.ts).
 */
import { readFile, writeFile } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { REPO_ROOT, SERVICE_ENTRIES, WORKER_ENTRIES } from "./entries.js";
import { thinLibraryMappings } from "./library-mappings.js";

/**
 * Packages left as imports: those with native addons, those that find files beside their own modules at run time
 * (`__dirname`, `import.meta.url`: wasm, worker threads, compiler binaries), and esbuild itself (the devnet builds
 * bundles). A package not listed is bundled; the build fails when bundled package code refers to its own location
 * (packageLocationUses).
 */
export const EXTERNAL_PACKAGES: readonly string[] = [
  "@trufflesuite/*",
  "better-sqlite3",
  "bindings",
  "bufferutil",
  "esbuild",
  "ganache",
  "keccak",
  "node-gyp-build",
  "pg-native",
  "pino",
  "pino-pretty",
  "secp256k1",
  "solc",
  "thread-stream",
  "tsx",
  "utf-8-validate",
];

/** Bundled CommonJS packages call `require` for Node's built-in modules: an ES module has none of its own. */
const REQUIRE_BANNER =
  "import { createRequire as __bundleCreateRequire } from 'node:module'; " +
  "const require = __bundleCreateRequire(import.meta.url);";

/** A line of bundled package code that refers to the package's own location: a file it expects beside it. */
export interface PackageLocationUse {
  /** The package module, from its package's folder on (`pino/lib/transport.js`). */
  readonly module: string;
  readonly line: string;
}

/** A bundle holds package code that looks for files beside the package: the package belongs in EXTERNAL_PACKAGES. */
export class BundledPackageLocationError extends Error {
  constructor(readonly uses: readonly PackageLocationUse[]) {
    super(
      `bundled package code refers to its own location (add the package to EXTERNAL_PACKAGES): ${uses
        .slice(0, 5)
        .map((use) => `${use.module}: ${use.line}`)
        .join("; ")}`,
    );
    this.name = "BundledPackageLocationError";
  }
}

/** esbuild's comment before each module of a bundle: its path. */
const MODULE_HEADER = /^\/\/ (\S+\.(?:[cm]?[jt]sx?|json))$/;
const LOCATION = /\b__dirname\b|\b__filename\b|\bimport\.meta\.url\b|\brequire\.resolve\(/;

/** The lines of `bundle` (an esbuild output) in modules from node_modules that refer to their own location. */
export function packageLocationUses(bundle: string): PackageLocationUse[] {
  const uses: PackageLocationUse[] = [];
  let module: string | undefined;
  for (const line of bundle.split("\n")) {
    const header = MODULE_HEADER.exec(line);
    if (header !== null) {
      const path = header[1]!;
      module = path.includes("node_modules/")
        ? path.slice(path.lastIndexOf("node_modules/") + 13)
        : undefined;
    } else if (module !== undefined && LOCATION.test(line)) uses.push({ module, line: line.trim() });
  }
  return uses;
}

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
  const result = await esbuild.build({
    absWorkingDir: REPO_ROOT,
    entryPoints: entryPaths,
    outbase: REPO_ROOT,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: [...EXTERNAL_PACKAGES],
    banner: { js: REQUIRE_BANNER },
    // Stack traces need the mappings, not the sources' text (4/5 of a map that every process and worker thread
    // reads and parses at load: docs/decisions.md "Source maps on"); package code's mappings are thinned below.
    sourcemap: "linked",
    sourcesContent: false,
    define: { SERVICE_BUNDLE_DIR: JSON.stringify(pathToFileURL(outdir + sep).href) },
    plugins: [sourceUrlPlugin(esbuild, new Set(entryPaths))],
    logLevel: "warning",
    metafile: true,
  });
  const bundles = Object.keys(result.metafile.outputs).filter((file) => file.endsWith(".mjs"));
  await Promise.all(
    Object.keys(result.metafile.outputs)
      .filter((file) => file.endsWith(".mjs.map"))
      .map(async (file) => {
        const path = join(REPO_ROOT, file);
        const map = JSON.parse(await readFile(path, "utf8")) as { sources: string[]; mappings: string };
        await writeFile(path, JSON.stringify(thinLibraryMappings(map)));
      }),
  );
  const uses = (
    await Promise.all(
      bundles.map(async (file) => packageLocationUses(await readFile(join(REPO_ROOT, file), "utf8"))),
    )
  ).flat();
  if (uses.length > 0) throw new BundledPackageLocationError(uses);
  return { bundleDir: outdir, entries, milliseconds: performance.now() - started };
}
