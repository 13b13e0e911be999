/**
 * A minimal EVM test harness: deploys and calls compiled contracts on @ethereumjs/evm (real bytecode
 * execution over an in-memory SimpleStateManager) with a chosen caller, block number and block
 * timestamp, and returns the return data, decoded revert reason and logs of each call.
 * Test utility only: it has no transactions, receipts, gas pricing or blocks beyond the header
 * fields the EVM reads.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, type EVM, type Log as EthereumjsLog } from "@ethereumjs/evm";
import { SimpleStateManager } from "@ethereumjs/statemanager";
import { Account, Address as EthAddress, createAddressFromString } from "@ethereumjs/util";
import {
  type Abi,
  type Address,
  bytesToHex,
  decodeErrorResult,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  hexToBytes,
} from "viem";

export interface CompiledContract {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
}

export interface EvmLog {
  address: Address;
  topics: Hex[];
  data: Hex;
}

export interface CallOptions {
  /** msg.sender and tx.origin; defaults to the harness's default caller. */
  from?: Address;
  /** Overrides the harness block timestamp for this call only. */
  timestamp?: bigint;
  gasLimit?: bigint;
}

export interface CallOutcome {
  success: boolean;
  returnData: Hex;
  logs: EvmLog[];
  gasUsed: bigint;
  /** The decoded revert: `Error(string)` message or `CustomError(args)`; undefined on success. */
  revertReason?: string;
  /** The EVM exception name (e.g. "revert", "out of gas"); undefined on success. */
  exception?: string;
}

export class EvmCallFailedError extends Error {
  override readonly name = "EvmCallFailedError";
  constructor(
    readonly what: string,
    readonly outcome: CallOutcome,
  ) {
    super(`${what} failed: ${outcome.revertReason ?? outcome.exception ?? "unknown"}`);
  }
}

const DEFAULT_CALLER: Address = "0x00000000000000000000000000000000000000c0";
const DEFAULT_GAS_LIMIT = 30_000_000n;

function toEthAddress(address: Address): EthAddress {
  return createAddressFromString(address);
}

function convertLog([address, topics, data]: EthereumjsLog): EvmLog {
  return {
    address: getAddress(bytesToHex(address)),
    topics: topics.map((t) => bytesToHex(t)),
    data: bytesToHex(data),
  };
}

export function decodeRevert(abi: Abi, data: Hex): string | undefined {
  if (data === "0x") return undefined;
  try {
    const decoded = decodeErrorResult({ abi, data });
    if (decoded.errorName === "Error") return String(decoded.args?.[0]);
    return `${decoded.errorName}(${(decoded.args ?? []).map(String).join(",")})`;
  } catch {
    return data;
  }
}

export class EvmHarness {
  /** Block timestamp used by calls that do not override it. */
  timestamp: bigint;
  blockNumber: bigint;
  readonly defaultCaller: Address = DEFAULT_CALLER;

  private constructor(
    readonly evm: EVM,
    readonly chainId: bigint,
    timestamp: bigint,
  ) {
    this.timestamp = timestamp;
    this.blockNumber = 1n;
  }

  /** A fresh chain state on the Cancun rule set (the evmVersion the contracts target). */
  static async create(options: { chainId?: bigint; timestamp?: bigint } = {}): Promise<EvmHarness> {
    const chainId = options.chainId ?? 1n;
    const common = createCustomCommon({ chainId: Number(chainId) }, Mainnet, { hardfork: Hardfork.Cancun });
    const evm = await createEVM({ common, stateManager: new SimpleStateManager() });
    return new EvmHarness(evm, chainId, options.timestamp ?? 1_700_000_000n);
  }

  private block(timestamp: bigint) {
    return {
      header: {
        number: this.blockNumber,
        coinbase: toEthAddress("0x0000000000000000000000000000000000000000"),
        timestamp,
        difficulty: 0n,
        prevRandao: new Uint8Array(32),
        gasLimit: DEFAULT_GAS_LIMIT,
        baseFeePerGas: 0n,
        getBlobGasPrice: () => 1n,
      },
    };
  }

