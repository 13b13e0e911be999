/** Block headers: fields, RLP encoding, hash, and parsing from JSON-RPC objects. */
import { RLP } from "@ethereumjs/rlp";
import { keccak256 as keccak_256 } from "./keccak.js";
import { bigIntToBytes, bytesToBigInt, fromHex, hexToBigInt } from "./hex.js";
import { ChainError, type ChainErrorOptions } from "./errors.js";

export interface BlockHeader {
  parentHash: Uint8Array;
  ommersHash: Uint8Array;
  beneficiary: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  baseFeePerGas?: bigint;
  withdrawalsRoot?: Uint8Array;
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  requestsHash?: Uint8Array;
}

/** keccak256(rlp([])). */
export const EMPTY_OMMERS_HASH = fromHex(
  "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347",
);
/** Root of the empty trie, keccak256(rlp("")). */
export const EMPTY_TRIE_ROOT = fromHex("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");

export class InvalidHeaderError extends ChainError {
  constructor(message: string, options?: ChainErrorOptions) {
    super(message, "invalid-header", options);
  }
}

/** RLP list of the header; optional fork fields are appended in order while present. */
export function encodeHeader(h: BlockHeader): Uint8Array {
  const fields: Uint8Array[] = [
    h.parentHash,
    h.ommersHash,
    h.beneficiary,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    bigIntToBytes(h.difficulty),
    bigIntToBytes(h.number),
    bigIntToBytes(h.gasLimit),
    bigIntToBytes(h.gasUsed),
    bigIntToBytes(h.timestamp),
    h.extraData,
    h.mixHash,
    h.nonce,
  ];
  const optional: (Uint8Array | undefined)[] = [
    h.baseFeePerGas === undefined ? undefined : bigIntToBytes(h.baseFeePerGas),
    h.withdrawalsRoot,
    h.blobGasUsed === undefined ? undefined : bigIntToBytes(h.blobGasUsed),
    h.excessBlobGas === undefined ? undefined : bigIntToBytes(h.excessBlobGas),
    h.parentBeaconBlockRoot,
    h.requestsHash,
  ];
  let seenGap = false;
  for (const f of optional) {
    if (f === undefined) {
      seenGap = true;
      continue;
    }
    if (seenGap) throw new InvalidHeaderError("header has a later fork field without an earlier one");
    fields.push(f);
  }
  return RLP.encode(fields);
}

export function headerHash(h: BlockHeader): Uint8Array {
  return keccak_256(encodeHeader(h));
}

/** Decodes an RLP header (e.g. a header preimage). */
export function decodeHeader(rlp: Uint8Array): BlockHeader {
  const d = RLP.decode(rlp);
  if (!Array.isArray(d) || d.length < 15 || d.some((f) => !(f instanceof Uint8Array))) {
    throw new InvalidHeaderError("header must be an RLP list of at least 15 byte strings");
  }
  const f = d as Uint8Array[];
  const h: BlockHeader = {
    parentHash: f[0]!,
    ommersHash: f[1]!,
    beneficiary: f[2]!,
    stateRoot: f[3]!,
    transactionsRoot: f[4]!,
    receiptsRoot: f[5]!,
    logsBloom: f[6]!,
    difficulty: bytesToBigInt(f[7]!),
    number: bytesToBigInt(f[8]!),
    gasLimit: bytesToBigInt(f[9]!),
    gasUsed: bytesToBigInt(f[10]!),
    timestamp: bytesToBigInt(f[11]!),
    extraData: f[12]!,
    mixHash: f[13]!,
    nonce: f[14]!,
  };
  if (f[15]) h.baseFeePerGas = bytesToBigInt(f[15]);
  if (f[16]) h.withdrawalsRoot = f[16];
  if (f[17]) h.blobGasUsed = bytesToBigInt(f[17]);
  if (f[18]) h.excessBlobGas = bytesToBigInt(f[18]);
  if (f[19]) h.parentBeaconBlockRoot = f[19];
  if (f[20]) h.requestsHash = f[20];
  return h;
}

function hexField(o: Record<string, unknown>, name: string, len?: number): Uint8Array {
  const v = o[name];
  if (typeof v !== "string") throw new InvalidHeaderError(`header field ${name} missing`);
  const b = fromHex(v);
  if (len !== undefined && b.length !== len)
    throw new InvalidHeaderError(`header field ${name} must be ${len} bytes`);
  return b;
}

function qtyField(o: Record<string, unknown>, name: string): bigint {
  const v = o[name];
  if (typeof v !== "string") throw new InvalidHeaderError(`header field ${name} missing`);
  return hexToBigInt(v);
}

/** Parses a JSON-RPC block header object (eth_getBlockByNumber field names). */
export function headerFromJson(json: unknown): BlockHeader {
  if (typeof json !== "object" || json === null) throw new InvalidHeaderError("header must be an object");
  const o = json as Record<string, unknown>;
  const h: BlockHeader = {
    parentHash: hexField(o, "parentHash", 32),
    ommersHash: hexField(o, "sha3Uncles", 32),
    beneficiary: hexField(o, "miner", 20),
    stateRoot: hexField(o, "stateRoot", 32),
    transactionsRoot: hexField(o, "transactionsRoot", 32),
    receiptsRoot: hexField(o, "receiptsRoot", 32),
    logsBloom: hexField(o, "logsBloom", 256),
    difficulty: qtyField(o, "difficulty"),
    number: qtyField(o, "number"),
    gasLimit: qtyField(o, "gasLimit"),
    gasUsed: qtyField(o, "gasUsed"),
    timestamp: qtyField(o, "timestamp"),
    extraData: hexField(o, "extraData"),
    mixHash: hexField(o, "mixHash", 32),
    nonce: hexField(o, "nonce", 8),
  };
  if (o.baseFeePerGas !== undefined) h.baseFeePerGas = qtyField(o, "baseFeePerGas");
  if (o.withdrawalsRoot !== undefined) h.withdrawalsRoot = hexField(o, "withdrawalsRoot", 32);
  if (o.blobGasUsed !== undefined) h.blobGasUsed = qtyField(o, "blobGasUsed");
  if (o.excessBlobGas !== undefined) h.excessBlobGas = qtyField(o, "excessBlobGas");
  if (o.parentBeaconBlockRoot !== undefined)
    h.parentBeaconBlockRoot = hexField(o, "parentBeaconBlockRoot", 32);
  if (o.requestsHash !== undefined) h.requestsHash = hexField(o, "requestsHash", 32);
  return h;
}
