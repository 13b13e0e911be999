/**
 * The order service's view of the chain, over viem clients only (any JSON-RPC node): the token's
 * domain, sealed block heads, signature checks (EIP-1271 by eth_call), simulation, signing with an
 * explicit relayer nonce, broadcasting, receipts and the token's nonce-consumption logs.
 */
import {
  type Account,
  type Address,
  type Chain,
  getAddress,
  type Hash,
  type Hex,
  keccak256,
  numberToHex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from "viem";
import {
  AUTHORIZATION_CANCELED_TOPIC,
  AUTHORIZATION_USED_TOPIC,
  findNonceConsumer,
  type NonceConsumption,
  readAuthorizationState,
  readTokenDomain,
  type SignatureVerdict,
  simulateTokenCall,
  type TokenCall,
  type TokenDomain,
  verifySignatureForAccount,
} from "../payments/index.js";

export type RelayerWalletClient = WalletClient<Transport, Chain | undefined, Account>;

export interface SealedHead {
  number: bigint;
  timestamp: bigint;
  hash: Hash;
}

/** The block tag settlements wait for: `safe` (derived from L1 on an OP chain) or `finalized`. */
export type SettleAt = "safe" | "finalized";

/** A token log that consumed a nonce. */
export interface ConsumptionLog {
  kind: "used" | "canceled";
  authorizer: Address;
  nonce: Hex;
  transactionHash: Hash;
  blockNumber: bigint;
}

export type BroadcastOutcome = "accepted" | "known" | "nonce-taken";

export interface SignedTransaction {
  raw: Hex;
  hash: Hash;
  nonce: number;
}

export interface TxReceiptSummary {
  status: "success" | "reverted";
  blockNumber: bigint;
}

export class MerchantChain {
  private domainPromise: Promise<TokenDomain> | undefined;
  readonly token: Address;

  constructor(
    readonly publicClient: PublicClient,
    readonly walletClient: RelayerWalletClient,
    token: Address,
  ) {
    this.token = getAddress(token);
  }

  get relayer(): Address {
    return this.walletClient.account.address;
  }

  /** Read once from the token (name(), version(), chain id, address). */
  domain(): Promise<TokenDomain> {
    this.domainPromise ??= readTokenDomain(this.publicClient, this.token).catch((error: unknown) => {
      this.domainPromise = undefined;
      throw error;
    });
    return this.domainPromise;
  }

  /** The latest sealed block's number, timestamp and hash. */
  async head(): Promise<SealedHead> {
    return this.blockAtTag("latest");
  }

  /** The block a tag names now (latest, safe, finalized). */
  async blockAtTag(tag: "latest" | SettleAt): Promise<SealedHead> {
    const block = await this.publicClient.getBlock({ blockTag: tag });
    return { number: block.number, timestamp: block.timestamp, hash: block.hash };
  }

  async blockAt(number: bigint): Promise<SealedHead> {
    const block = await this.publicClient.getBlock({ blockNumber: number });
    return { number: block.number, timestamp: block.timestamp, hash: block.hash };
  }

  /** The hash of the chain's block at `number` now, or null when the chain has no such block (yet). */
  async blockHash(number: bigint): Promise<Hash | null> {
    const block = await this.publicClient.request({
      method: "eth_getBlockByNumber",
      params: [numberToHex(number), false],
    });
    return block === null || block === undefined ? null : (block.hash as Hash | null);
  }

  verifySignature(signer: Address, digest: Hex, signature: Hex): Promise<SignatureVerdict> {
    return verifySignatureForAccount(this.publicClient, signer, digest, signature);
  }

  authorizationUsed(authorizer: Address, nonce: Hex): Promise<boolean> {
    return readAuthorizationState(this.publicClient, this.token, authorizer, nonce);
  }

  /** eth_call from the relayer; throws RelaySimulationFailedError with the revert string. */
  simulate(call: TokenCall): Promise<void> {
    return simulateTokenCall(this.publicClient, this.relayer, call);
  }

  /** The relayer's next nonce including pending transactions. */
  async pendingNonce(): Promise<number> {
    return this.publicClient.getTransactionCount({ address: this.relayer, blockTag: "pending" });
  }

  private readonly gasByFunction = new Map<string, bigint>();

  /**
   * Gas limit for the call from the relayer. For a signer without code (ECDSA: the same code path
   * and storage writes every time) the first estimate of each token function is reused with 50%
   * headroom; contract signers (EIP-1271, whose validation cost varies) are estimated every time
   * with 20% headroom. Unused gas is not paid.
   */
  async gasLimit(call: TokenCall, signer: Address): Promise<bigint> {
    const code = await this.publicClient.getCode({ address: signer });
    const plainAccount = code === undefined || code === "0x";
    const cached = plainAccount ? this.gasByFunction.get(call.functionName) : undefined;
    if (cached !== undefined) return cached;
    const gas = await this.publicClient.estimateGas({ account: this.relayer, to: call.to, data: call.data });
    if (!plainAccount) return (gas * 12n) / 10n;
    const limit = (gas * 15n) / 10n;
    this.gasByFunction.set(call.functionName, limit);
    return limit;
  }

  private fees:
    { at: number; value: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> } | undefined;

  /** EIP-1559 fees, read at most once a second (2x the base fee leaves room for rising fees). */
  feesPerGas(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const now = Date.now();
    if (this.fees === undefined || now - this.fees.at > 1000) {
      const value = this.publicClient.estimateFeesPerGas().then((f) => ({
        maxFeePerGas: f.maxFeePerGas,
        maxPriorityFeePerGas: f.maxPriorityFeePerGas,
      }));
      value.catch(() => {
        this.fees = undefined;
      });
      this.fees = { at: now, value };
    }
    return this.fees.value;
  }

  /** Signs locally with every field given (no RPC). Nothing is sent. */
  async sign(
    call: TokenCall,
    nonce: number,
    gas: bigint,
    fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  ): Promise<SignedTransaction> {
    const chainId = (await this.domain()).chainId;
    const raw = await this.walletClient.account.signTransaction!({
      type: "eip1559",
      chainId: Number(chainId),
      to: call.to,
      data: call.data,
      nonce,
      gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      value: 0n,
    });
    return { raw, hash: keccak256(raw), nonce };
  }

  /**
   * Sends a signed transaction. A node that already has it answers "already known" (known); one
   * whose relayer nonce has moved past it answers a nonce error (nonce-taken: mined already, or
   * replaced by another transaction; the receipt tells which).
   */
  async broadcast(raw: Hex): Promise<BroadcastOutcome> {
    try {
      await this.publicClient.sendRawTransaction({ serializedTransaction: raw });
      return "accepted";
    } catch (error) {
      const outcome = broadcastRejectionOf(error);
      if (outcome !== undefined) return outcome;
      throw error;
    }
  }

  async receipt(hash: Hash): Promise<TxReceiptSummary | null> {
    const receipt = await this.publicClient.request({ method: "eth_getTransactionReceipt", params: [hash] });
    if (receipt === null || receipt === undefined || receipt.blockNumber === null) return null;
    return {
      status: receipt.status === "0x1" ? "success" : "reverted",
      blockNumber: BigInt(receipt.blockNumber),
    };
  }

  consumer(
    authorizer: Address,
    nonce: Hex,
    fromBlock: bigint,
    toBlock: bigint,
  ): Promise<NonceConsumption | null> {
    return findNonceConsumer(this.publicClient, { token: this.token, authorizer, nonce, fromBlock, toBlock });
  }

  /** Every AuthorizationUsed / AuthorizationCanceled log of the token in [fromBlock, toBlock]. */
  async consumptionLogs(fromBlock: bigint, toBlock: bigint): Promise<ConsumptionLog[]> {
    if (fromBlock > toBlock) return [];
    const logs = await this.publicClient.request({
      method: "eth_getLogs",
      params: [
        {
          address: this.token,
          topics: [[AUTHORIZATION_USED_TOPIC, AUTHORIZATION_CANCELED_TOPIC]],
          fromBlock: numberToHex(fromBlock),
          toBlock: numberToHex(toBlock),
        },
      ],
    });
    const out: ConsumptionLog[] = [];
    for (const log of logs) {
      const [topic0, authorizerTopic, nonce] = log.topics as Hex[];
      if (log.removed === true || authorizerTopic === undefined || nonce === undefined) continue;
      if (log.transactionHash === null || log.blockNumber === null) continue;
      out.push({
        kind: topic0?.toLowerCase() === AUTHORIZATION_USED_TOPIC.toLowerCase() ? "used" : "canceled",
        authorizer: getAddress(`0x${authorizerTopic.slice(26)}`),
        nonce: nonce.toLowerCase() as Hex,
        transactionHash: log.transactionHash,
        blockNumber: BigInt(log.blockNumber),
      });
    }
    return out;
  }
}

/**
 * What a node's refusal of eth_sendRawTransaction means. Nodes answer these refusals with one generic code
 * (-32000) and the execution client's wording (geth's, which op-geth, reth and this project's node share), so
 * that wording is the wire protocol here: this is the one place it is read, at the edge, and turned into an
 * outcome the relayer and reconciler branch on. Anything else is not a refusal we understand (undefined).
 */
function broadcastRejectionOf(error: unknown): BroadcastOutcome | undefined {
  const text = errorText(error);
  if (text.includes("already known") || text.includes("already imported")) return "known";
  if (text.includes("nonce")) return "nonce-taken";
  return undefined;
}

function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    parts.push(current.message);
    const details = (current as { details?: unknown }).details;
    if (typeof details === "string") parts.push(details);
    current = current.cause;
  }
  return parts.join(" | ").toLowerCase();
}
