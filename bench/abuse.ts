/**
 * bench:abuse — does the sequencer keep its cadence while the RPC side serves heavy calls that are
 * within the node's limits (docs/node/limits.md "Block production under load")?
 *
 * Starts a real node process (test/node/spawn-node.ts: 2 s blocks, 200 ms snapshots), subscribes to
 * /ws/flashblocks and to newHeads, then runs one burst kind at a time for BENCH_SECONDS each (after an
 * idle baseline): eth_getProof batches (10 calls × 1000 keys = the 10 000 keys-per-batch limit),
 * eth_getLogs over the whole chain, eth_feeHistory (1024 blocks, 100 percentiles), full blocks
 * (eth_getBlockByNumber(n, true) batches), an eth_call flood (a gas burner, 5 M gas each) and many
 * subscriptions (websockets each holding the 128-subscription limit). Each burst is BENCH_CLIENTS
 * concurrent clients sending back to back.
 *
 * Arrivals are stamped on a worker thread of the bench (this thread parses the bursts' answers, which
 * would delay its own socket events). Per burst it prints: flashblocks inter-arrival p99 / max, sealed-block gap max (arrival of
 * newHeads, and timestamp delta), node RSS before / peak / after (VmRSS of the node process from
 * /proc, sampled every 100 ms; "after" is 1.5 s after the burst ends), and the error mix (counts by
 * JSON-RPC code). The targets (cadence p99 ≤ 250 ms, max ≤ 400 ms, block time max ≤ 2.2 s)
 * are printed with PASS / MISS; a miss does not fail the process: this is a measurement. With ~40
 * intervals per burst, p99 is (nearly) the max.
 *
 * Env: BENCH_SECONDS (default 8), BENCH_CLIENTS (default 4), BENCH_ONLY (comma-separated words: only the
 * bursts whose name contains one of them, e.g. `BENCH_ONLY=subscriptions,fee`; the idle baseline always runs).
 */
import os from "node:os";
import { startNodeProcess } from "../test/node/spawn-node.js";
import {
  ABUSE_TABLE_HEADER,
  formatAbuseRow,
  runAbuseBursts,
  TARGET_BLOCK,
  TARGET_MAX,
  TARGET_P99,
} from "./abuse-bursts.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const ONLY = (process.env.BENCH_ONLY ?? "")
  .split(",")
  .map((w) => w.trim())
  .filter((w) => w !== "");

async function main(): Promise<void> {
  const node = await startNodeProcess({ blockTimeMs: 2000, flashblockIntervalMs: 200, logLevel: "warn" });
  try {
    const cpus = os.cpus();
    console.log(
      `bench:abuse — ${SECONDS}s per burst, ${CLIENTS} clients; ${cpus.length} × ${cpus[0]?.model ?? "cpu"}, ` +
        `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, load ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
    );
    const rows = await runAbuseBursts(node, {
      seconds: SECONDS,
      clients: CLIENTS,
      only: ONLY,
      onRow: (row) => console.log(formatAbuseRow(row)),
    });
    console.log(
      `\ntargets: cadence p99 ≤ ${TARGET_P99} ms, max ≤ ${TARGET_MAX} ms, block time max ≤ ${TARGET_BLOCK} ms ` +
        `(docs/node/limits.md "Block production under load")\n`,
    );
    console.log(ABUSE_TABLE_HEADER);
    for (const r of rows) console.log(formatAbuseRow(r));
  } finally {
    await node.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
