/**
 * The registrar's second half: TEEProverRegistry reads and the registrar's writes (registerSigner,
 * deregisterSigner) through viem. Every write is simulated first, so a caller without the registrar role
 * gets the contract's own error (NotRegistrar, SignerNotRegistered) and sends nothing; then it is sent
 * and its receipt awaited with the configured number of confirmations.
 */
import {
  type Account,
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from "viem";
import { teeProverRegistryAbi } from "../../contracts/index.js";
import { RegistrarError } from "./errors.js";

export interface SignerRecord {
  readonly signer: Address;
  readonly registered: boolean;
  /** The image hash the signer is bound to (zero when not registered). */
  readonly imageHash: Hex;
  /** Registered and bound to the active image hash: what the host's routing and TEEVerifier accept. */
  readonly valid: boolean;
}

/** The registry refused a write (its custom error, or a revert reason). */
export class RegistryWriteError extends RegistrarError<"registry-write"> {
  override readonly name = "RegistryWriteError";
  constructor(
    message: string,
    details: { readonly functionName: string; readonly transactionHash?: Hex },
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { kind: "registry-write", details, cause: options.cause });
  }
}

/** A sent write whose transaction reverted onchain. */
export class RegistryTransactionRevertedError extends RegistrarError<"registry-transaction-reverted"> {
  override readonly name = "RegistryTransactionRevertedError";
  constructor(message: string, details: { readonly functionName: string; readonly transactionHash: Hex }) {
    super(message, { kind: "registry-transaction-reverted", details });
  }
}

export interface RegistryAdminOptions {
  readonly registry: Address;
  readonly publicClient: PublicClient;
  /** Needed for writes only. */
  readonly walletClient?: WalletClient<Transport, Chain, Account>;
  /** Confirmations to wait for after a write: the block holding it is 1 (default 2: and one more). */
  readonly confirmations?: number;
  /** Receipt wait limit (default 120 s). */
  readonly receiptTimeoutMs?: number;
}

export class RegistryAdmin {
  readonly registry: Address;
  private readonly publicClient: PublicClient;
  private readonly walletClient: WalletClient<Transport, Chain, Account> | undefined;
  private readonly confirmations: number;
  private readonly receiptTimeoutMs: number;

  constructor(options: RegistryAdminOptions) {
    this.registry = options.registry;
    this.publicClient = options.publicClient;
    this.walletClient = options.walletClient;
    this.confirmations = options.confirmations ?? 2;
    this.receiptTimeoutMs = options.receiptTimeoutMs ?? 120_000;
  }

  activeImageHash(): Promise<Hex> {
    return this.read("activeImageHash", []) as Promise<Hex>;
  }

  async signerRecord(signer: Address): Promise<SignerRecord> {
    const [registered, imageHash, valid] = await Promise.all([
      this.read("isRegisteredSigner", [signer]) as Promise<boolean>,
      this.read("signerImageHash", [signer]) as Promise<Hex>,
      this.read("isValidSigner", [signer]) as Promise<boolean>,
    ]);
    return { signer, registered, imageHash, valid };
  }

  /** Binds `signer` to `imageHash`; returns the transaction hash once it has its confirmations. */
  registerSigner(signer: Address, imageHash: Hex): Promise<Hex> {
    return this.write("registerSigner", [signer, imageHash]);
  }

  deregisterSigner(signer: Address): Promise<Hex> {
    return this.write("deregisterSigner", [signer]);
  }

  private read(functionName: string, args: readonly unknown[]): Promise<unknown> {
    return this.publicClient.readContract({
      address: this.registry,
      abi: teeProverRegistryAbi,
      functionName,
      args,
    } as never);
  }

  private async write(
    functionName: "registerSigner" | "deregisterSigner",
    args: readonly unknown[],
  ): Promise<Hex> {
    const wallet = this.walletClient;
    if (wallet === undefined)
      throw new RegistryWriteError(`${functionName} needs a registrar account`, { functionName });
    let request: unknown;
    try {
      ({ request } = await this.publicClient.simulateContract({
        address: this.registry,
        abi: teeProverRegistryAbi,
        functionName,
        args,
        account: wallet.account,
        chain: wallet.chain,
      } as never));
    } catch (error) {
      throw new RegistryWriteError(
        `${functionName} would fail: ${revertDescription(error)}`,
        { functionName },
        { cause: error },
      );
    }
    const hash = await wallet.writeContract(request as never);
    const deadline = Date.now() + this.receiptTimeoutMs;
    const receipt = await this.publicClient.waitForTransactionReceipt({
      hash,
      timeout: this.receiptTimeoutMs,
    });
    if (receipt.status !== "success")
      throw new RegistryTransactionRevertedError(`${functionName} transaction ${hash} reverted`, {
        functionName,
        transactionHash: hash,
      });
    await this.waitForConfirmations(functionName, receipt.blockNumber, deadline, hash);
    return hash;
  }

  /**
   * Waits until the latest block is `confirmations - 1` past the receipt's block. Counted here rather
   * than by viem, which takes one confirmation as "a receipt exists": a node that serves pre-confirmed
   * receipts (flashblocks) answers before the block is sealed, and reads at `latest` would not see it.
   */
  private async waitForConfirmations(
    functionName: string,
    block: bigint,
    deadline: number,
    hash: Hex,
  ): Promise<void> {
    const target = block + BigInt(this.confirmations - 1);
    while ((await this.publicClient.getBlockNumber({ cacheTime: 0 })) < target) {
      if (Date.now() > deadline)
        throw new RegistryWriteError(
          `transaction ${hash} did not reach ${this.confirmations} confirmation(s) in time`,
          { functionName, transactionHash: hash },
        );
      await new Promise((resolve) => setTimeout(resolve, this.publicClient.pollingInterval));
    }
  }
}

/** The contract's custom error with its arguments, a revert reason, or viem's short message. */
function revertDescription(error: unknown): string {
  if (!(error instanceof BaseError)) return error instanceof Error ? error.message : String(error);
  const revert = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  if (revert instanceof ContractFunctionRevertedError && revert.data !== undefined) {
    const args = (revert.data.args ?? []).map(String).join(", ");
    return `${revert.data.errorName}(${args})`;
  }
  if (revert instanceof ContractFunctionRevertedError && revert.reason !== undefined) return revert.reason;
  return error.shortMessage;
}
