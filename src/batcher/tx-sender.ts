/**
 * Sends one batcher transaction at a time (op-batcher's default of one pending transaction) and follows it to
 * confirmation: the nonce is the account's mined nonce; a transaction not included within `resubmitAfterBlocks`
 * L1 blocks is sent again with the same nonce and content and higher fees (+25 % for calldata, ×2 for blob
 * transactions, the bump blob pools require); an included transaction counts once it is `confirmations` blocks deep
 * and its receipt still names the same block (a reorg that drops it sends it again).
 */
import { setTimeout } from "node:timers/promises";
import {
  type Account,
  type Address,
  type Chain,
  type Hex,
  type Kzg as ViemKzg,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
  bytesToHex,
  keccak256,
  parseTransaction,
  serializeTransaction,
  TransactionReceiptNotFoundError,
} from "viem";
import type { Logger } from "../log/index.js";
import { L1ReorgError, TransactionFailedError } from "./errors.js";
import type { BatcherMetrics } from "./metrics.js";

/** The payload of one batcher transaction. */
export type TxCandidate =
  | { readonly kind: "calldata"; readonly data: Uint8Array }
  | { readonly kind: "blobs"; readonly blobs: readonly Uint8Array[] };

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerBlobGas?: bigint;
}

export interface TxSenderOptions {
  readonly publicClient: PublicClient;
  readonly walletClient: WalletClient;
  readonly account: Account;
  readonly chain: Chain;
  readonly batchInbox: Address;
  readonly kzg: () => Promise<ViemKzg>;
  readonly resubmitAfterBlocks: number;
  readonly confirmations: number;
  readonly pollIntervalMs: number;
  readonly metrics: BatcherMetrics;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

/** Resolves after `ms`; rejects (an AbortError) when `signal` fires first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return setTimeout(ms, undefined, { signal });
}

function bump(fees: Fees, blob: boolean): Fees {
  const up = (v: bigint): bigint => (blob ? v * 2n : (v * 125n) / 100n + 1n);
  return {
    maxFeePerGas: up(fees.maxFeePerGas),
    maxPriorityFeePerGas: up(fees.maxPriorityFeePerGas),
    ...(fees.maxFeePerBlobGas === undefined ? {} : { maxFeePerBlobGas: up(fees.maxFeePerBlobGas) }),
  };
}

export class TxSender {
  /** Set when transactions sent before this process started may still hold the next nonce. */
  private replaceUnknown = false;

  constructor(private readonly o: TxSenderOptions) {}

  private get address(): Address {
    return this.o.account.address;
  }

  /**
   * Waits (up to `maxBlocks` L1 blocks) for transactions already in the L1 pool from this account to be mined, so
   * that what L1 holds is final before the batcher re-reads it. Returns false when some are still pending; the next
   * transaction then replaces them (same nonce, doubled fees).
   */
  async settle(maxBlocks: number): Promise<boolean> {
    const { publicClient: l1 } = this.o;
    const start = await l1.getBlockNumber();
    for (;;) {
      const [mined, pending] = await Promise.all([
        l1.getTransactionCount({ address: this.address, blockTag: "latest" }),
        l1.getTransactionCount({ address: this.address, blockTag: "pending" }),
      ]);
      if (pending <= mined) {
        this.replaceUnknown = false;
        return true;
      }
      if ((await l1.getBlockNumber()) - start >= BigInt(maxBlocks)) {
        this.replaceUnknown = true;
        this.o.logger.warn(
          { mined, pending },
          "transactions from before the restart are still pending; replacing",
        );
        return false;
      }
      await sleep(this.o.pollIntervalMs, this.o.signal);
    }
  }

  private async initialFees(blob: boolean): Promise<Fees> {
    const { publicClient: l1 } = this.o;
    const f = await l1.estimateFeesPerGas();
    let fees: Fees = {
      maxFeePerGas: f.maxFeePerGas ?? 1_000_000_000n,
      maxPriorityFeePerGas: f.maxPriorityFeePerGas ?? 1_000_000n,
    };
    if (blob) fees.maxFeePerBlobGas = (await l1.getBlobBaseFee()) * 2n + 1n;
    if (this.replaceUnknown) fees = bump(bump(fees, true), true);
    return fees;
  }

