/**
 * OP Stack transaction processing on top of @ethereumjs/evm's runCall: deposits (mint, nonce,
 * failure rules, receipts), user transactions (validation, gas purchase with the L1 data fee and
 * operator fee, EIP-7702 authorizations, refunds, EIP-7623 floor) and the fee vaults.
 *
 * A user transaction that fails validation throws TransactionRejectedError before any state change.
 */
import type { EVM, EVMResult, Log as EvmLog } from "@ethereumjs/evm";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { EOACode7702Tx, TypedTransaction } from "@ethereumjs/tx";
import { Capability } from "@ethereumjs/tx";
import {
  Account,
  Address,
  type EOACode7702AuthorizationListBytesItem,
  KECCAK256_NULL,
  bytesToBigInt as ejsBytesToBigInt,
} from "@ethereumjs/util";
import type { DepositTransaction } from "./deposit-tx.js";
import { bytesEqual, concatBytes, fromHex } from "./hex.js";
import { fastLzCompressedLength } from "./fastlz.js";
import {
  type L1FeeParams,
  L1BlockSlot,
  L1_BLOCK_ADDRESS,
  daFootprint,
  decodeL1FeeParams,
  l1DataFee,
  operatorFee,
} from "./l1-fee.js";
import { type Log, type Receipt, type ReceiptDetails, logsBloom } from "./receipts.js";
import { OpFork } from "./rollup-config.js";
import type { DecodedTransaction } from "./transactions.js";
import { bigIntToWord } from "./hex.js";
import { ChainError } from "./errors.js";
import { recoverAuthority } from "./secp256k1.js";

export const BASE_FEE_VAULT = new Address(fromHex("0x4200000000000000000000000000000000000019"));
export const L1_FEE_VAULT = new Address(fromHex("0x420000000000000000000000000000000000001a"));
export const OPERATOR_FEE_VAULT = new Address(fromHex("0x420000000000000000000000000000000000001b"));
const L1_BLOCK = new Address(fromHex(L1_BLOCK_ADDRESS));

const TX_GAS = 21_000n;
const TX_GAS_CREATE = 53_000n;
const TX_DATA_ZERO_GAS = 4n;
const TX_DATA_NONZERO_GAS = 16n;
const INIT_CODE_WORD_GAS = 2n;
const MAX_INIT_CODE_SIZE = 49_152;
const FLOOR_TOKEN_COST = 10n;
const REFUND_QUOTIENT = 5n;
const AUTH_EXISTING_ACCOUNT_REFUND = 25_000n - 12_500n;
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
const MAX_NONCE = (1n << 64n) - 1n;

export type RejectionReason =
  | "invalid-signature"
  | "gas-limit-exceeds-block"
  | "intrinsic-gas-too-low"
  | "fee-cap-below-base-fee"
  | "tip-above-fee-cap"
  | "sender-not-eoa"
  | "nonce-too-low"
  | "nonce-too-high"
  | "nonce-max"
  | "insufficient-funds"
  | "init-code-too-large"
  | "empty-authorization-list"
  | "da-footprint-exceeds-block"
  | "unsupported-transaction-type";

/** The transaction cannot be included; state is unchanged. */
export class TransactionRejectedError extends ChainError {
  readonly reason: RejectionReason;
  constructor(reason: RejectionReason, message: string) {
    super(`transaction rejected (${reason}): ${message}`, "transaction-rejected", { details: { reason } });
    this.reason = reason;
  }
}

/** What the processor needs to know about the block being built. */
export interface TxBlockEnv {
  fork: OpFork;
  chainId: bigint;
  coinbase: Address;
  baseFee: bigint;
  evmBlock: Parameters<EVM["runCall"]>[0]["block"];
}

export interface TxOutcome {
  receipt: Receipt;
  details: ReceiptDetails;
  gasUsed: bigint;
  /** Jovian DA footprint (0 for deposits and before Jovian). */
  daFootprint: bigint;
}

