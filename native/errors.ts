/**
 * The native addons' errors (the project's error model, src/errors). `NativeError` is the root; callers
 * branch on the class or on `kind`, never on the message text. One exception keeps its built-in base:
 * `VsockArgumentError` is a RangeError (a bad argument, as Node's own socket calls report it).
 */
import { SuiteError, type SuiteErrorOptions } from "../src/errors/index.js";

export type NativeErrorKind =
  | "addon-not-built"
  | "vsock-forbidden"
  | "vsock-system"
  | "stream-handle"
  | "nsm-request-encode"
  | "nsm-response-decode"
  | "nsm-device-unavailable"
  | "nsm-ioctl"
  | "nsm-error"
  | "nsm-device-closed"
  | "nsm-unexpected-response";

/** What a concrete error passes besides its message: structured fields and the underlying error. */
export type NativeErrorOptions = Omit<SuiteErrorOptions<NativeErrorKind>, "kind">;

/** Root of the native addons' errors. */
export abstract class NativeError<Kind extends NativeErrorKind = NativeErrorKind> extends SuiteError<Kind> {
  readonly package = "native";
}