  /** Prepares and signs `candidate` locally; returns the raw transaction, its hash and its gas limit. */
  private async sign(
    candidate: TxCandidate,
    nonce: number,
    fees: Fees,
    gas: bigint | undefined,
  ): Promise<{ raw: Hex; hash: Hex; gas: bigint }> {
    const { walletClient, account, chain, batchInbox } = this.o;
    const common = {
      account,
      chain,
      to: batchInbox,
      nonce,
      gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    };
    const request =
      candidate.kind === "calldata"
        ? await walletClient.prepareTransactionRequest({ ...common, data: bytesToHex(candidate.data) })
        : await walletClient.prepareTransactionRequest({
            ...common,
            blobs: candidate.blobs.map((b) => bytesToHex(b)),
            kzg: await this.o.kzg(),
            maxFeePerBlobGas: fees.maxFeePerBlobGas!,
          });
    const raw = await walletClient.signTransaction(request as never);
    // A blob transaction's hash covers the transaction without its sidecars (the network wrapper).
    const parsed = parseTransaction(raw) as Record<string, unknown>;
    const { sidecars: _s, blobs: _b, ...plain } = parsed;
    const hash =
      candidate.kind === "calldata"
        ? keccak256(raw)
        : keccak256(
            serializeTransaction(
              plain as never,
              { r: parsed.r, s: parsed.s, yParity: parsed.yParity } as never,
            ),
          );
    return { raw, hash, gas: request.gas };
  }

  /**
   * Sends a signed transaction. A refusal or a lost answer is not final: the transaction may still be in the pool,
   * so its hash stays watched and the nonce is only ever reused for the same content (never two posts).
   */
  private async send(signed: { raw: Hex; hash: Hex }, nonce: number): Promise<void> {
    try {
      const hash = await this.o.publicClient.sendRawTransaction({ serializedTransaction: signed.raw });
      if (hash.toLowerCase() !== signed.hash.toLowerCase())
        this.o.logger.error(
          { hash, computed: signed.hash },
          "the L1 node names another hash for the transaction",
        );
    } catch (e) {
      this.o.logger.warn(
        { err: briefError(e), hash: signed.hash, nonce },
        "sending the batcher transaction failed; still watching it",
      );
    }
  }

  /**
   * The receipt of the first of `hashes` L1 has included; undefined when L1 says none is included, "unknown" when a
   * query failed (a timeout on a loaded L1 is not an answer).
   */
  private async findReceipt(hashes: readonly Hex[]): Promise<TransactionReceipt | undefined | "unknown"> {
    let unknown = false;
    for (const hash of hashes) {
      try {
        return await this.o.publicClient.getTransactionReceipt({ hash });
      } catch (e) {
        if (!(e instanceof TransactionReceiptNotFoundError)) unknown = true;
      }
    }
    return unknown ? "unknown" : undefined;
  }