interface ExecutionEnv {
  evm: EVM;
  state: MerkleStateManager;
  block: TxBlockEnv;
  /** Addresses warm in every transaction (precompiles). */
  precompileAddresses: string[];
}

export class TransactionProcessor {
  private readonly env: ExecutionEnv;
  private l1Params: L1FeeParams | undefined;

  constructor(evm: EVM, state: MerkleStateManager, block: TxBlockEnv) {
    this.env = { evm, state, block, precompileAddresses: [...evm.precompiles.keys()] };
  }

  /** Reads the L1 fee parameters from L1Block storage (after the L1 attributes deposit ran). */
  private async feeParams(): Promise<L1FeeParams> {
    if (this.l1Params !== undefined) return this.l1Params;
    const st = this.env.state;
    const slot = (s: bigint) => st.getStorage(L1_BLOCK, bigIntToWord(s));
    // Read only the slots the fork's formula uses (the witness holds nothing else).
    const fork = this.env.block.fork;
    const empty = new Uint8Array(0);
    const words = {
      baseFee: await slot(L1BlockSlot.BaseFee),
      scalars: fork >= OpFork.Ecotone ? await slot(L1BlockSlot.Scalars) : empty,
      overhead: empty,
      scalar: empty,
      blobBaseFee: fork >= OpFork.Ecotone ? await slot(L1BlockSlot.BlobBaseFee) : empty,
      operatorFeeParams: fork >= OpFork.Isthmus ? await slot(L1BlockSlot.OperatorFeeParams) : empty,
    };
    let params = decodeL1FeeParams(words);
    if (fork < OpFork.Ecotone || (params.baseFeeScalar === 0n && params.blobBaseFeeScalar === 0n)) {
      params = decodeL1FeeParams({
        ...words,
        overhead: await slot(L1BlockSlot.Overhead),
        scalar: await slot(L1BlockSlot.Scalar),
      });
    }
    // User transactions never change these slots within a block, but deposits might: only cache
    // once a user transaction has been seen.
    this.l1Params = params;
    return params;
  }

  /** Forget cached L1 fee parameters (after a deposit, which may write L1Block storage). */
  invalidateFeeParams(): void {
    this.l1Params = undefined;
  }

  private warmCommon(sender: Address, to: Address | undefined): void {
    const j = this.env.evm.journal;
    for (const a of this.env.precompileAddresses) j.addAlwaysWarmAddress(a);
    j.addAlwaysWarmAddress(sender.toString());
    if (to) j.addAlwaysWarmAddress(to.toString());
    if (this.env.block.fork >= OpFork.Canyon) j.addAlwaysWarmAddress(this.env.block.coinbase.toString());
  }

  private async addBalance(address: Address, amount: bigint): Promise<void> {
    const st = this.env.state;
    const account = (await st.getAccount(address)) ?? new Account();
    account.balance += amount;
    await this.env.evm.journal.putAccount(address, account);
  }

  private async finishTx(result: EVMResult | undefined): Promise<void> {
    const { evm, state } = this.env;
    if (result?.execResult.selfdestruct !== undefined) {
      // EIP-6780 (Cancun, i.e. Ecotone): only contracts created in this transaction are deleted.
      const created = this.env.block.fork >= OpFork.Ecotone ? result.execResult.createdAddresses : undefined;
      for (const addressHex of result.execResult.selfdestruct.keys()) {
        if (created !== undefined && !created.has(addressHex)) continue;
        await evm.journal.deleteAccount(new Address(fromHex(addressHex)));
      }
    }
    await evm.journal.cleanup();
    state.originalStorageCache.clear();
  }

