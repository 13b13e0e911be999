/**
 * AWS Nitro security module. The NSM device is reached through a native addon (ioctl on /dev/nsm:
 * DescribePCR, GetRandom, Attestation) that is not part of this repository yet. Until it is, opening the
 * Nitro module fails loudly: the enclave never falls back to local mode on its own.
 */
import type { SecurityModule } from "./security-module.js";

export class NitroUnavailableError extends Error {
  override readonly name = "NitroUnavailableError";
}

export async function openNitroSecurityModule(): Promise<SecurityModule> {
  throw new NitroUnavailableError(
    "the AWS Nitro NSM native addon is not built in this repository yet; start the enclave with --local for development (never in production)",
  );
}
