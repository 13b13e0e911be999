/**
 * FilterRegistry's bookkeeping on a controlled clock and event feed: expiry after 5 minutes without a
 * poll (a poll keeps a filter alive), the cap on installed filters, the bounded backlog (oldest dropped),
 * numeric ranges of log filters, and one formatting of a block's logs shared by every log filter.
 * The node-level behaviour (real blocks, pool, clients) is in test/node/filters.test.ts.
 */
import { describe, expect, it } from "vitest";
import type * as T from "../../../generated/rpc/index.js";
import { LimitExceededError } from "../../../generated/rpc/errors.js";
import type { PooledTransaction } from "../pool.js";
import type { StoredBlock } from "../store/block-store.js";
import {
  FILTER_TIMEOUT_MS,
  FilterRegistry,
  type FilterSources,
  MAX_FILTER_BACKLOG,
  MAX_FILTERS,
} from "./filter-registry.js";

function feed() {
  const sealed = new Set<(b: StoredBlock) => void>();
  const added = new Set<(tx: PooledTransaction) => void>();
  let formatted = 0;
  const sources: FilterSources = {
    onSealed: (l) => (sealed.add(l), () => sealed.delete(l)),
    onPoolAdded: (l) => (added.add(l), () => added.delete(l)),
    logsOf: (block) => {
      formatted++;
      return [
        { address: new Uint8Array(20).fill(Number(block.header.number)), topics: [] } as unknown as T.Log,
      ];
    },
    matches: (log, addresses) => addresses === undefined || addresses.some((a) => a[0] === log.address[0]),
  };
  const seal = (n: number) => {
    const block = {
      header: { number: BigInt(n) },
      hash: new Uint8Array(32).fill(n),
    } as unknown as StoredBlock;
    for (const l of sealed) l(block);
  };
  const accept = (n: number) => {
    const tx = { decoded: { hash: new Uint8Array(32).fill(n) } } as unknown as PooledTransaction;
    for (const l of added) l(tx);
  };
  return { sources, seal, accept, formatted: () => formatted, listeners: () => sealed.size + added.size };
}

describe("FilterRegistry", () => {
  it("removes a filter not polled for five minutes; polling keeps it alive", () => {
    let now = 1_000_000;
    const f = feed();
    const registry = new FilterRegistry(f.sources, () => now);
    const polled = registry.newBlockFilter();
    const idle = registry.newBlockFilter();
    now += FILTER_TIMEOUT_MS - 1000;
    expect(registry.changes(polled)).toEqual([]);
    now += 2000;
    f.seal(1);
    expect(registry.changes(idle)).toBeUndefined();
    expect(registry.changes(polled)).toEqual([new Uint8Array(32).fill(1)]);
    expect(registry.size).toBe(1);
    registry.close();
    expect(f.listeners()).toBe(0);
  });

  it("caps installed filters with LimitExceeded (-32005) and accepts again after an uninstall", () => {
    const registry = new FilterRegistry(feed().sources);
    const ids = Array.from({ length: MAX_FILTERS }, () => registry.newPendingTransactionFilter());
    expect(new Set(ids).size).toBe(MAX_FILTERS);
    let refusal: unknown;
    try {
      registry.newBlockFilter();
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(LimitExceededError);
    expect((refusal as LimitExceededError).code).toBe(-32005);
    expect(registry.uninstall(ids[0]!)).toBe(true);
    expect(registry.newBlockFilter()).toMatch(/^0x[0-9a-f]{32}$/);
  });

  it("keeps at most MAX_FILTER_BACKLOG entries between polls, dropping the oldest", () => {
    const f = feed();
    const registry = new FilterRegistry(f.sources);
    const id = registry.newPendingTransactionFilter();
    for (let i = 0; i < MAX_FILTER_BACKLOG + 5; i++) f.accept(i % 256);
    const changes = registry.changes(id) as Uint8Array[];
    expect(changes).toHaveLength(MAX_FILTER_BACKLOG);
    expect(changes[0]![0]).toBe(5 % 256);
    expect(registry.changes(id)).toEqual([]);
  });

  it("bounds log filters by numeric fromBlock/toBlock and formats a block's logs once for all filters", () => {
    const f = feed();
    const registry = new FilterRegistry(f.sources);
    const open = registry.newLogFilter({ fromBlock: "latest" });
    const ranged = registry.newLogFilter({ fromBlock: 3n, toBlock: 4n });
    const byAddress = registry.newLogFilter({ address: new Uint8Array(20).fill(2) });
    for (let n = 1; n <= 5; n++) f.seal(n);
    expect(f.formatted()).toBe(5);
    const numbers = (id: string) => (registry.changes(id) as T.Log[]).map((l) => l.address[0]);
    expect(numbers(open)).toEqual([1, 2, 3, 4, 5]);
    expect(numbers(ranged)).toEqual([3, 4]);
    expect(numbers(byAddress)).toEqual([2]);
    expect(registry.logCriteria(ranged)).toEqual({ fromBlock: 3n, toBlock: 4n });
    expect(registry.logCriteria(registry.newBlockFilter())).toBeUndefined();
    expect(() => registry.newLogFilter({ fromBlock: 5n, toBlock: 4n })).toThrow(/fromBlock is after toBlock/);
    expect(() => registry.newLogFilter({ blockHash: new Uint8Array(32) })).toThrow(/blockHash/);
  });

  it("formats nothing while no filter is installed", () => {
    const f = feed();
    const registry = new FilterRegistry(f.sources);
    f.seal(1);
    f.accept(1);
    expect(f.formatted()).toBe(0);
    registry.close();
  });
});