  /**
   * Sends `candidate` and returns its receipt once confirmed. TransactionFailedError when it cannot be posted;
   * L1ReorgError when it was included, a reorg took it out, and another transaction then took its nonce (the reorg
   * is the cause: it returned an earlier transaction to the pool, or a replacement was mined in its place).
   */
  async post(candidate: TxCandidate): Promise<TransactionReceipt> {
    const { publicClient: l1, logger, metrics, signal } = this.o;
    const blob = candidate.kind === "blobs";
    const nonce = await l1.getTransactionCount({ address: this.address, blockTag: "latest" });
    let fees = await this.initialFees(blob);
    const signed = await this.sign(candidate, nonce, fees, undefined);
    const gas = signed.gas;
    const hashes: Hex[] = [signed.hash];
    let sentAt = await l1.getBlockNumber();
    await this.send(signed, nonce);
    logger.debug({ hash: hashes[0], nonce, kind: candidate.kind }, "batcher transaction sent");
    let seenIncluded = false;
    /** The last inclusion seen: when L1 no longer has it, a reorg took it away, and a lost nonce is the reorg's doing. */
    let lastInclusion: { hash: Hex; l1Block: bigint } | undefined;
    for (;;) {
      await sleep(this.o.pollIntervalMs, signal);
      const head = await l1.getBlockNumber();
      const found = await this.findReceipt(hashes);
      if (found === "unknown") continue; // ask again at the next poll
      const included = found;
      if (included !== undefined) {
        if (!seenIncluded)
          logger.debug(
            { hash: included.transactionHash, nonce, l1Block: included.blockNumber },
            "batcher transaction included; waiting for confirmations",
          );
        seenIncluded = true;
        lastInclusion = { hash: included.transactionHash, l1Block: included.blockNumber };
        if (head < included.blockNumber + BigInt(this.o.confirmations) - 1n) continue;
        const block = await l1.getBlock({ blockNumber: included.blockNumber }).catch(() => undefined);
        if (block?.hash !== included.blockHash) continue; // reorged away since: look again next block
        this.replaceUnknown = false;
        this.account(included, blob);
        return included;
      }
      if (seenIncluded) {
        // Included once, now gone: an L1 reorg. The pool may hold it again; if not, resubmission below sends it.
        seenIncluded = false;
        metrics.transactions.labels({ outcome: "reorged" }).inc();
        logger.warn({ hashes, nonce }, "batcher transaction reorged out of L1");
        sentAt = head;
      }
      const mined = await l1.getTransactionCount({ address: this.address, blockTag: "latest" });
      if (mined > nonce) {
        // The count was read after the receipts: one of our hashes may have been included in between. Only if L1
        // still has none of them did another transaction (one sent before a restart) take the nonce.
        if ((await this.findReceipt(hashes)) !== undefined) continue;
        if (lastInclusion !== undefined)
          throw new L1ReorgError(
            `batcher transaction ${lastInclusion.hash} was reorged out of L1 and another transaction took its nonce`,
            { ...lastInclusion, nonce },
          );
        throw new TransactionFailedError("the batcher's nonce was used by another transaction", {
          nonce,
          hashes,
        });
      }
      const waited = head - sentAt;
      if (waited >= BigInt(this.o.resubmitAfterBlocks)) {
        fees = bump(fees, blob);
        const again = await this.sign(candidate, nonce, fees, gas);
        hashes.push(again.hash);
        sentAt = head;
        await this.send(again, nonce);
        metrics.transactions.labels({ outcome: "resubmitted" }).inc();
        logger.warn({ hash: hashes[hashes.length - 1], nonce, waited }, "batcher transaction resubmitted");
      }
    }
  }

  private account(receipt: TransactionReceipt, blob: boolean): void {
    const { metrics } = this.o;
    metrics.transactions.labels({ outcome: "included" }).inc();
    metrics.l1GasUsed.inc(Number(receipt.gasUsed));
    metrics.l1GasSpentWei.inc(Number(receipt.gasUsed * receipt.effectiveGasPrice));
    if (blob && receipt.blobGasUsed !== undefined) {
      metrics.l1BlobGasUsed.inc(Number(receipt.blobGasUsed));
      metrics.l1BlobGasSpentWei.inc(Number(receipt.blobGasUsed * (receipt.blobGasPrice ?? 0n)));
    }
  }
}

/** Longest error text a log line carries: viem's messages repeat the request, a blob transaction's raw bytes included (1.3 MB). */
const MAX_LOGGED_ERROR_CHARS = 500;

/** An error as one short log field: its name and viem's short message (or the message cut to a bound), never the request. */
export function briefError(e: unknown): { name: string; message: string } {
  if (!(e instanceof Error)) return { name: typeof e, message: String(e).slice(0, MAX_LOGGED_ERROR_CHARS) };
  const short = (e as { shortMessage?: unknown }).shortMessage;
  const details = (e as { details?: unknown }).details;
  let message = typeof short === "string" ? short : e.message;
  if (typeof details === "string" && details !== "" && !message.includes(details))
    message = `${message}: ${details}`;
  return { name: e.name, message: message.slice(0, MAX_LOGGED_ERROR_CHARS) };
}
