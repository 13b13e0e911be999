/**
 * Signer addresses: the last 20 bytes of keccak256(public key without its 0x04 prefix), computed from a
 * public key (the host's routing, the registrar) or recovered from a proposal signature (verifiers).
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";

/** Length of an uncompressed secp256k1 public key (0x04 ‖ x ‖ y). */
export const PUBLIC_KEY_LENGTH = 65;
/** Length of a proposal signature: r ‖ s ‖ v. */
export const SIGNATURE_LENGTH = 65;

/** Signer address: the last 20 bytes of keccak256 of the public key without its 0x04 prefix. */
export function signerAddressOf(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== PUBLIC_KEY_LENGTH || publicKey[0] !== 0x04)
    throw new RangeError(`expected a ${PUBLIC_KEY_LENGTH}-byte uncompressed public key`);
  return keccak_256(publicKey.subarray(1)).slice(12);
}

/** The signer address of a 65-byte r‖s‖v signature (v ∈ {0,1}) over a 32-byte digest. */
export function recoverSignerAddress(digest: Uint8Array, signature: Uint8Array): Uint8Array {
  if (signature.length !== SIGNATURE_LENGTH) throw new RangeError("expected a 65-byte signature");
  const v = signature[64] as number;
  if (v > 1) throw new RangeError(`recovery id must be 0 or 1, got ${v}`);
  const sig = secp256k1.Signature.fromBytes(signature.subarray(0, 64), "compact").addRecoveryBit(v);
  const publicKey = sig.recoverPublicKey(digest).toBytes(false);
  return signerAddressOf(publicKey);
}
