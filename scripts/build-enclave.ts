/**
 * `npm run build:enclave [-- --out <dir>]`: the enclave image's one file, `enclave.mjs`, in `.build/enclave` or
 * `<dir>`, with `enclave.manifest.json` beside it (docs/enclave.md "The enclave image").
 *
 * The bundle holds enclave/main.ts and everything it loads: every package (none left as an import) and the native
 * addons (native/nsm, native/vsock, `secp256k1`'s libsecp256k1 binding and c-kzg's) as base64, which
 * native/load-addon.ts writes to a file named by its hash and loads, and the KZG trusted setup c-kzg reads. The same sources and node_modules give the same bytes wherever the clone is: no source map, no module
 * path comments (whitespace minified), packages named by their path through node_modules (symlinks kept, as a
 * clean clone has them), no time or machine in the output. The manifest records the bundle's SHA-256, the addons'
 * and the pinned Node.js runtime the image runs it with (Dockerfile.enclave pins the same version by digest).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { Plugin } from "esbuild";
import nodeGypBuild from "node-gyp-build";

/** The Node.js runtime of the enclave image: Dockerfile.enclave's base image is this version, pinned by digest. */
export const ENCLAVE_NODE_VERSION = "20.18.1";

/** The base image of both Dockerfile.enclave stages (build and runtime), by digest. */
export const ENCLAVE_BASE_IMAGE =
  "node:20.18.1-bookworm-slim@sha256:b2c8e0eb8a6aeeae33b2711f8f516003e27ee45804e270468d937b3214f2f0cc";

export const ENCLAVE_BUNDLE_FILE = "enclave.mjs";
export const ENCLAVE_MANIFEST_FILE = "enclave.manifest.json";
const ENTRY = "enclave/main.ts";
/** The repository's own addons, built by native/build.mjs. */
const ADDONS = ["nsm", "vsock"] as const;

/**
 * The packages' addons the image carries, each found as its package finds it: `secp256k1`'s libsecp256k1 binding
 * (its prebuilt binary for the build's platform, shipped in the package's tarball; node-gyp-build picks it as the
 * package itself does at run time), and c-kzg's (node-gyp builds it at `npm ci`, as it does native/'s). Without
 * them the image would recover senders on the pure-JS path, about 30 times slower (src/chain/secp256k1.ts), and
 * check blobs on the pure-JS KZG backend, about ten times slower (src/chain/kzg.ts).
 */
const PACKAGE_ADDONS: Readonly<Record<string, (repoRoot: string) => string>> = {
  secp256k1: (repoRoot) => nodeGypBuild.path(join(repoRoot, "node_modules", "secp256k1")),
  "c-kzg": (repoRoot) => join(repoRoot, "node_modules", "c-kzg", "build", "Release", "kzg.node"),
};

/**
 * The ceremony's points c-kzg loads (src/chain/kzg.ts), from the trusted_setup.json the other processes read in
 * node_modules: the G1 Lagrange and G2 monomial points, as JSON.
 */
async function kzgTrustedSetup(repoRoot: string): Promise<string> {
  const file = join(repoRoot, "node_modules", "@paulmillr", "trusted-setups", "trusted_setup.json");
  const { g1_lagrange, g2_monomial } = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  return JSON.stringify({ g1_lagrange, g2_monomial });
}

/** Bundled CommonJS packages call `require` for Node's built-in modules: an ES module has none of its own. */
const REQUIRE_BANNER =
  "import { createRequire as __bundleCreateRequire } from 'node:module'; " +
  "const require = __bundleCreateRequire(import.meta.url);";

/** A repository module finds a package module at run time in a way the bundle cannot follow. */
export class UnbundlableImportError extends Error {
  override readonly name = "UnbundlableImportError";
  constructor(readonly file: string) {
    super(`${file}: an import.meta.resolve the enclave bundle cannot follow (see scripts/build-enclave.ts)`);
  }
}

const RESOLVE_PACKAGE = /const (\w+) = import\.meta\.resolve\("([^"]+)"\);/g;
const IMPORT_BESIDE = /import\(new URL\("([^"]+)", (\w+)\)\.href\)/g;

/**
 * Repository modules that reach a package's internal module at run time (src/chain's EVM fast paths:
 * `const url = import.meta.resolve("@ethereumjs/evm")`, then `import(new URL("./interpreter.js", url).href)`):
 * rewritten to a static import of that module's file, as esbuild resolves the package, so the bundle holds the
 * one instance the package itself uses. Any other import.meta.resolve fails the build.
 */
