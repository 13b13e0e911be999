/**
 * secp256k1 public-key recovery for sender recovery, the ECRECOVER precompile and EIP-7702 authorities.
 * libsecp256k1 through the `secp256k1` package's N-API addon (its prebuilt binary, or one node-gyp built at
 * install) when it loads: about 30x faster than the pure-JS @noble/curves path of @ethereumjs/util, which
 * answers when the addon cannot be loaded. Both take the same arguments and apply the same rules: the
 * signature's v is turned into a recovery id by @ethereumjs/util (0 or 1 only), r and s must be in [1, n-1],
 * and the high-s rule of transactions is checked by the caller before recovery (the precompile accepts
 * high s). Results are the 64-byte uncompressed public key without its 0x04 prefix.
 */
import { createRequire } from "node:module";
// The package's API over its addon (what `secp256k1/bindings` returns), bundled into the enclave image.
import secp256k1Api from "secp256k1/lib/index.js";
import {
  Address,
  type EOACode7702AuthorizationListBytesItem,
  EthereumJSErrorWithoutCode,
  bytesToBigInt,
  calculateSigRecovery,
  ecrecover as ecrecoverNoble,
  eoaCode7702AuthorizationHashedMessageToSign,
  publicToAddress,
  setLengthLeft,
  unpadBytes,
} from "@ethereumjs/util";
import { embeddedAddonPath } from "../../native/index.js";

/** @ethereumjs/common's `customCrypto.ecrecover` signature. */
export type Ecrecover = (
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
) => Uint8Array;

/** The part of the `secp256k1` package's API used here (its libsecp256k1 binding). */
interface Libsecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

export type Secp256k1Backend = "libsecp256k1" | "noble";

function loadLibsecp256k1(): Libsecp256k1 | undefined {
  if (process.env.OP_ENGINE_SECP256K1 === "noble") return undefined;
  try {
    const require = createRequire(import.meta.url);
    // The enclave image's bundle carries the package's addon (it has no node_modules): the package's own API over
    // it, as `secp256k1/bindings` builds it from the addon node-gyp-build finds.
    const embedded = embeddedAddonPath("secp256k1");
    if (embedded !== undefined) {
      const addon = require(embedded) as { Secp256k1: new () => unknown };
      return secp256k1Api(new addon.Secp256k1()) as Libsecp256k1;
    }
    // `secp256k1/bindings` is the native binding only (the package's main entry would fall back to elliptic).
    return require("secp256k1/bindings") as Libsecp256k1;
  } catch {
    return undefined;
  }
}

const lib = loadLibsecp256k1();

/** Which implementation `ecrecover` uses in this process. */
export const secp256k1Backend: Secp256k1Backend = lib === undefined ? "noble" : "libsecp256k1";

/** Pure JS (@noble/curves through @ethereumjs/util). */
export const ecrecoverJs: Ecrecover = ecrecoverNoble;

/** libsecp256k1; undefined when its addon is not loaded. */
export const ecrecoverNative: Ecrecover | undefined =
  lib === undefined
    ? undefined
    : (msgHash, v, r, s, chainId) => {
        const recovery = calculateSigRecovery(v, chainId);
        if (recovery !== 0n && recovery !== 1n) throw EthereumJSErrorWithoutCode("Invalid signature v value");
        const sig = new Uint8Array(64);
        sig.set(setLengthLeft(r, 32), 0);
        sig.set(setLengthLeft(s, 32), 32);
        // Throws on r or s out of [1, n-1], a wrong message length or no point for r (as noble does).
        return lib.ecdsaRecover(sig, Number(recovery), msgHash, false).subarray(1);
      };

/** The fastest implementation that loaded. */
export const ecrecover: Ecrecover = ecrecoverNative ?? ecrecoverJs;

/** EIP-7702: the authority that signed an authorization tuple (@ethereumjs/util's eoaCode7702RecoverAuthority on `ecrecover`). */
export function recoverAuthority(item: EOACode7702AuthorizationListBytesItem): Address {
  const [chainId, address, nonce, yParity, r, s] = item;
  const msgHash = eoaCode7702AuthorizationHashedMessageToSign([
    unpadBytes(chainId),
    address,
    unpadBytes(nonce),
  ]);
  return new Address(
    publicToAddress(ecrecover(msgHash, bytesToBigInt(unpadBytes(yParity)), unpadBytes(r), unpadBytes(s))),
  );
}
