/**
 * What a replica reads from its leader, checked before use (every byte from a socket is hostile): raw blocks
 * (`debug_getRawBlock`), `newHeads` notifications and flashblocks messages; and the payload attributes a
 * block's header (or a flashblock's base) implies, to re-execute it with the chain's block builder.
 */
import { RLP } from "@ethereumjs/rlp";
import {
  type AttributeFields,
  type BlockHeader,
  decodeHeader,
  fromHex,
  headerHash,
  type PayloadAttributes,
  payloadAttributesOfHeader,
  type RollupConfig,
} from "../../chain/index.js";
import { LeaderDataError, ReplicaVerificationError } from "./errors.js";

/** A block as the leader encodes it: the header, its hash (keccak of its RLP), the EIP-2718 transactions. */
export interface LeaderBlock {
  header: BlockHeader;
  hash: Uint8Array;
  transactions: Uint8Array[];
}

/** Most bytes of one raw block taken from the leader (the websocket's frame cap bounds it too). */
export const MAX_RAW_BLOCK_BYTES = 32 * 1024 * 1024;

const HEX = /^0x([0-9a-fA-F]{2})*$/;

function hexBytes(value: unknown, what: string, length?: number): Uint8Array {
  if (
    typeof value !== "string" ||
    !HEX.test(value) ||
    (length !== undefined && value.length !== 2 + 2 * length)
  )
    throw new LeaderDataError(`${what} is not ${length === undefined ? "hex bytes" : `${length} hex bytes`}`);
  return fromHex(value);
}

function quantity(value: unknown, what: string): bigint {
  if (typeof value !== "string" || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/.test(value))
    throw new LeaderDataError(`${what} is not a 64-bit hex quantity`);
  return BigInt(value);
}

/** Decodes `debug_getRawBlock`'s answer for block `number`: RLP [header, transactions, ommers, withdrawals]. */
export function decodeLeaderBlock(answer: unknown, number: bigint): LeaderBlock {
  if (answer === null) throw new LeaderDataError(`the leader has no block ${number}`);
  if (typeof answer !== "string" || answer.length > 2 + 2 * MAX_RAW_BLOCK_BYTES)
    throw new LeaderDataError(
      `block ${number}: the raw block is not a string of at most ${MAX_RAW_BLOCK_BYTES} bytes`,
    );
  const raw = hexBytes(answer, `block ${number}`);
  let decoded: unknown;
  try {
    decoded = RLP.decode(raw);
  } catch (e) {
    throw new LeaderDataError(`block ${number}: not RLP (${(e as Error).message})`);
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length < 2 ||
    !Array.isArray(decoded[0]) ||
    !Array.isArray(decoded[1])
  )
    throw new LeaderDataError(`block ${number}: not an RLP list [header, transactions, …]`);
  let header: BlockHeader;
  let hash: Uint8Array;
  try {
    const headerRlp = RLP.encode(decoded[0] as Uint8Array[]);
    header = decodeHeader(headerRlp);
    hash = headerHash(header);
  } catch (e) {
    throw new LeaderDataError(`block ${number}: bad header (${(e as Error).message})`);
  }
  if (header.number !== number)
    throw new LeaderDataError(`asked for block ${number}, the leader sent block ${header.number}`);
  // Typed transactions are byte strings in a block's body; legacy ones are RLP lists.
  const transactions = (decoded[1] as unknown[]).map((tx) =>
    tx instanceof Uint8Array ? tx : RLP.encode(tx as Uint8Array[]),
  );
  return { header, hash, transactions };
}

/** A `newHeads` notification: the sealed block's number and hash. */
export function parseLeaderHead(result: unknown): { number: bigint; hash: Uint8Array } {
  const r = result as { number?: unknown; hash?: unknown } | null;
  if (typeof r !== "object" || r === null)
    throw new LeaderDataError("a newHeads notification is not an object");
  return { number: quantity(r.number, "newHeads number"), hash: hexBytes(r.hash, "newHeads hash", 32) };
}

