/**
 * Follows the node's sealed blocks by polling: each new block's header and receipts (eth_getBlockByNumber and
 * eth_getBlockReceipts in one batch), handed to the listeners in order. The generator learns inclusions, their
 * status and gas, the base fee and the gas the chain sequenced from it; setup waits for its transactions with it.
 */
import type { Address, Hex } from "viem";
import { LoadRpcError } from "./errors.js";
import type { LoadRpc } from "./rpc.js";

export interface SeenBlock {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly gasUsed: bigint;
  readonly gasLimit: bigint;
  readonly baseFeePerGas: bigint;
  readonly transactionCount: number;
  /** When this process first saw the block (performance.now() milliseconds). */
  readonly seenAtMs: number;
}

export interface SeenReceipt {
  readonly transactionHash: Hex;
  readonly success: boolean;
  readonly gasUsed: bigint;
  readonly contractAddress: Address | null;
  readonly blockNumber: bigint;
}

interface WireBlock {
  number: Hex;
  timestamp: Hex;
  gasUsed: Hex;
  gasLimit: Hex;
  baseFeePerGas?: Hex;
  transactions: unknown[];
}

interface WireReceipt {
  transactionHash: Hex;
  status: Hex;
  gasUsed: Hex;
  contractAddress: Address | null;
}

export type BlockListener = (block: SeenBlock, receipts: readonly SeenReceipt[]) => void;

export class BlockFollower {
  private readonly listeners = new Set<BlockListener>();
  private next: bigint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  /** The newest block seen. */
  latest: SeenBlock | undefined;
  /** The last polling failure (kept, the next poll tries again). */
  lastError: unknown;

  constructor(
    private readonly rpc: LoadRpc,
    private readonly pollMs = 100,
  ) {}

  listen(listener: BlockListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts following after the current head (whose header becomes `latest`). */
  async start(): Promise<void> {
    const head = await this.rpc.call<WireBlock>("eth_getBlockByNumber", ["latest", false]);
    this.latest = toBlock(head, performance.now());
    this.next = this.latest.number + 1n;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Resolves with the receipts of `hashes` once each is in a sealed block; rejects after `timeoutMs`. */
  waitFor(hashes: readonly Hex[], timeoutMs: number): Promise<Map<Hex, SeenReceipt>> {
    const wanted = new Set(hashes.map((h) => h.toLowerCase() as Hex));
    const found = new Map<Hex, SeenReceipt>();
    if (wanted.size === 0) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        unlisten();
        reject(
          new LoadRpcError(`${wanted.size - found.size} of ${wanted.size} transactions not included`, {
            missing: [...wanted].filter((h) => !found.has(h)).slice(0, 5),
            lastError: String(this.lastError ?? ""),
          }),
        );
      }, timeoutMs);
      const unlisten = this.listen((_, receipts) => {
        for (const r of receipts) if (wanted.has(r.transactionHash)) found.set(r.transactionHash, r);
        if (found.size === wanted.size) {
          clearTimeout(timer);
          unlisten();
          resolve(found);
        }
      });
    });
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(), this.pollMs);
  }

  private async poll(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      for (;;) {
        const number = `0x${this.next!.toString(16)}`;
        const [block, receipts] = await this.rpc.batch([
          { method: "eth_getBlockByNumber", params: [number, false] },
          { method: "eth_getBlockReceipts", params: [number] },
        ]);
        if (!block!.ok || block!.result === null) break;
        if (!receipts!.ok) throw new LoadRpcError(`eth_getBlockReceipts: ${receipts!.message}`, { number });
        if (receipts!.result === null) break; // the block is being sealed: its receipts on the next poll
        const seen = toBlock(block!.result as WireBlock, performance.now());
        const parsed = (receipts!.result as WireReceipt[]).map((r) => toReceipt(r, seen.number));
        this.latest = seen;
        this.next = seen.number + 1n;
        for (const listener of [...this.listeners]) listener(seen, parsed);
        if (this.stopped) break;
      }
    } catch (e) {
      this.lastError = e;
    } finally {
      this.running = false;
      this.schedule();
    }
  }
}

function toBlock(b: WireBlock, seenAtMs: number): SeenBlock {
  return {
    number: BigInt(b.number),
    timestamp: BigInt(b.timestamp),
    gasUsed: BigInt(b.gasUsed),
    gasLimit: BigInt(b.gasLimit),
    baseFeePerGas: BigInt(b.baseFeePerGas ?? "0x0"),
    transactionCount: b.transactions.length,
    seenAtMs,
  };
}

function toReceipt(r: WireReceipt, blockNumber: bigint): SeenReceipt {
  return {
    transactionHash: r.transactionHash.toLowerCase() as Hex,
    success: r.status === "0x1",
    gasUsed: BigInt(r.gasUsed),
    contractAddress: r.contractAddress,
    blockNumber,
  };
}
