/**
 * Registration of attested signers: each signer is bound onchain to the image hash its attestation
 * proved, unless it already is (so a registrar can run repeatedly). A signer of an image other than the
 * active one is registered too, and reported as not valid yet: that is how an image rotation starts
 * (register the new image's signers, then switch the active image hash).
 */
import { type Address, bytesToHex, getAddress, type Hex } from "viem";
import type { AttestedSigner } from "./attested-signers.js";
import type { RegistryAdmin } from "./registry-admin.js";

export type RegistrationAction = "registered" | "already-registered" | "would-register";

export interface RegistrationOutcome {
  readonly index: number;
  readonly signer: Address;
  readonly imageHash: Hex;
  readonly mode: AttestedSigner["mode"];
  readonly action: RegistrationAction;
  /** The registerSigner transaction (action "registered" only). */
  readonly transactionHash?: Hex;
  /** isValidSigner after this run: bound to the registry's active image hash. */
  readonly valid: boolean;
  readonly activeImageHash: Hex;
}

export async function registerAttestedSigners(
  signers: readonly AttestedSigner[],
  admin: RegistryAdmin,
  options: { readonly dryRun?: boolean } = {},
): Promise<RegistrationOutcome[]> {
  const activeImageHash = await admin.activeImageHash();
  const outcomes: RegistrationOutcome[] = [];
  // One at a time: the registrar account's nonces stay in order and a failure stops the run.
  for (const attested of signers) {
    const signer = getAddress(bytesToHex(attested.address));
    const imageHash = bytesToHex(attested.imageHash);
    const before = await admin.signerRecord(signer);
    const base = { index: attested.index, signer, imageHash, mode: attested.mode, activeImageHash };
    if (before.registered && before.imageHash === imageHash) {
      outcomes.push({ ...base, action: "already-registered", valid: before.valid });
    } else if (options.dryRun === true) {
      outcomes.push({ ...base, action: "would-register", valid: before.valid });
    } else {
      const transactionHash = await admin.registerSigner(signer, imageHash);
      const after = await admin.signerRecord(signer);
      outcomes.push({ ...base, action: "registered", transactionHash, valid: after.valid });
    }
  }
  return outcomes;
}
