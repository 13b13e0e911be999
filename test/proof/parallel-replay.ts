/**
 * Sequential and parallel execution of one recorded range, side by side in this process (docs/proof.md "Parallel
 * execution"): the recorded devnet witness (conformance/fixtures) completed with its chain witness, replayed as the
 * enclave replays a Prove (PreimageTable, offline oracle), sequentially and on a warm BlockPool of `--workers`
 * threads; prints the execution stage's median over `--runs` runs after warm-up, the peak worker heap and RSS,
 * with the machine and load average.
 * Usage: npx tsx test/proof/parallel-replay.ts [--workers 2] [--runs 10]
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { recordedWitness } from "../../conformance/fixture.js";
import { PreimageTable, readBootInfo } from "../../src/proof/preimages/index.js";
import { BlockPool, OfflineOracle, type ProgramResult, runProgram } from "../../src/proof/program/index.js";
import { withChainWitness } from "../../src/proof/program/parallel/chain-witness.test-support.js";

const { values } = parseArgs({ options: { workers: { type: "string" }, runs: { type: "string" } } });
const workers = Number(values.workers ?? "2");
const runs = Number(values.runs ?? "10");
const { preimages, rollupConfig } = recordedWitness();
const { witness } = await withChainWitness(preimages, rollupConfig);
const table = PreimageTable.fromPreimages(witness);
const pool = new BlockPool({ workers });
await pool.start();

function replay(parallel: boolean): Promise<ProgramResult> {
  return runProgram({
    boot: readBootInfo(table),
    oracle: new OfflineOracle(table),
    rollupConfig,
    ...(parallel ? { parallel: { pool, table } } : {}),
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const figures: Record<string, number[]> = { sequential: [], parallel: [] };
for (let i = 0; i < 3; i++) {
  await replay(false);
  await replay(true);
}
let last: ProgramResult | undefined;
for (let i = 0; i < runs; i++) {
  figures.sequential!.push((await replay(false)).timings.executionMs);
  last = await replay(true);
  if (last.execution.mode !== "parallel") throw new Error(`fell back: ${last.execution.fallback?.reason}`);
  figures.parallel!.push(last.timings.executionMs);
}
await pool.close();
console.log(
  JSON.stringify({
    machine: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
    loadAverage: loadavg().map((x) => x.toFixed(2)),
    blocks: last?.blocks.length,
    workers,
    runs,
    sequentialExecutionMsMedian: Math.round(median(figures.sequential!)),
    parallelExecutionMsMedian: Math.round(median(figures.parallel!)),
    peakWorkerHeapMiB: Math.round((last?.execution.peakWorkerHeapBytes ?? 0) / 2 ** 20),
    peakRssMiB: Math.round((last?.execution.peakRssBytes ?? 0) / 2 ** 20),
  }),
);