  /** Executes one top-level message and commits its state changes (unless it reverted). */
  async execute(
    to: Address | undefined,
    data: Hex,
    abi: Abi,
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    const caller = toEthAddress(options.from ?? this.defaultCaller);
    const result = await this.evm.runCall({
      caller,
      origin: caller,
      ...(to === undefined ? {} : { to: toEthAddress(to) }),
      data: hexToBytes(data),
      gasLimit: options.gasLimit ?? DEFAULT_GAS_LIMIT,
      block: this.block(options.timestamp ?? this.timestamp),
    });
    const exec = result.execResult;
    const returnData = bytesToHex(exec.returnValue);
    const success = exec.exceptionError === undefined;
    const outcome: CallOutcome = {
      success,
      returnData,
      logs: (exec.logs ?? []).map(convertLog),
      gasUsed: exec.executionGasUsed,
    };
    if (!success) {
      outcome.exception = exec.exceptionError?.error;
      const reason = decodeRevert(abi, returnData);
      if (reason !== undefined) outcome.revertReason = reason;
    }
    if (to === undefined && result.createdAddress !== undefined) {
      outcome.returnData = getAddress(result.createdAddress.toString());
    }
    return outcome;
  }

  /** Runs a message (a creation when `to` is undefined) and throws its state changes away (like eth_call). */
  async simulate(
    to: Address | undefined,
    data: Hex,
    abi: Abi,
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    await this.evm.stateManager.checkpoint();
    try {
      return await this.execute(to, data, abi, options);
    } finally {
      await this.evm.stateManager.revert();
    }
  }

  async deploy(
    contract: CompiledContract,
    args: readonly unknown[] = [],
    options: CallOptions = {},
  ): Promise<DeployedContract> {
    const data = encodeDeployData({ abi: contract.abi, bytecode: contract.bytecode, args });
    const outcome = await this.execute(undefined, data, contract.abi, options);
    if (!outcome.success) throw new EvmCallFailedError(`deploying ${contract.contractName}`, outcome);
    return new DeployedContract(this, contract.abi, getAddress(outcome.returnData), outcome);
  }

  /** Installs runtime code at an address directly (e.g. to give an account code). */
  async setCode(address: Address, code: Hex): Promise<void> {
    await this.evm.stateManager.putCode(toEthAddress(address), hexToBytes(code));
  }

  /** Writes one 32-byte storage slot directly (tests that place a contract at a fixed address). */
  async setStorage(address: Address, slot: Hex, value: Hex): Promise<void> {
    await this.evm.stateManager.putStorage(
      toEthAddress(address),
      hexToBytes(slot, { size: 32 }),
      hexToBytes(value),
    );
  }

  async getCode(address: Address): Promise<Hex> {
    return bytesToHex(await this.evm.stateManager.getCode(toEthAddress(address)));
  }

  async getNonce(address: Address): Promise<bigint> {
    return (await this.evm.stateManager.getAccount(toEthAddress(address)))?.nonce ?? 0n;
  }

  async setBalance(address: Address, balance: bigint): Promise<void> {
    const ethAddress = toEthAddress(address);
    const account = (await this.evm.stateManager.getAccount(ethAddress)) ?? new Account();
    account.balance = balance;
    await this.evm.stateManager.putAccount(ethAddress, account);
  }
}

/** A deployed contract with ABI-aware read/write helpers. */
export class DeployedContract {
  constructor(
    readonly harness: EvmHarness,
    readonly abi: Abi,
    readonly address: Address,
    readonly deployment: CallOutcome,
  ) {}

  encode(functionName: string, args: readonly unknown[] = []): Hex {
    return encodeFunctionData({ abi: this.abi, functionName, args } as Parameters<
      typeof encodeFunctionData
    >[0]);
  }

  /** Calls a function without keeping state changes; throws when it reverts; returns the decoded result. */
  async read(
    functionName: string,
    args: readonly unknown[] = [],
    options: CallOptions = {},
  ): Promise<unknown> {
    const outcome = await this.harness.simulate(
      this.address,
      this.encode(functionName, args),
      this.abi,
      options,
    );
    if (!outcome.success) throw new EvmCallFailedError(`${functionName}`, outcome);
    return decodeFunctionResult({ abi: this.abi, functionName, data: outcome.returnData } as Parameters<
      typeof decodeFunctionResult
    >[0]);
  }

  /** Calls a function and keeps its state changes when it succeeds. */
  async write(
    functionName: string,
    args: readonly unknown[] = [],
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    return this.harness.execute(this.address, this.encode(functionName, args), this.abi, options);
  }

  /** Sends raw calldata (e.g. to pick one overload explicitly by selector). */
  async writeRaw(data: Hex, options: CallOptions = {}): Promise<CallOutcome> {
    return this.harness.execute(this.address, data, this.abi, options);
  }
}
