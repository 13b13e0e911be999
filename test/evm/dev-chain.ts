/**
 * An instant-mining chain on top of {@link EvmHarness}, reachable through a viem `custom`
 * transport: just enough JSON-RPC (chain id, blocks, nonces, fees, gas estimate, eth_call,
 * eth_getCode, eth_sendRawTransaction, receipts, eth_getLogs) for client libraries written
 * against viem Public/Wallet clients to run end to end on real EVM execution of the compiled
 * contracts. Each raw transaction is signature-checked (sender recovered), nonce-checked and
 * executed in a block of its own; `mine()` adds empty blocks (for confirmations).
 * Test utility: no gas accounting, no fee payment, no reorgs, no pending pool.
 */
import {
  type Address,
  custom,
  type CustomTransport,
  getAddress,
  type Hash,
  type Hex,
  hexToBigInt,
  keccak256,
  numberToHex,
  pad,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerialized,
} from "viem";
import type { EvmHarness, EvmLog } from "./harness.js";

/** A JSON-RPC error as a node sends it (code, message, optional revert data). */
export class HarnessRpcError extends Error {
  override readonly name = "HarnessRpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Hex,
  ) {
    super(message);
  }
}

interface StoredLog extends EvmLog {
  blockNumber: bigint;
  blockHash: Hash;
  transactionHash: Hash;
  transactionIndex: number;
  logIndex: number;
}

interface StoredReceipt {
  transactionHash: Hash;
  blockNumber: bigint;
  blockHash: Hash;
  from: Address;
  to: Address | null;
  contractAddress: Address | null;
  status: "0x1" | "0x0";
  gasUsed: bigint;
  logs: StoredLog[];
  type: Hex;
}

interface StoredBlock {
  number: bigint;
  hash: Hash;
  parentHash: Hash;
  timestamp: bigint;
  transactions: Hash[];
}

interface CallParams {
  from?: Address;
  to?: Address;
  data?: Hex;
  input?: Hex;
}

interface LogFilter {
  address?: Address | Address[];
  topics?: (Hex | Hex[] | null)[];
  fromBlock?: Hex | "latest" | "earliest";
  toBlock?: Hex | "latest" | "earliest";
}

const GAS_LIMIT = 30_000_000n;

function blockHashOf(number: bigint): Hash {
  return keccak256(pad(numberToHex(number), { size: 32 }));
}

export class DevChain {
  readonly blocks: StoredBlock[] = [];
  private readonly receipts = new Map<Hash, StoredReceipt>();
  private readonly logs: StoredLog[] = [];
  /** Seconds between consecutive blocks. */
  blockTime = 2n;

  constructor(readonly harness: EvmHarness) {
    this.blocks.push({
      number: harness.blockNumber,
      hash: blockHashOf(harness.blockNumber),
      parentHash: pad("0x00", { size: 32 }),
      timestamp: harness.timestamp,
      transactions: [],
    });
  }

  get head(): StoredBlock {
    return this.blocks[this.blocks.length - 1] as StoredBlock;
  }

  private openBlock(): StoredBlock {
    const parent = this.head;
    const block: StoredBlock = {
      number: parent.number + 1n,
      hash: blockHashOf(parent.number + 1n),
      parentHash: parent.hash,
      timestamp: parent.timestamp + this.blockTime,
      transactions: [],
    };
    this.blocks.push(block);
    this.harness.blockNumber = block.number;
    this.harness.timestamp = block.timestamp;
    return block;
  }

  /** Seals `count` empty blocks. */
  mine(count = 1): void {
    for (let i = 0; i < count; i++) this.openBlock();
  }

  async sendRawTransaction(serialized: Hex): Promise<Hash> {
    const tx = parseTransaction(serialized as TransactionSerialized);
    if (tx.chainId !== undefined && BigInt(tx.chainId) !== this.harness.chainId) {
      throw new HarnessRpcError(-32000, `invalid chain id ${tx.chainId}`);
    }
    const from = await recoverTransactionAddress({
      serializedTransaction: serialized as TransactionSerialized,
    });
    const expectedNonce = await this.harness.getNonce(from);
    if (BigInt(tx.nonce ?? 0) !== expectedNonce) {
      throw new HarnessRpcError(-32000, `nonce ${tx.nonce} does not match account nonce ${expectedNonce}`);
    }
    const hash = keccak256(serialized);
    if (this.receipts.has(hash)) throw new HarnessRpcError(-32000, "already known");
    const block = this.openBlock();
    const to = tx.to === undefined || tx.to === null ? undefined : getAddress(tx.to);
    const outcome = await this.harness.execute(to, tx.data ?? "0x", [], {
      from,
      gasLimit: tx.gas ?? GAS_LIMIT,
    });
    block.transactions.push(hash);
    const logs: StoredLog[] = outcome.logs.map((log, i) => ({
      ...log,
      blockNumber: block.number,
      blockHash: block.hash,
      transactionHash: hash,
      transactionIndex: 0,
      logIndex: i,
    }));
    this.logs.push(...logs);
    this.receipts.set(hash, {
      transactionHash: hash,
      blockNumber: block.number,
      blockHash: block.hash,
      from,
      to: to ?? null,
      contractAddress: to === undefined && outcome.success ? getAddress(outcome.returnData) : null,
      status: outcome.success ? "0x1" : "0x0",
      gasUsed: outcome.gasUsed + 21_000n,
      logs,
      type: tx.type === "eip1559" ? "0x2" : tx.type === "eip2930" ? "0x1" : "0x0",
    });
    return hash;
  }

