/**
 * AWS Nitro security module: the NSM device (/dev/nsm) through the native addon in native/nsm.
 * Opening reads PCR0 once (the boot measurement; start-up aborts unless it is 48 bytes); random bytes come
 * from the module's GetRandom; attestation documents are the module's own COSE_Sign1 documents. When the
 * device cannot be opened (not inside a Nitro enclave, or the addon is not built) opening fails loudly
 * with NitroUnavailableError: the enclave never falls back to local mode on its own.
 */
import {
  NativeAddonNotBuiltError,
  NSM_DEVICE_PATH,
  NsmDevice,
  NsmDeviceUnavailableError,
} from "../native/index.js";
import { PCR0_LENGTH, Pcr0LengthError } from "../src/attestation/index.js";
import { EnclaveError } from "./errors.js";
import { type AttestationRequest, checkAttestationRequest, type SecurityModule } from "./security-module.js";

export class NitroUnavailableError extends EnclaveError<"nitro-unavailable"> {
  override readonly name = "NitroUnavailableError";
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, { kind: "nitro-unavailable", ...options });
  }
}

/** GetRandom answered no bytes: the loop filling a request would never end. */
export class NitroRandomSourceError extends EnclaveError<"nitro-random-source"> {
  override readonly name = "NitroRandomSourceError";
  constructor(message: string) {
    super(message, { kind: "nitro-random-source" });
  }
}

export class NitroSecurityModule implements SecurityModule {
  readonly mode = "nitro" as const;

  private constructor(
    private readonly device: NsmDevice,
    private readonly measuredPcr0: Uint8Array,
  ) {}

  /** Opens the device and reads PCR0; throws Pcr0LengthError (and closes the device) unless it is 48 bytes. */
  static open(devicePath: string = NSM_DEVICE_PATH): NitroSecurityModule {
    const device = NsmDevice.open(devicePath);
    try {
      const { data } = device.describePcrSync(0);
      if (data.length !== PCR0_LENGTH) throw new Pcr0LengthError(data.length);
      return new NitroSecurityModule(device, data);
    } catch (error) {
      device.close();
      throw error;
    }
  }

  /** `length` bytes from the module's GetRandom, asked as many times as it takes. */
  randomBytes(length: number): Uint8Array {
    if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`bad random length ${length}`);
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const chunk = this.device.getRandomSync();
      if (chunk.length === 0) throw new NitroRandomSourceError("the NSM's GetRandom returned no bytes");
      const take = Math.min(chunk.length, length - filled);
      out.set(chunk.subarray(0, take), filled);
      filled += take;
    }
    return out;
  }

  pcr0(): Uint8Array {
    return this.measuredPcr0.slice();
  }

  async attest(request: AttestationRequest): Promise<Uint8Array> {
    checkAttestationRequest(request);
    return this.device.attestation({
      userData: request.userData,
      nonce: request.nonce,
      publicKey: request.publicKey,
    });
  }

  close(): void {
    this.device.close();
  }
}

export async function openNitroSecurityModule(devicePath: string = NSM_DEVICE_PATH): Promise<SecurityModule> {
  try {
    return NitroSecurityModule.open(devicePath);
  } catch (error) {
    if (error instanceof NsmDeviceUnavailableError || error instanceof NativeAddonNotBuiltError) {
      throw new NitroUnavailableError(
        `${error.message}; not inside an AWS Nitro enclave? Start the enclave with --local for development (never in production)`,
        { cause: error },
      );
    }
    throw error;
  }
}
