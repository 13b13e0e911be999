/**
 * Derivation benchmark on the real OP Mainnet batcher transaction (kona's testdata, see
 * ../shared/fixtures/derive/README.md): channel decode (lenient decompression + span batch decode) in MB/s
 * and blocks/s, for the real zlib channel and for the same batch recompressed with brotli; then payload
 * attributes building per block for the batch's 27 blocks on OP Mainnet's rollup config.
 * Usage: npm run bench:derive [-- --seconds 3]
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseTransaction } from "viem";
import { OpFork, builtInChain, fromHex } from "../src/chain/index.js";
import {
  type SpanBatch,
  buildPayloadAttributes,
  compressChannel,
  decodeBatch,
  parseFrames,
  readChannel,
  spanBatchBlocks,
  systemConfigFromGenesis,
} from "../src/derive/index.js";

interface Timing {
  runs: number;
  medianMs: number;
  minMs: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs `fn` for about `seconds` after a warm-up; per-run wall times. */
function time(seconds: number, fn: () => void): Timing {
  for (let i = 0; i < 3; i++) fn();
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end || times.length < 5) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return { runs: times.length, medianMs: median(times), minMs: Math.min(...times) };
}

function decodeChannel(channel: Uint8Array): { blocks: number; txs: number; size: number } {
  const r = readChannel(channel);
  let blocks = 0;
  let txs = 0;
  for (const raw of r.batches) {
    const b = decodeBatch(raw);
    if (b.type === "span") {
      blocks += b.blockTxCounts.length;
      txs += b.transactions.length;
    } else {
      blocks += 1;
      txs += b.transactions.length;
    }
  }
  return { blocks, txs, size: r.decompressedSize };
}

function main(): void {
  const args = process.argv.slice(2);
  let seconds = 3;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--seconds") seconds = Number(args[++i]);
    else throw new Error(`unknown argument ${args[i]}`);
  }
  if (!(seconds > 0)) throw new Error("--seconds must be positive");
  const dir = process.env.DERIVE_FIXTURES_DIR ?? resolve("../shared/fixtures/derive");
  const txBytes = readFileSync(join(dir, "op-mainnet-batcher-tx.bin"));
  const tx = parseTransaction(`0x${txBytes.toString("hex")}`);
  const frames = parseFrames(fromHex(tx.data!));
  const zlibChannel = frames[0]!.data;
  const first = readChannel(zlibChannel);
  const batchBytes = first.batches[0]!;
  const brotliChannel = compressChannel([batchBytes], "brotli");
  const zlibRecompressed = compressChannel([batchBytes], "zlib");

  const cpu = cpus();
  console.log(
    `machine: ${cpu[0]?.model ?? "unknown"} x${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, node ${process.version}, load average ${loadavg()[0]!.toFixed(2)}; ~${seconds} s per figure after a warm-up`,
  );

  const rows: [string, Uint8Array][] = [
    ["real OP Mainnet channel (zlib, unterminated)", zlibChannel],
    ["same batch, zlib level 9 (terminated)", zlibRecompressed],
    ["same batch, brotli quality 10", brotliChannel],
  ];
  for (const [name, channel] of rows) {
    const out = decodeChannel(channel);
    const all = time(seconds, () => decodeChannel(channel));
    const inflate = time(seconds / 2, () => readChannel(channel));
    const s = all.medianMs / 1000;
    console.log(
      `channel decode, ${name}: ${channel.length} B -> ${out.size} B, ${out.blocks} blocks, ${out.txs} txs; ` +
        `median ${all.medianMs.toFixed(2)} ms (decompress ${inflate.medianMs.toFixed(2)} ms, span decode ${(all.medianMs - inflate.medianMs).toFixed(2)} ms) over ${all.runs} runs = ` +
        `${(channel.length / 1e6 / s).toFixed(1)} MB/s compressed, ${(out.size / 1e6 / s).toFixed(1)} MB/s decompressed, ` +
        `${Math.round(out.blocks / s)} blocks/s, ${Math.round(out.txs / s)} txs/s`,
    );
  }

  // Attributes building: the batch's 27 blocks (their real transactions) on OP Mainnet's rollup config, on a
  // synthetic parent chain placed after Jovian (the real batch predates Holocene, which derivation refuses).
  const chain = builtInChain(10n);
  const config = chain.rollupConfig;
  const span = decodeBatch(batchBytes) as SpanBatch;
  const blocks = spanBatchBlocks(span, {
    genesisTimestamp: config.genesisL2Time,
    blockTime: config.blockTime,
    chainId: 10n,
  });
  const latestFork = [OpFork.Jovian, OpFork.Isthmus, OpFork.Holocene]
    .map((f) => config.forkTimes[f])
    .find((t) => t !== undefined);
  if (latestFork === undefined) throw new Error("OP Mainnet config has no Holocene time");
  const systemConfig = systemConfigFromGenesis(config.genesis!.systemConfig);
  const startTime = latestFork + 100_000n;
  const build = (): number => {
    let parent = {
      hash: new Uint8Array(32).fill(1),
      number: 1_000_000n,
      timestamp: startTime,
      l1OriginNumber: 20_000_000n,
      l1OriginHash: new Uint8Array(32).fill(2),
      sequenceNumber: 5n,
    };
    let count = 0;
    for (let i = 0; i < blocks.length; i++) {
      const newEpoch = span.originBits[i] === 1;
      const originNumber = newEpoch ? parent.l1OriginNumber + 1n : parent.l1OriginNumber;
      const originHash = newEpoch
        ? new Uint8Array(32).fill(Number(originNumber & 0xffn))
        : parent.l1OriginHash;
      const attrs = buildPayloadAttributes({
        rollupConfig: config,
        systemConfig,
        l2Parent: parent,
        l1Origin: {
          number: originNumber,
          hash: originHash,
          timestamp: parent.timestamp - 12n,
          baseFee: 10_000_000_000n,
          blobBaseFee: 1n,
          mixHash: new Uint8Array(32).fill(3),
          parentBeaconBlockRoot: new Uint8Array(32).fill(4),
        },
        userDeposits: newEpoch ? [] : undefined,
        batchTransactions: blocks[i]!.transactions,
      });
      count += attrs.transactions.length;
      parent = {
        hash: new Uint8Array(32).fill(i & 0xff),
        number: attrs.number,
        timestamp: attrs.timestamp,
        l1OriginNumber: originNumber,
        l1OriginHash: originHash,
        sequenceNumber: attrs.sequenceNumber,
      };
    }
    return count;
  };
  const txCount = build();
  const attrTiming = time(seconds, build);
  const perBlockUs = (attrTiming.medianMs * 1000) / blocks.length;
  console.log(
    `attributes building: ${blocks.length} blocks (${txCount} transactions with deposits) per run, median ${attrTiming.medianMs.toFixed(2)} ms over ${attrTiming.runs} runs = ` +
      `${perBlockUs.toFixed(1)} µs per block, ${Math.round(1e6 / perBlockUs)} blocks/s`,
  );
  console.log(
    `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; load average at the end ${loadavg()[0]!.toFixed(2)}`,
  );
}

main();
