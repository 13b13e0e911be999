/**
 * Base's flashblocks wire format (one JSON text frame per snapshot): payload_id, index, base (index
 * 0 only), diff (cumulative header values and the transactions new since the previous index) and
 * metadata (block number, receipts of the new transactions keyed by hash, balances of accounts
 * changed since the start of the block).
 */
import { type BlockSnapshot, EMPTY_TRIE_ROOT, type Receipt, toHex } from "../chain/index.js";

export interface FlashblockBase {
  parent_beacon_block_root: string;
  parent_hash: string;
  fee_recipient: string;
  prev_randao: string;
  block_number: string;
  gas_limit: string;
  timestamp: string;
  extra_data: string;
  base_fee_per_gas: string;
}

export interface FlashblockDiff {
  state_root: string;
  receipts_root: string;
  logs_bloom: string;
  gas_used: string;
  block_hash: string;
  transactions: string[];
  withdrawals: [];
  withdrawals_root: string;
  blob_gas_used?: string;
}

export interface FlashblockMessage {
  payload_id: string;
  index: number;
  base?: FlashblockBase;
  diff: FlashblockDiff;
  metadata: {
    block_number: number;
    receipts: Record<string, Record<string, unknown>>;
    new_account_balances: Record<string, string>;
  };
}

const qty = (v: bigint): string => `0x${v.toString(16)}`;

/** Receipt variant names as Base (OpReceipt, externally tagged) uses them. */
function receiptVariant(type: number): string {
  switch (type) {
    case 0:
      return "Legacy";
    case 1:
      return "Eip2930";
    case 2:
      return "Eip1559";
    case 4:
      return "Eip7702";
    case 0x7e:
      return "Deposit";
    default:
      return `Type${type}`;
  }
}

export function encodeFlashblockReceipt(r: Receipt): Record<string, unknown> {
  const body: Record<string, unknown> = {
    status: r.status === 1 ? "0x1" : "0x0",
    cumulativeGasUsed: qty(r.cumulativeGasUsed),
    logs: r.logs.map((l) => ({
      address: toHex(l.address),
      topics: l.topics.map(toHex),
      data: toHex(l.data),
    })),
  };
  if (r.depositNonce !== undefined) body.depositNonce = qty(r.depositNonce);
  if (r.depositReceiptVersion !== undefined) body.depositReceiptVersion = qty(r.depositReceiptVersion);
  return { [receiptVariant(r.type)]: body };
}

export function encodeFlashblock(input: {
  payloadId: Uint8Array;
  index: number;
  snapshot: BlockSnapshot;
  /** Index of the first transaction new in this message. */
  firstNew: number;
  balances: Map<string, bigint>;
}): FlashblockMessage {
  const { snapshot, index, firstNew } = input;
  const h = snapshot.header;
  const receipts: Record<string, Record<string, unknown>> = {};
  for (let i = firstNew; i < snapshot.transactions.length; i++) {
    receipts[toHex(snapshot.transactionHashes[i]!)] = encodeFlashblockReceipt(snapshot.receipts[i]!);
  }
  const balances: Record<string, string> = {};
  for (const [address, balance] of input.balances) balances[address] = qty(balance);
  const diff: FlashblockDiff = {
    state_root: toHex(h.stateRoot),
    receipts_root: toHex(h.receiptsRoot),
    logs_bloom: toHex(h.logsBloom),
    gas_used: qty(h.gasUsed),
    block_hash: toHex(snapshot.blockHash),
    transactions: snapshot.transactions.slice(firstNew).map(toHex),
    withdrawals: [],
    withdrawals_root: toHex(h.withdrawalsRoot ?? EMPTY_TRIE_ROOT),
  };
  if (h.blobGasUsed !== undefined) diff.blob_gas_used = qty(h.blobGasUsed);
  const message: FlashblockMessage = {
    payload_id: toHex(input.payloadId),
    index,
    diff,
    metadata: { block_number: Number(h.number), receipts, new_account_balances: balances },
  };
  if (index === 0) {
    message.base = {
      parent_beacon_block_root: toHex(h.parentBeaconBlockRoot ?? new Uint8Array(32)),
      parent_hash: toHex(h.parentHash),
      fee_recipient: toHex(h.beneficiary),
      prev_randao: toHex(h.mixHash),
      block_number: qty(h.number),
      gas_limit: qty(h.gasLimit),
      timestamp: qty(h.timestamp),
      extra_data: toHex(h.extraData),
      base_fee_per_gas: qty(h.baseFeePerGas ?? 0n),
    };
    // Base's key order: payload_id, index, base, diff, metadata.
    return { payload_id: message.payload_id, index, base: message.base, diff, metadata: message.metadata };
  }
  return message;
}
