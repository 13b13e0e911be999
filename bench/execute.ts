/**
 * Block execution benchmark over the shared OP Sepolia fixtures: per fixture and overall, the median
 * wall time of several runs, gas per second, and peak memory (max RSS).
 * Usage: npm run bench:execute [-- --runs 7] [-- <fixture.json.gz> ...]
 */
import { cpus, loadavg } from "node:os";
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { bytesEqual, executeBlock, fixtureStore, loadFixture } from "../src/chain/index.js";
import { BenchResultError, BenchUsageError } from "./errors.js";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let runs = 5;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--runs") runs = Number(args[++i]);
    else files.push(args[i]!);
  }
  if (!Number.isInteger(runs) || runs < 1)
    throw new BenchUsageError("--runs must be a positive integer", { runs });
  if (files.length === 0) {
    const dir = process.env.OP_FIXTURES_DIR ?? resolve("../shared/fixtures/op-sepolia");
    for (const f of readdirSync(dir).sort()) if (f.endsWith(".json.gz")) files.push(join(dir, f));
  }
  console.log(
    `machine: ${cpus()[0]?.model ?? "unknown"} x${cpus().length}, node ${process.version}; ${runs} runs per fixture after 1 warm-up`,
  );
  let totalGas = 0n;
  let totalMs = 0;
  let totalCpuMs = 0;
  for (const file of files) {
    const fixture = await loadFixture(file);
    const times: number[] = [];
    const cpuTimes: number[] = [];
    let gasUsed = 0n;
    for (let r = 0; r <= runs; r++) {
      const store = fixtureStore(fixture);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const block = await executeBlock({
        config: fixture.config,
        parent: fixture.parent,
        attributes: fixture.attributes,
        transactions: fixture.transactions,
        source: store,
      });
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(c0);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      if (!bytesEqual(block.blockHash, fixture.expectedBlockHash))
        throw new BenchResultError(`${file}: block hash mismatch`, { file });
      gasUsed = block.header.gasUsed;
      if (r > 0) {
        times.push(ms);
        cpuTimes.push(cpuMs);
      }
    }
    const med = median(times);
    const medCpu = median(cpuTimes);
    totalGas += gasUsed;
    totalMs += med;
    totalCpuMs += medCpu;
    const mgas = Number(gasUsed) / 1e6 / (med / 1000);
    console.log(
      `block ${fixture.parent.number + 1n}: ${fixture.transactions.length} txs, ${gasUsed} gas, wall median ${med.toFixed(1)} ms (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}) = ${mgas.toFixed(2)} Mgas/s; CPU median ${medCpu.toFixed(1)} ms = ${(Number(gasUsed) / 1e6 / (medCpu / 1000)).toFixed(2)} Mgas/CPU-s`,
    );
  }
  const overall = Number(totalGas) / 1e6 / (totalMs / 1000);
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  const overallCpu = Number(totalGas) / 1e6 / (totalCpuMs / 1000);
  console.log(
    `overall: ${totalGas} gas in ${totalMs.toFixed(1)} ms wall (sum of medians) = ${overall.toFixed(2)} Mgas/s; ${totalCpuMs.toFixed(1)} ms CPU = ${overallCpu.toFixed(2)} Mgas/CPU-s; peak RSS ${maxRssMb.toFixed(0)} MB; load average ${loadavg()[0]!.toFixed(2)}`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