/** The header fields a flashblock's base fixes (what the payload attributes set), with the parent's hash. */
export interface FlashblockBaseFields {
  parentHash: Uint8Array;
  number: bigint;
  timestamp: bigint;
  mixHash: Uint8Array;
  beneficiary: Uint8Array;
  parentBeaconBlockRoot: Uint8Array;
  gasLimit: bigint;
  extraData: Uint8Array;
}

/** A flashblocks message as the replica applies it; the rest of the message is recomputed, not trusted. */
export interface LeaderFlashblock {
  payloadId: Uint8Array;
  index: number;
  number: bigint;
  base: FlashblockBaseFields | undefined;
  blockHash: Uint8Array;
  transactions: Uint8Array[];
}

/** Most transactions one flashblock may carry (the sequencer adds at most 5 000 a snapshot). */
export const MAX_FLASHBLOCK_TRANSACTIONS = 10_000;

export function parseLeaderFlashblock(message: unknown): LeaderFlashblock {
  const m = message as Record<string, unknown> | null;
  if (typeof m !== "object" || m === null) throw new LeaderDataError("a flashblock is not an object");
  const index = m.index;
  if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0 || index > 1_000_000)
    throw new LeaderDataError("a flashblock's index is not a small whole number");
  const diff = m.diff as Record<string, unknown> | undefined;
  const metadata = m.metadata as Record<string, unknown> | undefined;
  if (typeof diff !== "object" || diff === null || typeof metadata !== "object" || metadata === null)
    throw new LeaderDataError("a flashblock lacks its diff or metadata");
  const number = metadata.block_number;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1)
    throw new LeaderDataError("a flashblock's block_number is not a block number");
  const txs = diff.transactions;
  if (!Array.isArray(txs) || txs.length > MAX_FLASHBLOCK_TRANSACTIONS)
    throw new LeaderDataError(
      `a flashblock's transactions are not a list of at most ${MAX_FLASHBLOCK_TRANSACTIONS}`,
    );
  let base: FlashblockBaseFields | undefined;
  if (index === 0) {
    const b = m.base as Record<string, unknown> | undefined;
    if (typeof b !== "object" || b === null) throw new LeaderDataError("flashblock 0 lacks its base");
    base = {
      parentHash: hexBytes(b.parent_hash, "base.parent_hash", 32),
      number: quantity(b.block_number, "base.block_number"),
      timestamp: quantity(b.timestamp, "base.timestamp"),
      mixHash: hexBytes(b.prev_randao, "base.prev_randao", 32),
      beneficiary: hexBytes(b.fee_recipient, "base.fee_recipient", 20),
      parentBeaconBlockRoot: hexBytes(b.parent_beacon_block_root, "base.parent_beacon_block_root", 32),
      gasLimit: quantity(b.gas_limit, "base.gas_limit"),
      extraData: hexBytes(b.extra_data, "base.extra_data"),
    };
    if (base.number !== BigInt(number))
      throw new LeaderDataError("a flashblock's base and metadata name different blocks");
    if (base.extraData.length > 32) throw new LeaderDataError("base.extra_data is longer than 32 bytes");
  }
  return {
    payloadId: hexBytes(m.payload_id, "payload_id", 8),
    index,
    number: BigInt(number),
    base,
    blockHash: hexBytes(diff.block_hash, "diff.block_hash", 32),
    transactions: txs.map((tx, i) => hexBytes(tx, `diff.transactions[${i}]`)),
  };
}

/**
 * The payload attributes that built a block with these header fields: time, randomness, fee recipient, beacon
 * root (Ecotone+), gas limit, and the EIP-1559 parameters (Holocene+) and minimum base fee (Jovian+) its
 * extraData carries. Re-executing with them must give the header back (the replica checks the hash).
 */
export function attributesOf(config: RollupConfig, number: bigint, h: AttributeFields): PayloadAttributes {
  try {
    return payloadAttributesOfHeader(config, h);
  } catch (e) {
    // Only a Holocene header's extraData can fail to decode.
    throw new ReplicaVerificationError(number, `extraData: ${(e as Error).message}`);
  }
}