function packageInternalsPlugin(): Plugin {
  return {
    name: "package-internals",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.split(sep).includes("node_modules")) return undefined;
        const text = await readFile(args.path, "utf8");
        if (!text.includes("import.meta.resolve")) return undefined;
        const packages = new Map<string, string>();
        for (const [, variable, name] of text.matchAll(RESOLVE_PACKAGE)) {
          const resolved = await build.resolve(name!, {
            kind: "import-statement",
            resolveDir: dirname(args.path),
          });
          if (resolved.errors.length > 0) throw new UnbundlableImportError(args.path);
          packages.set(variable!, resolved.path);
        }
        let contents = text.replace(RESOLVE_PACKAGE, "");
        contents = contents.replace(IMPORT_BESIDE, (whole, relative: string, variable: string) => {
          const entry = packages.get(variable);
          if (entry === undefined) return whole;
          return `import(${JSON.stringify(fileURLToPath(new URL(relative, pathToFileURL(entry))))})`;
        });
        if (contents.includes("import.meta.resolve")) throw new UnbundlableImportError(args.path);
        return { contents, loader: "ts" };
      });
    },
  };
}

export interface EnclaveManifest {
  readonly bundle: string;
  readonly bundleSha256: string;
  readonly nodeVersion: string;
  readonly baseImage: string;
  readonly addons: Readonly<Record<string, string>>;
}

export interface EnclaveBuild {
  readonly bundlePath: string;
  readonly manifestPath: string;
  readonly manifest: EnclaveManifest;
  /** Every file the bundle was built from, relative to the clone (esbuild's metafile inputs), sorted. */
  readonly inputs: readonly string[];
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** Builds the enclave bundle of the clone at `repoRoot` into `outDir` (absolute, or relative to `repoRoot`). */
export async function buildEnclaveImage(repoRoot: string, outDir: string): Promise<EnclaveBuild> {
  const out = isAbsolute(outDir) ? outDir : join(repoRoot, outDir);
  const addons: Record<string, string> = {};
  const embedded: Record<string, string> = {};
  const addonFiles: [string, string][] = [
    ...ADDONS.map((name): [string, string] => [
      name,
      join(repoRoot, "native", name, "build", "Release", `${name}.node`),
    ]),
    ...Object.entries(PACKAGE_ADDONS).map(([name, find]): [string, string] => [name, find(repoRoot)]),
  ];
  for (const [name, file] of addonFiles) {
    const bytes = await readFile(file);
    addons[name] = sha256(bytes);
    embedded[name] = bytes.toString("base64");
  }
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: [join(repoRoot, ENTRY)],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    banner: { js: REQUIRE_BANNER },
    define: {
      EMBEDDED_NATIVE_ADDONS: JSON.stringify(embedded),
      EMBEDDED_KZG_TRUSTED_SETUP: JSON.stringify(await kzgTrustedSetup(repoRoot)),
      ENCLAVE_IMAGE_BUNDLE: "true",
    },
    minifyWhitespace: true,
    preserveSymlinks: true,
    sourcemap: false,
    legalComments: "none",
    charset: "utf8",
    write: false,
    outfile: join(out, ENCLAVE_BUNDLE_FILE),
    plugins: [packageInternalsPlugin()],
    logLevel: "warning",
    metafile: true,
  });
  const bundle = result.outputFiles.find((file) => file.path.endsWith(ENCLAVE_BUNDLE_FILE));
  if (bundle === undefined) throw new Error(`esbuild wrote no ${ENCLAVE_BUNDLE_FILE}`);
  const manifest: EnclaveManifest = {
    bundle: ENCLAVE_BUNDLE_FILE,
    bundleSha256: sha256(bundle.contents),
    nodeVersion: ENCLAVE_NODE_VERSION,
    baseImage: ENCLAVE_BASE_IMAGE,
    addons,
  };
  await mkdir(out, { recursive: true });
  const bundlePath = join(out, ENCLAVE_BUNDLE_FILE);
  const manifestPath = join(out, ENCLAVE_MANIFEST_FILE);
  await writeFile(bundlePath, bundle.contents);
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { bundlePath, manifestPath, manifest, inputs: Object.keys(result.metafile.inputs).sort() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const repoRoot = fileURLToPath(new URL("../", import.meta.url));
  const build = await buildEnclaveImage(repoRoot, values.out ?? join(".build", "enclave"));
  process.stdout.write(
    `${build.bundlePath}\nsha256 ${build.manifest.bundleSha256}\nnode ${build.manifest.nodeVersion} (${build.manifest.baseImage})\n`,
  );
}
