/**
 * The witness flags of the host: --witness-strategy, --witness-run, --witness-concurrency, --witness-workers,
 * --beacon-seconds-per-slot, --max-l1-distance and their twins.
 */
import { describe, expect, it } from "vitest";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../../conformance/fixture.js";
import { findBuiltInChain, SUPERCHAIN_CHAIN_DATA } from "../../chain/index.js";
import {
  DEFAULT_MAX_L1_DISTANCE,
  defaultMaxL1Distance,
  HostConfigError,
  L1_HEAD_LAG_SECONDS,
  parseHostCommandLine,
  WITNESS_STRATEGIES,
} from "../index.js";

const BASE = [
  ...["--l1-rpc-url", "http://127.0.0.1:8545", "--l2-rpc-url", "http://127.0.0.1:9545"],
  ...["--l2-chain-id", "8453", "--vsock-cid", "/tmp/enclave.sock"],
];

function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseHostCommandLine([...BASE, ...argv], env);
  if (parsed.kind !== "run") throw new Error("expected a run configuration");
  return parsed.config;
}

describe("witness flags", () => {
  it("default to auto, 3 block witnesses at once, and the beacon node's own SECONDS_PER_SLOT", () => {
    const config = run([]);
    expect(config.witnessStrategy).toBe("auto");
    expect(config.witnessConcurrency).toBe(3);
    expect(config.beaconSecondsPerSlot).toBeUndefined();
    // No rollup config: no witness is collected, no L1 walked; the bound is the fallback.
    expect(config.maxL1Distance).toBe(DEFAULT_MAX_L1_DISTANCE);
    expect(DEFAULT_MAX_L1_DISTANCE).toBe(20_000);
  });

  it("derive --max-l1-distance per chain from the rollup config, --max-blocks-per-proof and the L1 slot", () => {
    const devnet = ["--l2-chain-id", "901", "--rollup-config", FIXTURE_ROLLUP_PATH];
    // The devnet fixture: a 3,600-block window, 1 s L2 blocks, channel timeout 50, 12 s L1 slots:
    // 3,600 + ⌈(1,800 × 1 + 1,800 drift) / 12⌉ + 50 + 172,800 / 12 = 3,600 + 300 + 50 + 14,400.
    expect(run(devnet).maxL1Distance).toBe(18_350);
    // A shorter range bound: ⌈(100 + 1,800) / 12⌉ = 159.
    expect(run([...devnet, "--max-blocks-per-proof", "100"]).maxL1Distance).toBe(3_600 + 159 + 50 + 14_400);
    // A 2 s L1 (the beacon's slot given): more L1 blocks for the same times.
    expect(run([...devnet, "--beacon-seconds-per-slot", "2"]).maxL1Distance).toBe(
      3_600 + 1_800 + 50 + 86_400,
    );
    // The flag still wins.
    expect(run([...devnet, "--max-l1-distance", "500"]).maxL1Distance).toBe(500);
    expect(defaultMaxL1Distance(recordedWitness().rollupConfig, { maxBlocksPerProof: 1800n })).toBe(18_350);
  });

  it("give every built-in chain a bound past what its honest proofs walk, and follow a longer window", () => {
    expect(SUPERCHAIN_CHAIN_DATA.length).toBeGreaterThan(0);
    for (const entry of SUPERCHAIN_CHAIN_DATA) {
      const config = findBuiltInChain(BigInt(entry.l2ChainId))!.rollupConfig;
      const bound = defaultMaxL1Distance(config, { maxBlocksPerProof: 1800n });
      // The walk itself: the window, the range's 12 s L1 slots, the channel timeout; then two days of lag.
      const walk = Number(config.seqWindowSize!) + Math.ceil((1800 * Number(config.blockTime)) / 12) + 50;
      expect(bound, entry.name).toBeGreaterThan(walk + L1_HEAD_LAG_SECONDS / 12);
      expect(bound, entry.name).toBeLessThan(2 * DEFAULT_MAX_L1_DISTANCE);
    }
    // OP Mainnet and Base: a 3,600-block window, 2 s blocks: 3,600 + 450 + 50 + 14,400.
    expect(defaultMaxL1Distance(findBuiltInChain(10n)!.rollupConfig, { maxBlocksPerProof: 1800n })).toBe(
      18_500,
    );
    expect(defaultMaxL1Distance(findBuiltInChain(8453n)!.rollupConfig, { maxBlocksPerProof: 1800n })).toBe(
      18_500,
    );
    // A registry chain with a 28,800-block window (four days of L1 on Sepolia) gets a bound past it, where the
    // single 20,000 refused its honest proofs.
    const wide = { ...findBuiltInChain(10n)!.rollupConfig, seqWindowSize: 28_800n };
    expect(defaultMaxL1Distance(wide, { maxBlocksPerProof: 1800n })).toBe(28_800 + 450 + 50 + 14_400);
  });

  it("take --max-l1-distance by flag or by PROVER_MAX_L1_DISTANCE (the flag wins)", () => {
    expect(run(["--max-l1-distance", "5000"]).maxL1Distance).toBe(5000);
    expect(run([], { PROVER_MAX_L1_DISTANCE: "7" }).maxL1Distance).toBe(7);
    expect(run(["--max-l1-distance", "9"], { PROVER_MAX_L1_DISTANCE: "7" }).maxL1Distance).toBe(9);
  });

  it("take every strategy by flag or by environment twin (the flag wins)", () => {
    for (const name of WITNESS_STRATEGIES)
      expect(run(["--witness-strategy", name]).witnessStrategy).toBe(name);
    const env = {
      PROVER_WITNESS_STRATEGY: "proofs",
      PROVER_WITNESS_CONCURRENCY: "8",
      PROVER_BEACON_SECONDS_PER_SLOT: "12",
    };
    expect(run([], env)).toMatchObject({
      witnessStrategy: "proofs",
      witnessConcurrency: 8,
      beaconSecondsPerSlot: 12,
    });
    expect(run(["--witness-strategy", "db-get"], env).witnessStrategy).toBe("db-get");
  });

  it("run the host's program on --workers threads unless --witness-workers (or its twin) says otherwise", () => {
    expect(run([]).witnessWorkers).toBe(1);
    expect(run(["--workers", "2"])).toMatchObject({ workers: 2, witnessWorkers: 2 });
    expect(run(["--workers", "2", "--witness-workers", "1"])).toMatchObject({
      workers: 2,
      witnessWorkers: 1,
    });
    expect(run(["--workers", "2"], { PROVER_WITNESS_WORKERS: "1" })).toMatchObject({ witnessWorkers: 1 });
    expect(run(["--witness-workers", "3"], { PROVER_WITNESS_WORKERS: "1" })).toMatchObject({
      workers: 1,
      witnessWorkers: 3,
    });
  });

  it("forward the node's block witnesses unless --witness-run (or its twin) says program", () => {
    expect(run([]).witnessRun).toBe("forward");
    expect(run(["--witness-run", "program"]).witnessRun).toBe("program");
    expect(run([], { PROVER_WITNESS_RUN: "program" }).witnessRun).toBe("program");
    expect(run(["--witness-run", "forward"], { PROVER_WITNESS_RUN: "program" }).witnessRun).toBe("forward");
  });

  it("refuse an unknown strategy and a bound or slot length below 1, naming the flag", () => {
    const refusal = (argv: string[]) => {
      try {
        run(argv);
      } catch (error) {
        expect(error).toBeInstanceOf(HostConfigError);
        return error as HostConfigError;
      }
      throw new Error(`${argv.join(" ")} was accepted`);
    };
    const unknown = refusal(["--witness-strategy", "dbget"]);
    expect(unknown.message).toBe(
      '--witness-strategy: "dbget" is not one of auto, execute-payload, execution-witness, proofs, db-get',
    );
    expect(unknown.details.flag).toBe("witness-strategy");
    const run_ = refusal(["--witness-run", "trust"]);
    expect(run_.message).toBe('--witness-run: "trust" is not one of program, forward');
    expect(run_.details.flag).toBe("witness-run");
    expect(refusal(["--witness-concurrency", "0"]).details.flag).toBe("witness-concurrency");
    expect(refusal(["--witness-workers", "0"]).details.flag).toBe("witness-workers");
    expect(refusal(["--beacon-seconds-per-slot", "0"]).details.flag).toBe("beacon-seconds-per-slot");
    expect(refusal(["--max-l1-distance", "0"]).details.flag).toBe("max-l1-distance");
  });
});
