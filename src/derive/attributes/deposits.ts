/**
 * User deposits: `TransactionDeposited(address indexed from, address indexed to, uint256 indexed version,
 * bytes opaqueData)` logs of the OptimismPortal → deposit transactions (specs/protocol/deposits.md). Version 0
 * opaque data is `mint (32) ‖ value (32) ‖ gas (u64) ‖ isCreation (u8) ‖ data`.
 *
 * A malformed log from the portal is a critical error, as in op-node ("failed to derive some deposits") and kona
 * (`BadEncoding(..).crit()`): the portal never emits one. The checks are the union of theirs (op-node: offset 32,
 * length within the data and minimally padded; kona: zero padding, topics' address padding).
 */
import {
  type DepositTransaction,
  type Log,
  encodeDepositTransaction,
  bytesEqual,
  fromHex,
  toHex,
  userDepositSourceHash,
} from "../../chain/index.js";
import { CriticalDeriveError } from "../errors.js";
import { isZeroRange, readUint } from "./bytes.js";
import type { ReceiptLogs } from "./system-config.js";

/** keccak256("TransactionDeposited(address,address,uint256,bytes)"). */
export const TRANSACTION_DEPOSITED_TOPIC = fromHex(
  "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32",
);

/** mint, value, gas, isCreation: the fixed part of version-0 opaque data. */
const OPAQUE_FIXED = 32 + 32 + 8 + 1;

function fail(message: string, details: Record<string, unknown>): never {
  throw new CriticalDeriveError("attributes", `malformed TransactionDeposited log: ${message}`, details);
}

/**
 * The deposit transaction of one TransactionDeposited log; `logIndex` counts every log of the L1 block (the
 * log's `logIndex` in JSON-RPC). The caller has checked that the log comes from the portal.
 */
export function decodeDepositLog(log: Log, l1BlockHash: Uint8Array, logIndex: bigint): DepositTransaction {
  const { topics, data } = log;
  const at = { logIndex };
  if (topics.length !== 4) fail(`expected 4 topics, got ${topics.length}`, at);
  if (!bytesEqual(topics[0]!, TRANSACTION_DEPOSITED_TOPIC)) fail("topic 0 is not TransactionDeposited", at);
  const [from, to, version] = [topics[1]!, topics[2]!, topics[3]!];
  if (from.length !== 32 || !isZeroRange(from, 0, 12)) fail("`from` is not a padded address", at);
  if (to.length !== 32 || !isZeroRange(to, 0, 12)) fail("`to` is not a padded address", at);
  if (version.length !== 32 || !isZeroRange(version, 0, 32))
    fail("unsupported deposit version", { ...at, version: toHex(version) });
  if (data.length < 64) fail(`data of ${data.length} bytes has no opaqueData header`, at);
  if (data.length % 32 !== 0) fail(`data of ${data.length} bytes is not a multiple of 32`, at);
  if (!isZeroRange(data, 0, 31) || data[31] !== 32) fail("the opaqueData offset is not 32", at);
  const remaining = data.length - 64;
  if (!isZeroRange(data, 32, 56)) fail("the opaqueData length does not fit 64 bits", at);
  const declared = readUint(data, 56, 64);
  if (declared > BigInt(remaining))
    fail(`opaqueData length ${declared} exceeds the ${remaining} bytes present`, at);
  const length = Number(declared);
  // Minimal padding: the data ends at the first multiple of 32 after the opaque data, and the padding is zero.
  if (length + 32 <= remaining) fail(`opaqueData of ${length} bytes is over-padded to ${remaining}`, at);
  if (!isZeroRange(data, 64 + length, data.length)) fail("the opaqueData padding is not zero", at);
  if (length < OPAQUE_FIXED) fail(`opaqueData of ${length} bytes is shorter than ${OPAQUE_FIXED}`, at);
  const o = 64;
  return {
    kind: "deposit",
    sourceHash: userDepositSourceHash(l1BlockHash, logIndex),
    from: from.slice(12),
    to: data[o + 72] !== 0 ? undefined : to.slice(12),
    mint: readUint(data, o, o + 32),
    value: readUint(data, o + 32, o + 64),
    gasLimit: readUint(data, o + 64, o + 72),
    isSystemTx: false,
    data: data.slice(o + OPAQUE_FIXED, o + length),
  };
}

/**
 * The user deposits of an L1 block, EIP-2718 encoded, in log order: every TransactionDeposited log of a
 * successful receipt emitted by `depositContract`. Log indices count the logs of the block's receipts.
 */
export function deriveUserDeposits(
  receipts: readonly ReceiptLogs[],
  depositContract: Uint8Array,
  l1BlockHash: Uint8Array,
): Uint8Array[] {
  const out: Uint8Array[] = [];
  let logIndex = 0n;
  for (const receipt of receipts) {
    // A failed receipt has no logs on Ethereum; like kona, its logs (if a provider gave any) are not counted.
    if (receipt.status !== 1) continue;
    for (const log of receipt.logs) {
      const index = logIndex++;
      if (log.topics.length === 0 || !bytesEqual(log.topics[0]!, TRANSACTION_DEPOSITED_TOPIC)) continue;
      if (!bytesEqual(log.address, depositContract)) continue;
      out.push(encodeDepositTransaction(decodeDepositLog(log, l1BlockHash, index)));
    }
  }
  return out;
}
