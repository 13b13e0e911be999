/**
 * OP output roots (version 0): keccak256(version ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash), each 32
 * bytes. The one place that builds the 128-byte preimage, opens it, and reads the message passer's storage root
 * from a header (from Isthmus the header carries it).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { ChainError } from "./errors.js";
import type { BlockHeader } from "./header.js";
import { bytesEqual } from "./hex.js";

/** Length of a version-0 output root's preimage. */
export const OUTPUT_ROOT_V0_PREIMAGE_BYTES = 128;

/** What a version-0 output root commits to. */
export interface OutputRootV0Fields {
  readonly stateRoot: Uint8Array;
  readonly messagePasserStorageRoot: Uint8Array;
  readonly blockHash: Uint8Array;
}

/** Why a preimage does not open an output root. */
export type OutputRootPreimageFault = "length" | "hash" | "version";

/** A preimage that does not open the output root: wrong length, another hash, or not version 0. */
export class OutputRootPreimageError extends ChainError {
  override readonly name = "OutputRootPreimageError";
  constructor(
    message: string,
    readonly fault: OutputRootPreimageFault,
  ) {
    super(message, "invalid-output-root-preimage", { details: { fault } });
  }
}

/** The 128-byte preimage: 32 zero bytes (version 0) ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash. */
export function outputRootPreimageV0(
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
  const buf = new Uint8Array(OUTPUT_ROOT_V0_PREIMAGE_BYTES);
  buf.set(stateRoot, 32);
  buf.set(messagePasserStorageRoot, 64);
  buf.set(blockHash, 96);
  return buf;
}

/** keccak256(version(32 zero bytes) ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash). */
export function outputRootV0(
  stateRoot: Uint8Array,
  messagePasserStorageRoot: Uint8Array,
  blockHash: Uint8Array,
): Uint8Array {
  return keccak_256(outputRootPreimageV0(stateRoot, messagePasserStorageRoot, blockHash));
}

/**
 * Opens `outputRoot` with `preimage`: the three roots it commits to. OutputRootPreimageError (its `fault`) when
 * the preimage is not 128 bytes, does not hash to the root, or is not of version 0.
 */
export function openOutputRootV0(outputRoot: Uint8Array, preimage: Uint8Array): OutputRootV0Fields {
  if (preimage.length !== OUTPUT_ROOT_V0_PREIMAGE_BYTES)
    throw new OutputRootPreimageError(`the output root's preimage has ${preimage.length} bytes`, "length");
  if (!bytesEqual(keccak_256(preimage), outputRoot))
    throw new OutputRootPreimageError("the output root's preimage does not hash to it", "hash");
  if (preimage.subarray(0, 32).some((b) => b !== 0))
    throw new OutputRootPreimageError("the output root is not version 0", "version");
  return {
    stateRoot: preimage.slice(32, 64),
    messagePasserStorageRoot: preimage.slice(64, 96),
    blockHash: preimage.slice(96, 128),
  };
}

/**
 * The L2ToL1MessagePasser storage root a header commits to: from Isthmus (a header with a requests hash) its
 * withdrawalsRoot. Undefined before Isthmus, where the withdrawalsRoot is the empty root and the message passer's
 * storage root is read from the state instead.
 */
export function headerMessagePasserRoot(
  header: Pick<BlockHeader, "requestsHash" | "withdrawalsRoot">,
): Uint8Array | undefined {
  return header.requestsHash === undefined ? undefined : header.withdrawalsRoot;
}
