/**
 * What bench:prove's end-to-end runs share: the enclave's stages replayed on a captured Prove frame with the code the
 * enclave runs (verification of every hash-keyed preimage, on the BlockPool's workers when it has more than one, and
 * the boot info; derivation and execution by the program, sequentially or on the BlockPool as an enclave with
 * --workers runs them; signing) and the machine line (a
 * process's CPU time and peak RSS: process-stats.ts).
 */
import { cpus, loadavg, totalmem } from "node:os";
import { encodeRequest, type Preimage } from "../generated/protocol/index.js";
import { type RollupConfig, initKeccak } from "../src/chain/index.js";
import { EnclaveSigner } from "../enclave/index.js";
import { buildProofResult } from "../src/proof/onchain/index.js";
import { PreimageTable, readBootInfo } from "../src/proof/preimages/index.js";
import {
  type BlockPool,
  checkBlobsOnPool,
  OfflineOracle,
  refusePrecompileKeys,
  runProgram,
} from "../src/proof/program/index.js";

export interface StageFigures {
  readonly verifyMs: number;
  readonly derivationMs: number;
  readonly executionMs: number;
  readonly signingMs: number;
  /** How the replay executed the range (parallel: every block on the pool's workers, hashes chained). */
  readonly mode: "parallel" | "sequential";
}

/** The enclave's stages on `preimages` in this process; on `pool` (more than 1 worker) as a parallel enclave. */
export async function replayStages(
  preimages: readonly Preimage[],
  rollupConfig: RollupConfig,
  pool?: BlockPool,
): Promise<StageFigures> {
  // The enclave hashes with the WebAssembly keccak (enclave/prove.ts awaits it first); until it is loaded src/chain
  // answers with the pure-JS one, about 40 times slower over a witness (the replay's verify of 100 blocks, 638 k
  // preimages, took 11.5 s with it).
  await initKeccak();
  const onPool = pool !== undefined && pool.workers > 1 ? pool : undefined;
  // Loaded before the stages are timed, as an enclave starts its workers at boot (their first job would otherwise
  // pay for loading them, seconds under tsx).
  await onPool?.start();
  const v0 = performance.now();
  refusePrecompileKeys(preimages);
  let table: PreimageTable;
  if (onPool === undefined) {
    table = PreimageTable.fromPreimages(preimages);
    table.verifyContent(() => undefined);
  } else {
    // As an enclave with workers: the payload and its index on SharedArrayBuffers, the check on the workers, then
    // the blobs' (this process's Kzg remembers them; a replay after another one of the same frame finds them
    // remembered already, so its derivation is the shorter for it).
    const encoded = encodeRequest({ kind: "Prove", preimages: [...preimages] });
    const payload = new Uint8Array(new SharedArrayBuffer(encoded.length));
    payload.set(encoded);
    table = PreimageTable.decode(payload, { shared: true });
    await onPool.verifyAll(table.toShared());
    await checkBlobsOnPool(onPool, table);
  }
  const boot = readBootInfo(table);
  const verifyMs = performance.now() - v0;
  const program = await runProgram({
    boot,
    oracle: new OfflineOracle(table),
    rollupConfig,
    ...(onPool === undefined ? {} : { parallel: { pool: onPool, table } }),
  });
  const s0 = performance.now();
  buildProofResult(
    { boot, configHash: new Uint8Array(32), teeImageHash: new Uint8Array(32) },
    program,
    EnclaveSigner.generate((n) => new Uint8Array(n).fill(7)),
  );
  return {
    verifyMs,
    derivationMs: program.timings.derivationMs,
    executionMs: program.timings.executionMs,
    signingMs: performance.now() - s0,
    mode: program.execution.mode,
  };
}

export function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
}

export function machineLine(): string {
  const cpu = cpus();
  return `machine: ${cpu.length} × ${cpu[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, load average ${loadAverage()}`;
}
