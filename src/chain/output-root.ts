/** OP output roots (version 0). */
import { keccak_256 } from "@noble/hashes/sha3.js";

/** keccak256(version(32 zero bytes) ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash). */
export function outputRootV0(
  stateRoot: Uint8Array,
  messagePasserStorageRoot: Uint8Array,
  blockHash: Uint8Array,
): Uint8Array {
  for (const [name, v] of [
    ["stateRoot", stateRoot],
    ["messagePasserStorageRoot", messagePasserStorageRoot],
    ["blockHash", blockHash],
  ] as const) {
    if (v.length !== 32) throw new RangeError(`${name} must be 32 bytes`);
  }
  const buf = new Uint8Array(128);
  buf.set(stateRoot, 32);
  buf.set(messagePasserStorageRoot, 64);
  buf.set(blockHash, 96);
  return keccak_256(buf);
}
