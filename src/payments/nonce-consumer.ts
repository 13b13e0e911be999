/**
 * What consumed a nonce: the token emits `AuthorizationUsed(authorizer, nonce)` for a capture
 * (followed by the `Transfer` in the same transaction) and `AuthorizationCanceled(authorizer, nonce)`
 * for a cancellation. A nonce is consumed at most once, so at most one of these logs exists.
 */
import {
  type Address,
  decodeEventLog,
  getAddress,
  type Hash,
  type Hex,
  numberToHex,
  pad,
  type PublicClient,
  toEventSelector,
} from "viem";
import { eip3009TokenAbi } from "./abi.js";
import { AmbiguousNonceConsumptionError } from "./errors.js";

export { AmbiguousNonceConsumptionError };

export const AUTHORIZATION_USED_TOPIC = toEventSelector("AuthorizationUsed(address,bytes32)");
export const AUTHORIZATION_CANCELED_TOPIC = toEventSelector("AuthorizationCanceled(address,bytes32)");
export const TRANSFER_TOPIC = toEventSelector("Transfer(address,address,uint256)");

/** The fields of a log this module reads (viem's `Log` has them all). */
export interface LogRecord {
  address: Address;
  topics: readonly Hex[];
  data: Hex;
  transactionHash: Hash | null;
  blockNumber: bigint | null;
  logIndex: number | null;
}

export interface TokenTransfer {
  from: Address;
  to: Address;
  value: bigint;
}

export type NonceConsumption =
  | {
      kind: "used";
      authorizer: Address;
      nonce: Hex;
      transactionHash: Hash;
      blockNumber: bigint;
      logIndex: number;
      /** The Transfer the capture made (null until the receipt was read). */
      transfer: TokenTransfer | null;
    }
  | {
      kind: "canceled";
      authorizer: Address;
      nonce: Hex;
      transactionHash: Hash;
      blockNumber: bigint;
      logIndex: number;
    };

function sameHex(a: Hex | undefined, b: Hex): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}

/**
 * Picks the consumption of (authorizer, nonce) from a token's logs. Pure. Logs of other contracts,
 * other authorizers or nonces, removed (reorged) or pending logs are ignored.
 */
export function classifyNonceLogs(
  logs: readonly (LogRecord & { removed?: boolean })[],
  token: Address,
  authorizer: Address,
  nonce: Hex,
): NonceConsumption | null {
  const authorizerTopic = pad(getAddress(authorizer).toLowerCase() as Hex, { size: 32 });
  const matches = logs.filter(
    (log) =>
      log.removed !== true &&
      getAddress(log.address) === getAddress(token) &&
      (sameHex(log.topics[0], AUTHORIZATION_USED_TOPIC) ||
        sameHex(log.topics[0], AUTHORIZATION_CANCELED_TOPIC)) &&
      sameHex(log.topics[1], authorizerTopic) &&
      sameHex(log.topics[2], nonce),
  );
  if (matches.length === 0) return null;
  if (matches.length > 1) throw new AmbiguousNonceConsumptionError(authorizer, nonce, matches.length);
  const log = matches[0] as LogRecord;
  if (log.transactionHash === null || log.blockNumber === null || log.logIndex === null) return null;
  const base = {
    authorizer: getAddress(authorizer),
    nonce: nonce.toLowerCase() as Hex,
    transactionHash: log.transactionHash,
    blockNumber: log.blockNumber,
    logIndex: log.logIndex,
  };
  return sameHex(log.topics[0], AUTHORIZATION_USED_TOPIC)
    ? { kind: "used", ...base, transfer: null }
    : { kind: "canceled", ...base };
}

/** The token `Transfer` that follows an `AuthorizationUsed` log in the same transaction. Pure. */
export function transferAfter(
  receiptLogs: readonly LogRecord[],
  token: Address,
  usedLogIndex: number,
): TokenTransfer | null {
  const candidates = receiptLogs
    .filter(
      (log) =>
        log.logIndex !== null &&
        log.logIndex > usedLogIndex &&
        getAddress(log.address) === getAddress(token) &&
        sameHex(log.topics[0], TRANSFER_TOPIC),
    )
    .sort((a, b) => (a.logIndex as number) - (b.logIndex as number));
  const first = candidates[0];
  if (first === undefined) return null;
  const decoded = decodeEventLog({
    abi: eip3009TokenAbi,
    eventName: "Transfer",
    data: first.data,
    topics: first.topics as [Hex, ...Hex[]],
  });
  return { from: decoded.args.from, to: decoded.args.to, value: decoded.args.value };
}

export type NonceLogReader = Pick<PublicClient, "request" | "getBlockNumber" | "getTransactionReceipt">;

export interface FindNonceConsumerOptions {
  token: Address;
  authorizer: Address;
  nonce: Hex;
  /** First block to search (default 0). Use the block the order was created at. */
  fromBlock?: bigint;
  /** Last block to search (default: the node's latest block). */
  toBlock?: bigint;
  /** Blocks per `eth_getLogs` request (nodes cap ranges); default 10 000. */
  maxBlockRange?: bigint;
}

/**
 * Searches the token's logs for what consumed (authorizer, nonce): one `eth_getLogs` per range
 * with topic0 = AuthorizationUsed OR AuthorizationCanceled, topic1 = authorizer, topic2 = nonce.
 * For a capture, also reads the receipt to report the `Transfer`. Null when not consumed yet.
 */
export async function findNonceConsumer(
  client: NonceLogReader,
  options: FindNonceConsumerOptions,
): Promise<NonceConsumption | null> {
  const token = getAddress(options.token);
  const range = options.maxBlockRange ?? 10_000n;
  if (range <= 0n) throw new RangeError("maxBlockRange must be positive");
  const last = options.toBlock ?? (await client.getBlockNumber());
  const authorizerTopic = pad(getAddress(options.authorizer).toLowerCase() as Hex, { size: 32 });
  for (let from = options.fromBlock ?? 0n; from <= last; from += range) {
    const to = from + range - 1n < last ? from + range - 1n : last;
    const raw = await client.request({
      method: "eth_getLogs",
      params: [
        {
          address: token,
          topics: [[AUTHORIZATION_USED_TOPIC, AUTHORIZATION_CANCELED_TOPIC], authorizerTopic, options.nonce],
          fromBlock: numberToHex(from),
          toBlock: numberToHex(to),
        },
      ],
    });
    const logs = raw.map((log) => ({
      address: log.address,
      topics: log.topics as Hex[],
      data: log.data,
      transactionHash: log.transactionHash,
      blockNumber: log.blockNumber === null ? null : BigInt(log.blockNumber),
      logIndex: log.logIndex === null ? null : Number(log.logIndex),
      removed: log.removed,
    }));
    const found = classifyNonceLogs(logs, token, options.authorizer, options.nonce);
    if (found === null) continue;
    if (found.kind === "canceled") return found;
    const receipt = await client.getTransactionReceipt({ hash: found.transactionHash });
    return { ...found, transfer: transferAfter(receipt.logs, token, found.logIndex) };
  }
  return null;
}
