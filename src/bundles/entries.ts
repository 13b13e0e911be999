/**
 * Which entry points have a bundle, where it lives, and how a process or worker thread is started from it or, without
 * one, from the TypeScript source under tsx. Nothing here loads esbuild (build.ts does, on demand), so the spawn
 * helpers of tests and the devnet can import this cheaply.
 */
import { isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMainThread, workerData } from "node:worker_threads";

/** The repository root (this file is src/bundles/entries.ts). */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Where `npm run build:services` and the devnet write bundles (ignored by git; a test run writes its own folder). */
export const DEFAULT_BUNDLE_DIR = join(REPO_ROOT, ".build", "services");

/**
 * The environment variable naming a folder of fresh bundles: set, the spawn helpers start each bundled entry from
 * it; unset, they start it under tsx. The test run's global setup builds the bundles and sets it, so tests never
 * run a stale bundle.
 */
export const BUNDLE_DIR_ENV = "OP_SERVICE_BUNDLES";

/** Every process entry point tests or the devnet start, relative to the repository root. */
export const SERVICE_ENTRIES = [
  "src/node/main.ts",
  "src/host/main.ts",
  "enclave/main.ts",
  "src/batcher/main.ts",
  "src/merchant/main.ts",
  "src/merchant/cli.ts",
  "src/merchant/keys.ts",
  "src/proposer/main.ts",
  "src/challenger/main.ts",
  "src/registrar/main.ts",
  "src/devnet/main.ts",
  "src/devnet/deposit.ts",
  "src/devnet/prove.ts",
  "src/derive/cli/main.ts",
  "conformance/run.ts",
  // The proof worker process of src/proof-jobs/workers.test.ts.
  "src/proof-jobs/worker-process.test-support.ts",
] as const;

/**
 * Worker thread entry points. From source, a worker starts from the `-entry.mjs` beside it (it registers tsx in the
 * thread first: Node 20 does not pass the main thread's loader on); in a bundle, from the worker's own bundle.
 */
export const WORKER_ENTRIES = [
  "src/node/calls/call-worker.ts",
  "src/node/safe-head/kzg-worker.ts",
  "src/proof/program/parallel/worker.ts",
  "src/host/witness/block-worker.ts",
] as const;

/** The bundle of `entry` (a repository-relative `.ts` path) in `bundleDir`: the same path, ending in `.mjs`. */
export function bundlePath(bundleDir: string, entry: string): string {
  return join(bundleDir, entry.replace(/\.ts$/, ".mjs"));
}

/** `entry` relative to the repository root, `/`-separated, when it is one of SERVICE_ENTRIES; else undefined. */
function serviceEntry(entry: string): string | undefined {
  const path = isAbsolute(entry) ? relative(REPO_ROOT, entry).split(sep).join("/") : entry;
  return (SERVICE_ENTRIES as readonly string[]).includes(path) ? path : undefined;
}

/**
 * The `node` arguments that start `entry` (absolute, or relative to the repository root, which is then the working
 * directory): its bundle when `bundleDir` is given and the entry is bundled, else the source under tsx. Source maps
 * are on either way, so stack traces name the TypeScript files.
 */
export function nodeArgs(entry: string, bundleDir: string | undefined = bundleDirFromEnv()): string[] {
  const bundled = bundleDir === undefined ? undefined : serviceEntry(entry);
  if (bundleDir !== undefined && bundled !== undefined)
    return ["--enable-source-maps", bundlePath(bundleDir, bundled)];
  return ["--import", "tsx", entry];
}

/** The bundle folder named by OP_SERVICE_BUNDLES, or undefined. */
export function bundleDirFromEnv(): string | undefined {
  const dir = process.env[BUNDLE_DIR_ENV];
  return dir === undefined || dir === "" ? undefined : dir;
}

/**
 * Defined by the bundler (build.ts) as the file URL of the bundle folder, ending in `/`; in code run from source
 * there is no such binding, so it is only ever read through `typeof`.
 */
declare const SERVICE_BUNDLE_DIR: string | undefined;

/**
 * Defined by the enclave image's bundler (scripts/build-enclave.ts) only, read through `typeof`: the image is one
 * file, with no worker bundles beside it.
 */
declare const ENCLAVE_IMAGE_BUNDLE: boolean | undefined;

/**
 * The URL a worker thread starts from: in a bundle, the worker's own bundle (`worker`, a WORKER_ENTRIES path); from
 * source, the worker's bundle in OP_SERVICE_BUNDLES when that is set (a test run, whose bundles are built from the
 * code under test), else `sourceEntry` (the `-entry.mjs` that registers tsx first). In the enclave image the bundle
 * itself, which runs the worker named by the thread's `workerStartData` (`imageWorkerEntry`).
 */
export function workerEntryUrl(worker: (typeof WORKER_ENTRIES)[number], sourceEntry: URL): URL {
  if (typeof ENCLAVE_IMAGE_BUNDLE === "boolean" && ENCLAVE_IMAGE_BUNDLE) return new URL(import.meta.url);
  if (typeof SERVICE_BUNDLE_DIR === "string")
    return new URL(worker.replace(/\.ts$/, ".mjs"), SERVICE_BUNDLE_DIR);
  const bundleDir = bundleDirFromEnv();
  return bundleDir === undefined ? sourceEntry : pathToFileURL(bundlePath(bundleDir, worker));
}

/** The `workerData` a worker thread is started with: the worker entry it runs (a one-file bundle dispatches on it). */
export function workerStartData(worker: (typeof WORKER_ENTRIES)[number]): { readonly workerEntry: string } {
  return { workerEntry: worker };
}

/**
 * In a worker thread started with `workerStartData`, the worker entry it is to run; undefined on the main thread.
 * The enclave image's entry (enclave/main.ts) reads it: its worker threads start from the image's one file.
 */
export function imageWorkerEntry(): string | undefined {
  if (isMainThread) return undefined;
  const data: unknown = workerData;
  if (typeof data !== "object" || data === null) return undefined;
  const entry = (data as { workerEntry?: unknown }).workerEntry;
  return typeof entry === "string" ? entry : undefined;
}