  /**
   * @param daFootprintRoom Jovian: how much DA footprint the block can still take (gas limit minus
   *   the footprint so far); ignored before Jovian.
   */
  async apply(
    decoded: DecodedTransaction,
    index: number,
    cumulativeGasUsed: bigint,
    gasPool: bigint,
    daFootprintRoom = 0n,
  ): Promise<TxOutcome> {
    if (decoded.body.kind === "deposit") {
      const outcome = await this.applyDeposit(decoded, decoded.body, index, cumulativeGasUsed, gasPool);
      this.invalidateFeeParams();
      return outcome;
    }
    return this.applyUserTx(decoded, decoded.body.tx, index, cumulativeGasUsed, gasPool, daFootprintRoom);
  }

  // ----------------------------------------------------------------------------------------------
  // Deposits

  private async applyDeposit(
    decoded: DecodedTransaction,
    tx: DepositTransaction,
    index: number,
    cumulativeGasUsed: bigint,
    gasPool: bigint,
  ): Promise<TxOutcome> {
    const { evm, state, block } = this.env;
    if (tx.gasLimit > gasPool) {
      throw new TransactionRejectedError(
        "gas-limit-exceeds-block",
        `deposit gas ${tx.gasLimit} exceeds the block's remaining gas ${gasPool}`,
      );
    }
    const from = new Address(tx.from);
    const to = tx.to === undefined ? undefined : new Address(tx.to);
    const regolith = block.fork >= OpFork.Regolith;
    const fromBefore = (await state.getAccount(from)) ?? new Account();
    const depositNonce = fromBefore.nonce;

    if (tx.mint > 0n) await this.addBalance(from, tx.mint);
    await state.checkpoint();

    let result: EVMResult | undefined;
    let gasUsed: bigint;
    let status: 0 | 1;
    let failure: string | undefined;
    const intrinsic = depositIntrinsicGas(tx, block.fork >= OpFork.Canyon);
    // EIP-7623 (Isthmus): op-geth checks and applies the calldata floor to deposits too.
    const floor = block.fork >= OpFork.Isthmus ? floorDataGas(tx.data) : 0n;
    const balance = ((await state.getAccount(from)) ?? new Account()).balance;
    if (tx.isSystemTx && regolith) failure = "system transactions are not supported after Regolith";
    else if (tx.gasLimit < intrinsic) failure = `intrinsic gas ${intrinsic} exceeds gas limit ${tx.gasLimit}`;
    else if (tx.gasLimit < floor) failure = `calldata floor ${floor} exceeds gas limit ${tx.gasLimit}`;
    else if (balance < tx.value) failure = `insufficient balance for value transfer`;
    else if (to === undefined && tx.data.length > MAX_INIT_CODE_SIZE && block.fork >= OpFork.Canyon) {
      failure = "init code too large";
    } else if (fromBefore.nonce >= MAX_NONCE) failure = "nonce at maximum";

    if (failure === undefined) {
      this.warmCommon(from, to);
      result = await evm.runCall({
        block: block.evmBlock,
        gasPrice: 0n,
        caller: from,
        origin: from,
        to,
        value: tx.value,
        data: tx.data,
        gasLimit: tx.gasLimit - intrinsic,
      });
      if (regolith) {
        let used = intrinsic + result.execResult.executionGasUsed;
        const refund = minBig(result.execResult.gasRefund ?? 0n, used / REFUND_QUOTIENT);
        used -= refund;
        gasUsed = used < floor ? floor : used;
      } else {
        gasUsed = tx.isSystemTx ? 0n : tx.gasLimit;
      }
      status = result.execResult.exceptionError === undefined ? 1 : 0;
      await state.commit();
      await this.finishTx(result);
    } else {
      // Failed deposit: undo everything after the mint, still bump the nonce, use all gas.
      await state.revert();
      await evm.journal.cleanup();
      const acc = (await state.getAccount(from)) ?? new Account();
      acc.nonce += 1n;
      await state.putAccount(from, acc);
      gasUsed = tx.isSystemTx && !regolith ? 0n : tx.gasLimit;
      status = 0;
      result = undefined;
    }

    const logs = status === 1 && result ? convertLogs(result.execResult.logs) : [];
    const receipt: Receipt = {
      type: decoded.type,
      status,
      cumulativeGasUsed: cumulativeGasUsed + gasUsed,
      logs,
      logsBloom: logsBloom(logs),
    };
    if (regolith) receipt.depositNonce = depositNonce;
    if (block.fork >= OpFork.Canyon) receipt.depositReceiptVersion = 1n;
    return {
      receipt,
      gasUsed,
      daFootprint: 0n,
      details: {
        transactionHash: decoded.hash,
        transactionIndex: index,
        from: tx.from,
        to: tx.to,
        contractAddress: to === undefined && status === 1 ? result?.createdAddress?.bytes : undefined,
        gasUsed,
        effectiveGasPrice: 0n,
        l1Fee: 0n,
        operatorFee: 0n,
      },
    };
  }

