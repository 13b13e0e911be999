/**
 * Foundation layer. Prebuilt esbuild bundles of the services and worker threads that tests and the devnet start:
 * a process started from its bundle skips tsx's loader (about a third of the CPU time of a start under tsx).
 * Public surface: the bundled entries, where a bundle lives, the `node` arguments that start an entry (bundle or
 * source), a worker's entry URL and start data (`workerStartData`, read back by `imageWorkerEntry` in the enclave
 * image, whose worker threads start from its one file), and the build (with the packages it leaves as imports).
 * Concepts owned: which entries are bundled and how a process or worker is started from its bundle.
 */
export {
  BUNDLE_DIR_ENV,
  bundleDirFromEnv,
  bundlePath,
  DEFAULT_BUNDLE_DIR,
  imageWorkerEntry,
  nodeArgs,
  REPO_ROOT,
  SERVICE_ENTRIES,
  WORKER_ENTRIES,
  workerEntryUrl,
  workerStartData,
} from "./entries.js";
export {
  type BundleBuild,
  buildBundles,
  BundledPackageLocationError,
  EXTERNAL_PACKAGES,
  type PackageLocationUse,
  packageLocationUses,
} from "./build.js";
