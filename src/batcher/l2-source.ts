/**
 * Reads sealed L2 blocks from the L2 node over standard JSON-RPC (`eth_getBlockByNumber` with full transactions)
 * in the form the batcher posts: the non-deposit transactions as EIP-2718 bytes (deposits, type 0x7e, are derived
 * from L1 and never batched) and the L1 origin and sequence number stated by the block's first transaction, the L1
 * info deposit.
 */
import {
  type Hex,
  type RpcTransaction,
  type Transaction,
  bytesToHex,
  formatTransaction,
  hexToBytes,
  keccak256,
  serializeTransaction,
} from "viem";
import { L1_BLOCK_ADDRESS, L1_INFO_DEPOSITOR } from "../chain/index.js";
import { decodeL1InfoCalldata } from "../derive/index.js";
import { L2ReadError } from "./errors.js";

/** What the batcher needs of one sealed L2 block. */
export interface L2BlockData {
  readonly number: bigint;
  readonly hash: Hex;
  readonly parentHash: Hex;
  readonly timestamp: bigint;
  /** The L1 origin (epoch) stated by the block's L1 info deposit. */
  readonly l1OriginNumber: bigint;
  readonly l1OriginHash: Uint8Array;
  /** The block's position in its epoch (0: the block starts a new epoch). */
  readonly sequenceNumber: bigint;
  /** The non-deposit transactions, EIP-2718 encoded, in block order. */
  readonly transactions: readonly Uint8Array[];
  /** Deposits in the block (the L1 info deposit included); not batched. */
  readonly depositCount: number;
}

/** The JSON-RPC call the reader uses (viem's `client.request`, or any EIP-1193 style function). */
export type JsonRpcRequest = (args: { method: string; params?: unknown[] }) => Promise<unknown>;

/** The fields read before the transaction is formatted (a deposit's type 0x7e is not a viem type). */
interface RpcTx {
  type: string;
  input: Hex;
  from: Hex;
  to: Hex | null;
  hash: Hex;
}

interface RpcBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  transactions: RpcTx[];
}

const DEPOSIT_TYPE = "0x7e";
const depositor = bytesToHex(L1_INFO_DEPOSITOR).toLowerCase();
const l1Block = bytesToHex(L1_BLOCK_ADDRESS).toLowerCase();

function quantity(n: bigint): Hex {
  return `0x${n.toString(16)}`;
}

export class L2BlockReader {
  constructor(private readonly request: JsonRpcRequest) {}

  /** Number of the newest sealed block. */
  async headNumber(): Promise<bigint> {
    const result = await this.call("eth_blockNumber", []);
    if (typeof result !== "string")
      throw new L2ReadError("eth_blockNumber answered a non-string", { result });
    return BigInt(result);
  }

  /** The L2 chain id. */
  async chainId(): Promise<bigint> {
    const result = await this.call("eth_chainId", []);
    if (typeof result !== "string") throw new L2ReadError("eth_chainId answered a non-string", { result });
    return BigInt(result);
  }

  /** Hash, parent hash and timestamp of block `number` (genesis included), without its transactions. */
  async header(number: bigint): Promise<{ hash: Hex; parentHash: Hex; timestamp: bigint }> {
    const block = (await this.call("eth_getBlockByNumber", [quantity(number), false])) as RpcBlock | null;
    if (block === null) throw new L2ReadError(`L2 block ${number} does not exist`, { number });
    return { hash: block.hash, parentHash: block.parentHash, timestamp: BigInt(block.timestamp) };
  }

  private async timestampOf(number: bigint): Promise<bigint> {
    return (await this.header(number)).timestamp;
  }

  /** The sealed block `number`, or undefined when the node has not sealed it yet. */
  async block(number: bigint): Promise<L2BlockData | undefined> {
    const block = (await this.call("eth_getBlockByNumber", [quantity(number), true])) as RpcBlock | null;
    if (block === null) return undefined;
    if (BigInt(block.number) !== number)
      throw new L2ReadError(`asked for L2 block ${number}, got ${block.number}`, { number });
    const txs = block.transactions;
    const first = txs[0];
    if (first === undefined || first.type !== DEPOSIT_TYPE)
      throw new L2ReadError(`L2 block ${number} does not start with a deposit`, { number });
    if (first.from.toLowerCase() !== depositor || first.to?.toLowerCase() !== l1Block)
      throw new L2ReadError(`L2 block ${number}'s first deposit is not the L1 info deposit`, { number });
    let info;
    try {
      info = decodeL1InfoCalldata(hexToBytes(first.input));
    } catch (e) {
      throw new L2ReadError(`L2 block ${number}: undecodable L1 info calldata`, { number }, { cause: e });
    }
    const transactions: Uint8Array[] = [];
    let depositCount = 0;
    for (const tx of txs) {
      if (tx.type === DEPOSIT_TYPE) depositCount++;
      else transactions.push(await this.rawTransaction(tx, number));
    }
    return {
      number,
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: BigInt(block.timestamp),
      l1OriginNumber: info.number,
      l1OriginHash: info.blockHash,
      sequenceNumber: info.sequenceNumber,
      transactions,
      depositCount,
    };
  }

  /**
   * The number of the block with timestamp `timestamp` among blocks 0..head (timestamps strictly increase), or
   * undefined. Tries the block-time formula first, then bisects.
   */
  async numberAtTimestamp(
    timestamp: bigint,
    genesisTime: bigint,
    blockTime: bigint,
  ): Promise<bigint | undefined> {
    const head = await this.headNumber();
    if (timestamp >= genesisTime && (timestamp - genesisTime) % blockTime === 0n) {
      const guess = (timestamp - genesisTime) / blockTime;
      if (guess <= head && (await this.timestampOf(guess)) === timestamp) return guess;
    }
    let lo = 0n;
    let hi = head;
    while (lo <= hi) {
      const mid = (lo + hi) / 2n;
      const t = await this.timestampOf(mid);
      if (t === timestamp) return mid;
      if (t < timestamp) lo = mid + 1n;
      else hi = mid - 1n;
    }
    return undefined;
  }

  /**
   * A transaction's EIP-2718 bytes rebuilt from its JSON fields; checked against its hash. When the rebuild does not
   * hash to the node's hash (a field viem does not know), the node's `debug_getRawTransaction` answers instead,
   * checked the same way.
   */
  private async rawTransaction(rpc: RpcTx, block: bigint): Promise<Uint8Array> {
    let rebuilt: Hex | undefined;
    try {
      const tx = formatTransaction(rpc as unknown as RpcTransaction) as Transaction;
      rebuilt = serializeTransaction(
        tx as never,
        { r: tx.r, s: tx.s, v: tx.v, yParity: tx.yParity } as never,
      );
    } catch {
      rebuilt = undefined;
    }
    if (rebuilt !== undefined && keccak256(rebuilt) === rpc.hash) return hexToBytes(rebuilt);
    const raw = await this.call("debug_getRawTransaction", [rpc.hash]);
    if (typeof raw !== "string" || keccak256(raw as Hex) !== rpc.hash)
      throw new L2ReadError(`cannot obtain the exact bytes of L2 transaction ${rpc.hash}`, {
        hash: rpc.hash,
        block,
      });
    return hexToBytes(raw as Hex);
  }

  private async call(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.request({ method, params });
    } catch (e) {
      throw new L2ReadError(`L2 ${method} failed`, { method }, { cause: e });
    }
  }
}
