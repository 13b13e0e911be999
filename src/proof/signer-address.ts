/** Signer address = the last 20 bytes of keccak256(public key without its 0x04 prefix). */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { PUBLIC_KEY_LENGTH } from "./enclave-client.js";

export function signerAddressOf(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== PUBLIC_KEY_LENGTH || publicKey[0] !== 0x04)
    throw new RangeError(`expected a ${PUBLIC_KEY_LENGTH}-byte uncompressed public key`);
  return keccak_256(publicKey.subarray(1)).slice(12);
}
