/**
 * Reads of the L2 endpoint shared by the witness strategies and the hint fetchers: a header by its hash (checked),
 * code by its hash as reth, op-reth, Base's node and
 * geth all serve it (`debug_dbGet(0x63‖codeHash)`), a value by its bare hash (this project's node, hash-scheme
 * geth), and the payload attributes that rebuild a block (for `debug_executePayload` and the `proofs` strategy's
 * own execution).
 */
import {
  type BlockHeader,
  bytesEqual,
  fromHex,
  keccak256,
  type PayloadAttributes,
  payloadAttributesOfHeader,
  type RollupConfig,
  toHex,
} from "../../chain/index.js";
import { type JsonRpcClient, MalformedResponseError, RemoteCallError } from "../../chain-rpc/index.js";

/** debug_dbGet of `key`: the bytes, or undefined when the client refuses the key or has nothing under it. */
async function dbGet(client: JsonRpcClient, key: string): Promise<Uint8Array | undefined> {
  let raw: unknown;
  try {
    raw = await client.call("debug_dbGet", [key]);
  } catch (error) {
    if (error instanceof RemoteCallError) return undefined;
    throw error;
  }
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(raw))
    throw new MalformedResponseError("debug_dbGet: the answer is not hex bytes");
  return fromHex(raw);
}

/** Code by its hash: debug_dbGet(0x63 ‖ hash) (unchecked: the caller keys it by its keccak256). */
export function codeByHash(client: JsonRpcClient, hash: Uint8Array): Promise<Uint8Array | undefined> {
  return dbGet(client, `0x63${toHex(hash).slice(2)}`);
}

/** Any value by its bare keccak256 (a hash-keyed trie database only). */
export function valueByBareHash(client: JsonRpcClient, hash: Uint8Array): Promise<Uint8Array | undefined> {
  return dbGet(client, toHex(hash));
}

/**
 * The RLP of the L2 header `hash` (debug_getRawHeader), checked to hash to it; "unknown" when the node does not
 * have it, "wrong-hash" when what it answered hashes to something else.
 */
export async function checkedRawHeader(
  client: JsonRpcClient,
  hash: Uint8Array,
): Promise<Uint8Array | "unknown" | "wrong-hash"> {
  const raw = await client.call("debug_getRawHeader", [toHex(hash)]);
  if (typeof raw !== "string") return "unknown";
  const rlp = fromHex(raw);
  return bytesEqual(keccak256(rlp), hash) ? rlp : "wrong-hash";
}

/** The payload attributes that rebuild `header`'s block (its transactions aside). */
export const payloadAttributesOf: (config: RollupConfig, header: BlockHeader) => PayloadAttributes =
  payloadAttributesOfHeader;
