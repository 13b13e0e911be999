/**
 * What the enclave logs at boot about the code it runs: the SHA-256 of its image bundle (scripts/build-enclave.ts)
 * when it runs from one, so an operator can match a running enclave to a build's manifest (docs/enclave.md "The
 * enclave image"). A bundle cannot contain its own hash, so the process reads the file it was started from.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** Defined (true) by the enclave image's bundler only; read through `typeof`. */
declare const ENCLAVE_IMAGE_BUNDLE: boolean | undefined;

/** The hex SHA-256 of the bundle at `bundlePath` when this code runs from the enclave image's bundle; else null. */
export function enclaveBundleHash(bundlePath: string): string | null {
  if (typeof ENCLAVE_IMAGE_BUNDLE === "undefined" || !ENCLAVE_IMAGE_BUNDLE) return null;
  return createHash("sha256").update(readFileSync(bundlePath)).digest("hex");
}
