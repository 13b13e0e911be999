/**
 * The L2 node's block hash and output root at a block number, over the standard methods op-reth, op-geth, Base's
 * node and ours answer: the header by number (`debug_getRawHeader`), and before Isthmus the L2ToL1MessagePasser's
 * storage root (`eth_getProof` with no keys). The host names these as the boundaries of a range it proves in
 * several Prove frames (docs/host.md "Ranges in frames"); nothing here is trusted: a wrong root is a claim the
 * enclave's re-execution refuses.
 */
import {
  decodeHeader,
  fromHex,
  headerMessagePasserRoot,
  keccak256,
  L2_TO_L1_MESSAGE_PASSER,
  outputRootPreimageV0,
  toHex,
} from "../../chain/index.js";
import { type JsonRpcClient, MalformedResponseError } from "../../chain-rpc/index.js";
import { nodeRawHeader } from "./node-headers.js";
import { withRetries } from "./requests.js";

/** A block's hash and output root as the L2 node has them. */
export interface L2Output {
  readonly hash: Uint8Array;
  readonly outputRoot: Uint8Array;
}

/** The L2ToL1MessagePasser's storage root at `blockHash` (eth_getProof with no storage keys). */
async function messagePasserStorageRoot(
  l2: JsonRpcClient,
  blockHash: Uint8Array,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const proof = (await withRetries(
    () =>
      l2.call("eth_getProof", [toHex(L2_TO_L1_MESSAGE_PASSER.bytes), [], { blockHash: toHex(blockHash) }]),
    signal,
  )) as { storageHash?: unknown } | null;
  const storageHash = proof?.storageHash;
  if (typeof storageHash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(storageHash))
    throw new MalformedResponseError("eth_getProof: the answer has no 32-byte storageHash");
  return fromHex(storageHash);
}

/** The L2 node's hash and output root (version 0) at block `number`. */
export async function l2OutputAt(l2: JsonRpcClient, number: bigint, signal?: AbortSignal): Promise<L2Output> {
  const raw = await nodeRawHeader(l2, number, signal);
  const header = decodeHeader(raw);
  if (header.number !== number)
    throw new MalformedResponseError(
      `debug_getRawHeader: asked for block ${number}, got block ${header.number}`,
    );
  const hash = keccak256(raw);
  const passerRoot = headerMessagePasserRoot(header) ?? (await messagePasserStorageRoot(l2, hash, signal));
  return { hash, outputRoot: keccak256(outputRootPreimageV0(header.stateRoot, passerRoot, hash)) };
}
