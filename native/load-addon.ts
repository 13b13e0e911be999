/**
 * Loads a node-gyp addon built from this directory (`npm run build:native`). A missing build is a named
 * error telling how to build it, never a silent fallback.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { NativeError } from "./errors.js";

export class NativeAddonNotBuiltError extends NativeError<"addon-not-built"> {
  override readonly name = "NativeAddonNotBuiltError";
  constructor(message: string, details: { readonly addon: string; readonly path: string }) {
    super(message, { kind: "addon-not-built", details });
  }
}

const require = createRequire(import.meta.url);

/** native/<name>/build/Release/<name>.node, typed by the caller's description of its exports. */
export function loadAddon<T>(name: "nsm" | "vsock"): T {
  const path = fileURLToPath(new URL(`./${name}/build/Release/${name}.node`, import.meta.url));
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
