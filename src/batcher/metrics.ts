/** The batcher's Prometheus series (docs/batcher.md, "Metrics"), on the process's MetricsRegistry. */
import type { Counter, Gauge, Histogram, MetricsRegistry } from "../metrics/index.js";

const SIZE_BUCKETS = [1_000, 4_000, 16_000, 64_000, 120_000, 256_000, 512_000, 780_000, 1_000_000, 4_000_000];

export class BatcherMetrics {
  /** Sealed L2 blocks not yet posted (L2 head minus the last posted block). */
  readonly pendingBlocks: Gauge;
  /** Newest L2 block posted in a confirmed channel. */
  readonly lastPostedBlock: Gauge;
  /** Channels posted, by data availability. */
  readonly channels: Counter<"da">;
  readonly channelRawBytes: Histogram;
  readonly channelCompressedBytes: Histogram;
  readonly channelBlocks: Histogram;
  /** compressed / uncompressed size of the last channel. */
  readonly compressionRatio: Gauge;
  /** L1 transactions by outcome: included, resubmitted (fee bump), reorged (included then lost). */
  readonly transactions: Counter<"outcome">;
  /** L1 execution gas used and its cost in wei; blob gas used and its cost in wei. */
  readonly l1GasUsed: Counter;
  readonly l1GasSpentWei: Counter;
  readonly l1BlobGasUsed: Counter;
  readonly l1BlobGasSpentWei: Counter;
  /** Restarts of the posting loop from what L1 holds (start, reorg, refused transaction). */
  readonly recoveries: Counter<"reason">;

  constructor(registry: MetricsRegistry) {
    this.pendingBlocks = registry.gauge({
      name: "batcher_pending_blocks",
      help: "Sealed L2 blocks not yet posted to L1",
    });
    this.lastPostedBlock = registry.gauge({
      name: "batcher_last_posted_l2_block",
      help: "Newest L2 block in a confirmed channel on L1",
    });
    this.channels = registry.counter({
      name: "batcher_channels_total",
      help: "Channels posted to L1, by data availability",
      labelNames: ["da"],
    });
    this.channelRawBytes = registry.histogram({
      name: "batcher_channel_raw_bytes",
      help: "Uncompressed size of each posted channel's batches",
      buckets: SIZE_BUCKETS,
    });
    this.channelCompressedBytes = registry.histogram({
      name: "batcher_channel_compressed_bytes",
      help: "Compressed size of each posted channel",
      buckets: SIZE_BUCKETS,
    });
    this.channelBlocks = registry.histogram({
      name: "batcher_channel_blocks",
      help: "L2 blocks per posted channel",
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    });
    this.compressionRatio = registry.gauge({
      name: "batcher_compression_ratio",
      help: "Compressed over uncompressed size of the last posted channel",
    });
    this.transactions = registry.counter({
      name: "batcher_l1_transactions_total",
      help: "Batcher L1 transactions by outcome (included, resubmitted, reorged)",
      labelNames: ["outcome"],
    });
    this.l1GasUsed = registry.counter({
      name: "batcher_l1_gas_used_total",
      help: "L1 gas used by batcher txs",
    });
    this.l1GasSpentWei = registry.counter({
      name: "batcher_l1_gas_spent_wei_total",
      help: "L1 execution fees paid by batcher txs (gas used times effective gas price), wei",
    });
    this.l1BlobGasUsed = registry.counter({
      name: "batcher_l1_blob_gas_used_total",
      help: "L1 blob gas used by batcher txs",
    });
    this.l1BlobGasSpentWei = registry.counter({
      name: "batcher_l1_blob_gas_spent_wei_total",
      help: "L1 blob fees paid by batcher txs (blob gas used times blob gas price), wei",
    });
    this.recoveries = registry.counter({
      name: "batcher_recoveries_total",
      help: "Times the batcher re-read L1 to find where to resume, by reason",
      labelNames: ["reason"],
    });
  }
}