  private resolveBlock(
    tag: Hex | "latest" | "earliest" | "pending" | "safe" | "finalized" | undefined,
  ): bigint {
    if (tag === undefined || tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized") {
      return this.head.number;
    }
    if (tag === "earliest") return 0n;
    return hexToBigInt(tag);
  }

  private rpcBlock(block: StoredBlock) {
    return {
      number: numberToHex(block.number),
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: numberToHex(block.timestamp),
      gasLimit: numberToHex(GAS_LIMIT),
      gasUsed: "0x0",
      baseFeePerGas: "0x0",
      miner: "0x0000000000000000000000000000000000000000",
      nonce: "0x0000000000000000",
      difficulty: "0x0",
      extraData: "0x",
      logsBloom: `0x${"00".repeat(256)}`,
      transactions: block.transactions,
      uncles: [],
    };
  }

  private rpcLog(log: StoredLog) {
    return {
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockNumber: numberToHex(log.blockNumber),
      blockHash: log.blockHash,
      transactionHash: log.transactionHash,
      transactionIndex: numberToHex(log.transactionIndex),
      logIndex: numberToHex(log.logIndex),
      removed: false,
    };
  }

  private rpcReceipt(receipt: StoredReceipt) {
    return {
      transactionHash: receipt.transactionHash,
      transactionIndex: "0x0",
      blockNumber: numberToHex(receipt.blockNumber),
      blockHash: receipt.blockHash,
      from: receipt.from,
      to: receipt.to,
      contractAddress: receipt.contractAddress,
      status: receipt.status,
      gasUsed: numberToHex(receipt.gasUsed),
      cumulativeGasUsed: numberToHex(receipt.gasUsed),
      effectiveGasPrice: "0x0",
      logsBloom: `0x${"00".repeat(256)}`,
      logs: receipt.logs.map((l) => this.rpcLog(l)),
      type: receipt.type,
    };
  }

  getLogs(filter: LogFilter): StoredLog[] {
    const from = this.resolveBlock(filter.fromBlock ?? "earliest");
    const to = this.resolveBlock(filter.toBlock ?? "latest");
    const addresses =
      filter.address === undefined
        ? undefined
        : (Array.isArray(filter.address) ? filter.address : [filter.address]).map((a) => getAddress(a));
    return this.logs.filter((log) => {
      if (log.blockNumber < from || log.blockNumber > to) return false;
      if (addresses !== undefined && !addresses.includes(log.address)) return false;
      return (filter.topics ?? []).every((wanted, i) => {
        if (wanted === null) return true;
        const actual = log.topics[i]?.toLowerCase();
        const options = (Array.isArray(wanted) ? wanted : [wanted]).map((t) => t.toLowerCase());
        return actual !== undefined && options.includes(actual);
      });
    });
  }

  async request(method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case "eth_chainId":
        return numberToHex(this.harness.chainId);
      case "eth_blockNumber":
        return numberToHex(this.head.number);
      case "eth_getBlockByNumber": {
        const number = this.resolveBlock(params[0] as Hex);
        const block = this.blocks.find((b) => b.number === number);
        return block === undefined ? null : this.rpcBlock(block);
      }
      case "eth_getTransactionCount":
        return numberToHex(await this.harness.getNonce(getAddress(params[0] as Address)));
      case "eth_gasPrice":
      case "eth_maxPriorityFeePerGas":
        return "0x0";
      case "eth_getCode":
        return this.harness.getCode(params[0] as Address);
      case "eth_call":
      case "eth_estimateGas": {
        const call = params[0] as CallParams;
        if (call.to === undefined && method === "eth_call") {
          throw new HarnessRpcError(-32602, "eth_call without `to`");
        }
        const outcome = await this.harness.simulate(call.to, call.data ?? call.input ?? "0x", [], {
          ...(call.from === undefined ? {} : { from: call.from }),
        });
        if (!outcome.success) throw new HarnessRpcError(3, "execution reverted", outcome.returnData);
        return method === "eth_call" ? outcome.returnData : numberToHex(outcome.gasUsed + 21_000n + 50_000n);
      }
      case "eth_sendRawTransaction":
        return this.sendRawTransaction(params[0] as Hex);
      case "eth_getTransactionReceipt": {
        const receipt = this.receipts.get(params[0] as Hash);
        return receipt === undefined ? null : this.rpcReceipt(receipt);
      }
      case "eth_getLogs":
        return this.getLogs(params[0] as LogFilter).map((l) => this.rpcLog(l));
      default:
        throw new HarnessRpcError(-32601, `the method ${method} does not exist/is not available`);
    }
  }

  transport(): CustomTransport {
    return custom(
      {
        request: ({ method, params }: { method: string; params?: unknown }) =>
          this.request(method, (params ?? []) as unknown[]),
      },
      { retryCount: 0 },
    );
  }
}
