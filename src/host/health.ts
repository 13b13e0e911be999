/**
 * The host's health flag (docs/protocol.md "Host health flag"). With a registry: unhealthy until some
 * configured enclave's signer is confirmed valid, then healthy for good (a later registry failure or
 * deregistration does not flip it back). Without a registry: healthy while the server runs.
 */
import type { HostMetrics } from "./metrics.js";

export class HealthLatch {
  private latched = false;

  constructor(
    readonly registryConfigured: boolean,
    private readonly metrics?: HostMetrics,
  ) {
    this.metrics?.healthy.set(this.healthy ? 1 : 0);
  }

  get healthy(): boolean {
    return !this.registryConfigured || this.latched;
  }

  /** A configured enclave's signer was confirmed valid in the registry. */
  confirmValidSigner(): void {
    this.latched = true;
    this.metrics?.healthy.set(1);
  }
}
