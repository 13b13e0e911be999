/**
 * The native addons' public surface: the addon loader, AF_VSOCK sockets (native/vsock) and the AWS Nitro
 * Security Module device (native/nsm). Loading this module loads no addon: each is loaded on first use.
 */
export { NativeError, type NativeErrorKind, type NativeErrorOptions } from "./errors.js";
export {
  isNativeSystemError,
  loadAddon,
  NativeAddonNotBuiltError,
  type NativeSystemError,
} from "./load-addon.js";
export * from "./vsock/index.js";
export { type VsockBinding, vsockBinding } from "./vsock/binding.js";
export * from "./nsm/index.js";
