/**
 * Native addons (foundation; docs/native.md): node-gyp addons for AF_VSOCK sockets (native/vsock) and the AWS Nitro
 * Security Module device (native/nsm).
 *
 * Public surface: `loadAddon` (loads a built addon, `NativeAddonNotBuiltError` otherwise), `embeddedAddonPath` (an
 * addon the enclave image's bundle carries, as a file), the vsock socket API and
 * binding, the NSM device API, and the errors (`NativeError` root, `isNativeSystemError`).
 *
 * Concepts owned: the system calls JavaScript cannot make (vsock sockets, NSM ioctls). Loading this module loads
 * no addon: each is loaded on first use.
 */
export { NativeError, type NativeErrorKind, type NativeErrorOptions } from "./errors.js";
export {
  embeddedAddonPath,
  isNativeSystemError,
  loadAddon,
  NativeAddonNotBuiltError,
  type NativeSystemError,
} from "./load-addon.js";
export * from "./vsock/index.js";
export { type VsockBinding, vsockBinding } from "./vsock/binding.js";
export * from "./nsm/index.js";
