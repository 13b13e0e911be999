/**
 * @peculiar/x509, loaded on first use (after the reflect-metadata polyfill its dependency injection needs): a
 * process that never reads or writes a certificate (a host proving with enclaves that are already registered, a
 * node) does not evaluate it: ~60 ms of CPU at a host's start (more on a busy machine).
 */
import type * as X509 from "@peculiar/x509";

export type { X509 };

let loading: Promise<typeof X509> | undefined;

/** The @peculiar/x509 module, imported once per process. */
export function loadX509(): Promise<typeof X509> {
  loading ??= (async () => {
    await import("reflect-metadata");
    return import("@peculiar/x509");
  })();
  return loading;
}
