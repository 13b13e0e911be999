/**
 * The Nitro Security Module device (/dev/nsm) through the nsm addon: one CBOR request, one CBOR response
 * per ioctl. Synchronous calls exist for start-up (PCR0, random bytes for the signer key); attestation
 * runs on the libuv thread pool so a serving enclave's event loop is not blocked.
 */
import { getSystemErrorName } from "node:util";
import { NativeError } from "../errors.js";
import { isNativeSystemError, loadAddon } from "../load-addon.js";
import {
  decodeNsmResponse,
  encodeNsmRequest,
  type NsmErrorCode,
  type NsmRequest,
  type NsmResponse,
} from "./messages.js";

interface NsmBinding {
  open(path: string): number;
  close(fd: number): void;
  requestSync(fd: number, request: Uint8Array): Buffer;
  request(fd: number, request: Uint8Array): Promise<Buffer>;
  readonly REQUEST_MAX_SIZE: number;
  readonly RESPONSE_MAX_SIZE: number;
  readonly IOCTL_RAW: number;
}

export const NSM_DEVICE_PATH = "/dev/nsm";

let binding: NsmBinding | undefined;
function nsmBinding(): NsmBinding {
  binding ??= loadAddon<NsmBinding>("nsm");
  return binding;
}

/** The ioctl request number the addon uses (for documentation and tests). */
export function nsmIoctlNumber(): number {
  return nsmBinding().IOCTL_RAW;
}

function errnoName(error: unknown): string {
  if (isNativeSystemError(error) && error.errno !== undefined) return getSystemErrorName(-error.errno);
  return "unknown";
}

/** The device could not be opened (absent outside a Nitro enclave, or not permitted). */
export class NsmDeviceUnavailableError extends NativeError<"nsm-device-unavailable"> {
  override readonly name = "NsmDeviceUnavailableError";
  constructor(
    readonly path: string,
    readonly code: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(`cannot open the NSM device ${path}: ${code}`, {
      kind: "nsm-device-unavailable",
      details: { path, code },
      cause: options.cause,
    });
  }
}

/** The driver refused the exchange (ENOTTY: not an NSM device; EMSGSIZE: request too large; ...). */
export class NsmIoctlError extends NativeError<"nsm-ioctl"> {
  override readonly name = "NsmIoctlError";
  constructor(
    readonly code: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(`NSM ioctl failed: ${code}`, { kind: "nsm-ioctl", details: { code }, cause: options.cause });
  }
}

/** The module answered with its Error variant. */
export class NsmError extends NativeError<"nsm-error"> {
  override readonly name = "NsmError";
  constructor(
    readonly request: NsmRequest["kind"],
    readonly code: NsmErrorCode,
  ) {
    super(`the NSM refused ${request}: ${code}`, { kind: "nsm-error", details: { request, code } });
  }
}

export class NsmDeviceClosedError extends NativeError<"nsm-device-closed"> {
  override readonly name = "NsmDeviceClosedError";
  constructor(message: string) {
    super(message, { kind: "nsm-device-closed" });
  }
}

/** The module answered a different variant than the one asked for. */
export class NsmUnexpectedResponseError extends NativeError<"nsm-unexpected-response"> {
  override readonly name = "NsmUnexpectedResponseError";
  constructor(message: string, details: { readonly request: NsmRequest["kind"]; readonly answered: string }) {
    super(message, { kind: "nsm-unexpected-response", details });
  }
}

type Answer<K extends NsmResponse["kind"]> = Extract<NsmResponse, { kind: K }>;

function expect<K extends Exclude<NsmResponse["kind"], "Error">>(
  request: NsmRequest,
  kind: K,
  response: NsmResponse,
): Answer<K> {
  if (response.kind === "Error") throw new NsmError(request.kind, response.code);
  if (response.kind !== kind) {
    throw new NsmUnexpectedResponseError(`asked ${request.kind}, the NSM answered ${response.kind}`, {
      request: request.kind,
      answered: response.kind,
    });
  }
  return response as Answer<K>;
}

export class NsmDevice {
  private fd: number | null;
  private inFlight = 0;
  private closeRequested = false;

  private constructor(fd: number) {
    this.fd = fd;
  }

  /** Opens the device read-write. Throws NsmDeviceUnavailableError when it is not there. */
  static open(path: string = NSM_DEVICE_PATH): NsmDevice {
    const addon = nsmBinding();
    try {
      return new NsmDevice(addon.open(path));
    } catch (error) {
      throw new NsmDeviceUnavailableError(path, errnoName(error), { cause: error });
    }
  }

  private descriptor(): number {
    if (this.fd === null || this.closeRequested) throw new NsmDeviceClosedError("the NSM device is closed");
    return this.fd;
  }

  private exchangeSync(request: NsmRequest): NsmResponse {
    let raw: Buffer;
    try {
      raw = nsmBinding().requestSync(this.descriptor(), encodeNsmRequest(request));
    } catch (error) {
      if (isNativeSystemError(error)) throw new NsmIoctlError(errnoName(error), { cause: error });
      throw error;
    }
    return decodeNsmResponse(raw);
  }

  private async exchange(request: NsmRequest): Promise<NsmResponse> {
    const pending = nsmBinding().request(this.descriptor(), encodeNsmRequest(request));
    this.inFlight += 1;
    let raw: Buffer;
    try {
      raw = await pending;
    } catch (error) {
      if (isNativeSystemError(error)) throw new NsmIoctlError(errnoName(error), { cause: error });
      throw error;
    } finally {
      this.inFlight -= 1;
      if (this.closeRequested && this.inFlight === 0) this.release();
    }
    return decodeNsmResponse(raw);
  }

  describePcrSync(index: number): { lock: boolean; data: Uint8Array } {
    const request: NsmRequest = { kind: "DescribePCR", index };
    const { lock, data } = expect(request, "DescribePCR", this.exchangeSync(request));
    return { lock, data };
  }

  /** One GetRandom answer: as many bytes as the module hands out per call (not chosen by the caller). */
  getRandomSync(): Uint8Array {
    const request: NsmRequest = { kind: "GetRandom" };
    return expect(request, "GetRandom", this.exchangeSync(request)).random;
  }

  /** A COSE_Sign1 attestation document signed by the module, embedding the given fields. */
  async attestation(fields: {
    userData: Uint8Array | null;
    nonce: Uint8Array | null;
    publicKey: Uint8Array | null;
  }): Promise<Uint8Array> {
    const request: NsmRequest = { kind: "Attestation", ...fields };
    return expect(request, "Attestation", await this.exchange(request)).document;
  }

  /** Closes the descriptor, after any attestation still running on the thread pool has finished. */
  close(): void {
    this.closeRequested = true;
    if (this.inFlight === 0) this.release();
  }

  private release(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    nsmBinding().close(fd);
  }
}