  // ----------------------------------------------------------------------------------------------
  // User transactions

  private async applyUserTx(
    decoded: DecodedTransaction,
    tx: TypedTransaction,
    index: number,
    cumulativeGasUsed: bigint,
    gasPool: bigint,
    daFootprintRoom: bigint,
  ): Promise<TxOutcome> {
    const { evm, state, block } = this.env;
    let sender: Address;
    try {
      sender = tx.getSenderAddress();
    } catch (e) {
      throw new TransactionRejectedError("invalid-signature", (e as Error).message);
    }
    if (tx.gasLimit > gasPool) {
      throw new TransactionRejectedError(
        "gas-limit-exceeds-block",
        `gas ${tx.gasLimit} exceeds the block's remaining gas ${gasPool}`,
      );
    }
    const intrinsic = tx.getIntrinsicGas();
    const prague = block.fork >= OpFork.Isthmus;
    const floor = prague ? floorDataGas(tx.data) : 0n;
    if (tx.gasLimit < intrinsic || tx.gasLimit < floor) {
      throw new TransactionRejectedError(
        "intrinsic-gas-too-low",
        `gas ${tx.gasLimit} below intrinsic ${intrinsic}${prague ? ` / floor ${floor}` : ""}`,
      );
    }
    const isCreate = tx.to === undefined;
    if (isCreate && tx.data.length > MAX_INIT_CODE_SIZE && block.fork >= OpFork.Canyon) {
      throw new TransactionRejectedError("init-code-too-large", `init code of ${tx.data.length} bytes`);
    }
    const dynamicFee = tx.supports(Capability.EIP1559FeeMarket);
    const feeCap = dynamicFee
      ? (tx as { maxFeePerGas: bigint }).maxFeePerGas
      : (tx as { gasPrice: bigint }).gasPrice;
    const tipCap = dynamicFee ? (tx as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas : feeCap;
    if (tipCap > feeCap)
      throw new TransactionRejectedError("tip-above-fee-cap", `tip ${tipCap} above fee cap ${feeCap}`);
    if (feeCap < block.baseFee) {
      throw new TransactionRejectedError(
        "fee-cap-below-base-fee",
        `fee cap ${feeCap} below base fee ${block.baseFee}`,
      );
    }
    const authList = tx.type === 4 ? (tx as EOACode7702Tx).authorizationList : undefined;
    if (authList !== undefined && authList.length === 0) {
      throw new TransactionRejectedError(
        "empty-authorization-list",
        "EIP-7702 transaction without authorizations",
      );
    }

    const account = (await state.getAccount(sender)) ?? new Account();
    if (!bytesEqual(account.codeHash, KECCAK256_NULL)) {
      const code = prague ? await state.getCode(sender) : undefined;
      if (code === undefined || !isDelegation(code)) {
        throw new TransactionRejectedError("sender-not-eoa", `sender ${sender} has code`);
      }
    }
    if (account.nonce > tx.nonce)
      throw new TransactionRejectedError("nonce-too-low", `nonce ${tx.nonce}, account at ${account.nonce}`);
    if (account.nonce < tx.nonce)
      throw new TransactionRejectedError("nonce-too-high", `nonce ${tx.nonce}, account at ${account.nonce}`);
    if (account.nonce >= MAX_NONCE)
      throw new TransactionRejectedError("nonce-max", "account nonce at maximum");

    const params = await this.feeParams();
    const flz = block.fork >= OpFork.Fjord ? BigInt(fastLzCompressedLength(decoded.raw)) : 0n;
    const footprint = block.fork >= OpFork.Jovian ? daFootprint(flz, params.daFootprintGasScalar) : 0n;
    if (footprint > daFootprintRoom && block.fork >= OpFork.Jovian) {
      throw new TransactionRejectedError(
        "da-footprint-exceeds-block",
        `DA footprint ${footprint} exceeds the block's remaining ${daFootprintRoom}`,
      );
    }
    const l1Fee = l1DataFee(decoded.raw, params, block.fork, flz);
    const operatorFeeMax = operatorFee(tx.gasLimit, params, block.fork);
    const maxCost = tx.gasLimit * feeCap + tx.value + l1Fee + operatorFeeMax;
    if (account.balance < maxCost) {
      throw new TransactionRejectedError(
        "insufficient-funds",
        `balance ${account.balance} below max cost ${maxCost}`,
      );
    }

    // ---- from here on, state changes ----
    const tip = minBig(tipCap, feeCap - block.baseFee);
    const gasPrice = block.baseFee + tip;
    account.balance -= tx.gasLimit * gasPrice + l1Fee + operatorFeeMax;
    // Calls: bump the nonce here (before authorizations, as EIP-7702 requires); creates: runCall
    // bumps it and derives the new address from the previous nonce.
    if (!isCreate) account.nonce += 1n;
    await evm.journal.putAccount(sender, account);

    const to = tx.to;
    this.warmCommon(sender, to);
    const journal = evm.journal;
    const accessList = "accessList" in tx ? tx.accessList : [];
    for (const [addr, slots] of accessList) {
      const a = new Address(addr as Uint8Array);
      journal.addAlwaysWarmAddress(a.toString());
      for (const slot of slots as Uint8Array[])
        journal.addAlwaysWarmSlot(a.toString(), `0x${Buffer.from(slot).toString("hex")}`);
    }

    let authRefund = 0n;
    if (authList !== undefined) authRefund = await this.applyAuthorizations(authList);
    if (prague && to !== undefined) {
      const code = await state.getCode(to);
      if (isDelegation(code)) journal.addAlwaysWarmAddress(new Address(code.subarray(3, 23)).toString());
    }

    const result = await evm.runCall({
      block: block.evmBlock,
      gasPrice,
      caller: sender,
      origin: sender,
      to,
      value: tx.value,
      data: tx.data,
      gasLimit: tx.gasLimit - intrinsic,
      skipNonceIncrement: !isCreate,
    });

    let gasUsed = intrinsic + result.execResult.executionGasUsed;
    const refund = minBig((result.execResult.gasRefund ?? 0n) + authRefund, gasUsed / REFUND_QUOTIENT);
    gasUsed -= refund;
    if (gasUsed < floor) gasUsed = floor;

    const operatorFeeUsed = operatorFee(gasUsed, params, block.fork);
    await this.addBalance(sender, (tx.gasLimit - gasUsed) * gasPrice + (operatorFeeMax - operatorFeeUsed));
    await this.addBalance(block.coinbase, gasUsed * tip);
    await this.addBalance(BASE_FEE_VAULT, gasUsed * block.baseFee);
    await this.addBalance(L1_FEE_VAULT, l1Fee);
    if (block.fork >= OpFork.Isthmus) await this.addBalance(OPERATOR_FEE_VAULT, operatorFeeUsed);
    await this.finishTx(result);

    const status: 0 | 1 = result.execResult.exceptionError === undefined ? 1 : 0;
    const logs = status === 1 ? convertLogs(result.execResult.logs) : [];
    return {
      receipt: {
        type: decoded.type,
        status,
        cumulativeGasUsed: cumulativeGasUsed + gasUsed,
        logs,
        logsBloom: logsBloom(logs),
      },
      gasUsed,
      daFootprint: footprint,
      details: {
        transactionHash: decoded.hash,
        transactionIndex: index,
        from: sender.bytes,
        to: to?.bytes,
        contractAddress: isCreate && status === 1 ? result.createdAddress?.bytes : undefined,
        gasUsed,
        effectiveGasPrice: gasPrice,
        l1Fee,
        operatorFee: operatorFeeUsed,
      },
    };
  }

  /** EIP-7702: applies each valid authorization; returns the refund for already-existing authorities. */
  private async applyAuthorizations(list: EOACode7702AuthorizationListBytesItem[]): Promise<bigint> {
    const { evm, state, block } = this.env;
    let refund = 0n;
    for (const item of list) {
      const [chainIdB, addressB, nonceB, yParityB, , sB] = item;
      const chainId = ejsBytesToBigInt(chainIdB);
      if (chainId !== 0n && chainId !== block.chainId) continue;
      const nonce = ejsBytesToBigInt(nonceB);
      if (nonce >= MAX_NONCE) continue;
      const yParity = ejsBytesToBigInt(yParityB);
      if (yParity > 1n || ejsBytesToBigInt(sB) > SECP256K1_HALF_N) continue;
      let authority: Address;
      try {
        authority = recoverAuthority(item);
      } catch {
        continue;
      }
      evm.journal.addAlwaysWarmAddress(authority.toString());
      const existing = await state.getAccount(authority);
      const acc = existing ?? new Account();
      if (!bytesEqual(acc.codeHash, KECCAK256_NULL)) {
        const code = await state.getCode(authority);
        if (!isDelegation(code)) continue;
      }
      if (acc.nonce !== nonce) continue;
      if (existing !== undefined) refund += AUTH_EXISTING_ACCOUNT_REFUND;
      const target = addressB;
      const clear = target.every((b) => b === 0);
      acc.nonce += 1n;
      await evm.journal.putAccount(authority, acc);
      if (clear) {
        const cur = (await state.getAccount(authority))!;
        cur.codeHash = KECCAK256_NULL;
        await state.putAccount(authority, cur);
      } else {
        await state.putCode(authority, concatBytes(DELEGATION_PREFIX, target));
      }
    }
    return refund;
  }
}

function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** Intrinsic gas of a deposit: 21000 (+32000, and from Canyon/Shanghai init code words, for creates) + calldata. */
export function depositIntrinsicGas(tx: DepositTransaction, shanghai: boolean): bigint {
  let gas = tx.to === undefined ? TX_GAS_CREATE : TX_GAS;
  let zeros = 0n;
  for (const b of tx.data) if (b === 0) zeros++;
  const nonZeros = BigInt(tx.data.length) - zeros;
  gas += zeros * TX_DATA_ZERO_GAS + nonZeros * TX_DATA_NONZERO_GAS;
  if (tx.to === undefined && shanghai) gas += INIT_CODE_WORD_GAS * ((BigInt(tx.data.length) + 31n) / 32n);
  return gas;
}

/** EIP-7623 floor: 21000 + 10 · (zero bytes + 4 · non-zero bytes). */
export function floorDataGas(data: Uint8Array): bigint {
  let tokens = 0n;
  for (const b of data) tokens += b === 0 ? 1n : 4n;
  return TX_GAS + FLOOR_TOKEN_COST * tokens;
}

function convertLogs(logs: EvmLog[] | undefined): Log[] {
  return (logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
}
