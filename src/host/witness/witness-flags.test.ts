/**
 * The witness flags of the host: --witness-strategy, --witness-concurrency, --beacon-seconds-per-slot,
 * --max-l1-distance and their twins.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_L1_DISTANCE,
  HostConfigError,
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
    expect(config.maxL1Distance).toBe(DEFAULT_MAX_L1_DISTANCE);
    expect(DEFAULT_MAX_L1_DISTANCE).toBe(20_000);
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
    expect(refusal(["--witness-concurrency", "0"]).details.flag).toBe("witness-concurrency");
    expect(refusal(["--beacon-seconds-per-slot", "0"]).details.flag).toBe("beacon-seconds-per-slot");
    expect(refusal(["--max-l1-distance", "0"]).details.flag).toBe("max-l1-distance");
  });
});
