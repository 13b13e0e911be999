/**
 * Polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): each installed
 * filter collects what arrives (sealed block hashes, hashes of transactions accepted into the pool, or
 * the matching logs of sealed blocks) until eth_getFilterChanges takes it.
 *
 * As in geth, a filter not polled for FILTER_TIMEOUT_MS is removed. Unlike geth, what one filter holds
 * is bounded: at most MAX_FILTERS filters and MAX_FILTER_BACKLOG entries each (the oldest go first), so
 * a client that installs filters and never polls them cannot grow the node's memory without limit. A
 * sealed block's logs are formatted once and shared by every log filter that matches them.
 */
import { randomBytes } from "node:crypto";
import type * as T from "../../../generated/rpc/index.js";
import { LimitExceededError } from "../../../generated/rpc/index.js";
import { InvalidParamsError } from "../../rpc/index.js";
import type { StoredBlock } from "../store/block-store.js";
import { filterAddresses } from "./shared.js";
import type { PooledTransaction } from "../pool.js";

/** geth's filter timeout (`--rpc.filtertimeout`'s default). */
export const FILTER_TIMEOUT_MS = 5 * 60_000;
/** Installed filters at most, over all clients. */
export const MAX_FILTERS = 1024;
/** Entries one filter holds between polls at most; beyond it the oldest are dropped. */
export const MAX_FILTER_BACKLOG = 10_000;
/** Expired filters are swept at most this often (on events and calls; no timer); a poll checks its own. */
const SWEEP_INTERVAL_MS = 10_000;

/** What the registry listens to: the sequencer's sealed blocks and the pool's additions. */
export interface FilterSources {
  onSealed(listener: (block: StoredBlock) => void): () => void;
  onPoolAdded(listener: (tx: PooledTransaction) => void): () => void;
  /** Every log of a sealed block, formatted once (shared by the filters that match them). */
  logsOf(block: StoredBlock): T.Log[];
  /** Whether a log matches a filter's address and topics. */
  matches(
    log: T.Log,
    addresses: Uint8Array[] | undefined,
    topics: T.FilterTopic[] | null | undefined,
  ): boolean;
}

interface LogCriteria {
  readonly filter: T.Filter;
  readonly addresses: Uint8Array[] | undefined;
  /** Numeric bounds of the range; a tag leaves that end open. */
  readonly from: bigint | undefined;
  readonly to: bigint | undefined;
}

type Installed = { lastPoll: number; backlog: unknown[] } & (
  { kind: "blocks" } | { kind: "transactions" } | { kind: "logs"; criteria: LogCriteria }
);

function numericBound(tag: T.BlockNumberOrTag | undefined): bigint | undefined {
  if (typeof tag === "bigint") return tag;
  return tag === "earliest" ? 0n : undefined;
}

function push(filter: Installed, entry: unknown): void {
  filter.backlog.push(entry);
  if (filter.backlog.length > MAX_FILTER_BACKLOG) filter.backlog.shift();
}

export class FilterRegistry {
  private readonly filters = new Map<string, Installed>();
  private lastSweep: number;
  private readonly stops: (() => void)[];

  constructor(
    private readonly sources: FilterSources,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
    this.stops = [
      sources.onSealed((block) => this.onSealed(block)),
      sources.onPoolAdded((tx) => this.onPoolAdded(tx)),
    ];
  }

  get size(): number {
    return this.filters.size;
  }

  newBlockFilter(): string {
    return this.install({ kind: "blocks", lastPoll: this.now(), backlog: [] });
  }

  newPendingTransactionFilter(): string {
    return this.install({ kind: "transactions", lastPoll: this.now(), backlog: [] });
  }

  newLogFilter(filter: T.Filter): string {
    if (filter.blockHash !== undefined)
      throw new InvalidParamsError("invalid params: filter: eth_newFilter takes no blockHash");
    const from = numericBound(filter.fromBlock);
    const to = numericBound(filter.toBlock);
    if (from !== undefined && to !== undefined && from > to)
      throw new InvalidParamsError("invalid params: filter: fromBlock is after toBlock");
    return this.install({
      kind: "logs",
      lastPoll: this.now(),
      backlog: [],
      criteria: { filter, addresses: filterAddresses(filter.address), from, to },
    });
  }

  /** What the filter collected since the last poll (and resets it); undefined for an unknown id. */
  changes(id: string): Uint8Array[] | T.Log[] | undefined {
    const filter = this.live(id);
    if (filter === undefined) return undefined;
    filter.lastPoll = this.now();
    const out = filter.backlog;
    filter.backlog = [];
    return out as Uint8Array[] | T.Log[];
  }

  /** A log filter's criteria (polling it); undefined for an unknown id or a filter of another kind. */
  logCriteria(id: string): T.Filter | undefined {
    const filter = this.live(id);
    if (filter?.kind !== "logs") return undefined;
    filter.lastPoll = this.now();
    return filter.criteria.filter;
  }

  uninstall(id: string): boolean {
    return this.filters.delete(id);
  }

  /** Stops listening and drops every filter. */
  close(): void {
    for (const stop of this.stops) stop();
    this.filters.clear();
  }

  private install(filter: Installed): string {
    this.sweep();
    if (this.filters.size >= MAX_FILTERS) {
      throw new LimitExceededError(
        `query exceeds the limit: ${MAX_FILTERS} filters are installed; uninstall some or let them expire`,
      );
    }
    // geth's ids: 16 random bytes as hex.
    const id = `0x${randomBytes(16).toString("hex")}`;
    this.filters.set(id, filter);
    return id;
  }

  /** The filter unless it is unknown or expired (an expired one is removed here, whatever the sweep). */
  private live(id: string): Installed | undefined {
    this.sweep();
    const filter = this.filters.get(id);
    if (filter !== undefined && this.now() - filter.lastPoll >= FILTER_TIMEOUT_MS) {
      this.filters.delete(id);
      return undefined;
    }
    return filter;
  }

  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [id, filter] of this.filters) {
      if (now - filter.lastPoll >= FILTER_TIMEOUT_MS) this.filters.delete(id);
    }
  }

  private onSealed(block: StoredBlock): void {
    this.sweep();
    if (this.filters.size === 0) return;
    let logs: T.Log[] | undefined;
    const number = block.header.number;
    for (const filter of this.filters.values()) {
      if (filter.kind === "blocks") push(filter, block.hash);
      else if (filter.kind === "logs") {
        const { criteria } = filter;
        if (criteria.from !== undefined && number < criteria.from) continue;
        if (criteria.to !== undefined && number > criteria.to) continue;
        logs ??= this.sources.logsOf(block);
        for (const log of logs) {
          if (this.sources.matches(log, criteria.addresses, criteria.filter.topics)) push(filter, log);
        }
      }
    }
  }

  private onPoolAdded(tx: PooledTransaction): void {
    if (this.filters.size === 0) return;
    for (const filter of this.filters.values()) {
      if (filter.kind === "transactions") push(filter, tx.decoded.hash);
    }
  }
}
