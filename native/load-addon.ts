/**
 * Loads a node-gyp addon built from this directory (`npm run build:native`). A missing build is a named
 * error telling how to build it, never a silent fallback.
 *
 * The enclave image's bundle (scripts/build-enclave.ts) carries the addons inside itself: the bundler defines
 * EMBEDDED_NATIVE_ADDONS (addon name -> base64 of its .node file), and each is written once to a file named by
 * its hash under the temporary directory and loaded from there (`embeddedAddonPath`: also for the packages' addons
 * the image carries, which their users load themselves).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NativeError } from "./errors.js";

export class NativeAddonNotBuiltError extends NativeError<"addon-not-built"> {
  override readonly name = "NativeAddonNotBuiltError";
  constructor(message: string, details: { readonly addon: string; readonly path: string }) {
    super(message, { kind: "addon-not-built", details });
  }
}

const require = createRequire(import.meta.url);

/** Defined by the enclave image's bundler only; read through `typeof` (code run from source has no binding). */
declare const EMBEDDED_NATIVE_ADDONS: Readonly<Record<string, string>> | undefined;

/**
 * The file of an addon the enclave image's bundle embeds (`nsm`, `vsock`, and the packages' addons it carries:
 * `secp256k1`): written once under the temporary directory, named by its SHA-256. Undefined outside that bundle or
 * for an addon it does not carry.
 */
export function embeddedAddonPath(name: string): string | undefined {
  if (typeof EMBEDDED_NATIVE_ADDONS === "undefined") return undefined;
  const base64 = EMBEDDED_NATIVE_ADDONS[name];
  if (base64 === undefined) return undefined;
  const bytes = Buffer.from(base64, "base64");
  const digest = createHash("sha256").update(bytes).digest("hex");
  const dir = join(tmpdir(), "op-enclave-addons");
  const path = join(dir, `${name}-${digest}.node`);
  const intact = existsSync(path) && createHash("sha256").update(readFileSync(path)).digest("hex") === digest;
  if (!intact) {
    mkdirSync(dir, { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, bytes, { mode: 0o500 });
    renameSync(partial, path);
  }
  return path;
}

/** native/<name>/build/Release/<name>.node (or the bundle's embedded copy), typed by the caller's description. */
export function loadAddon<T>(name: "nsm" | "vsock"): T {
  const path =
    embeddedAddonPath(name) ??
    fileURLToPath(new URL(`./${name}/build/Release/${name}.node`, import.meta.url));
  try {
    return require(path) as T;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new NativeAddonNotBuiltError(
      `the ${name} native addon could not be loaded from ${path} (${reason}); build it with "npm run build:native"`,
      { addon: name, path },
    );
  }
}

/** The errno-carrying errors the addons throw (like Node's own ErrnoException). */
export interface NativeSystemError extends Error {
  readonly syscall?: string;
  readonly errno?: number;
  readonly code?: string;
}

export function isNativeSystemError(error: unknown): error is NativeSystemError {
  return error instanceof Error && typeof (error as NativeSystemError).errno === "number";
}
