/** The host's flags, environment twins and enclave address syntax. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findBuiltInChain, rollupConfigToJson } from "../../src/chain/index.js";
import { HostConfigError, parseHostCommandLine } from "../../src/host/index.js";
import {
  EnclaveAddressError,
  parseEnclaveAddress,
  parseEnclaveAddresses,
} from "../../src/proof/transport/index.js";

const BASE = [
  "--l1-rpc-url",
  "http://127.0.0.1:8545",
  "--l1-beacon-url",
  "http://127.0.0.1:5052",
  "--l2-rpc-url",
  "http://127.0.0.1:9545",
  "--l2-chain-id",
  "8453",
];

function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseHostCommandLine(argv, env);
  if (parsed.kind !== "run") throw new Error("expected a run configuration");
  return parsed.config;
}

describe("enclave addresses", () => {
  it("parses vsock context ids and local-mode addresses", () => {
    expect(parseEnclaveAddress("16")).toEqual({ kind: "vsock", cid: 16, port: 8000 });
    expect(parseEnclaveAddress("vsock:3")).toEqual({ kind: "vsock", cid: 3, port: 8000 });
    expect(parseEnclaveAddress("vsock:3:9000")).toEqual({ kind: "vsock", cid: 3, port: 9000 });
    expect(parseEnclaveAddress("/tmp/e.sock")).toEqual({ kind: "unix", path: "/tmp/e.sock" });
    expect(parseEnclaveAddress("unix:./e.sock")).toEqual({ kind: "unix", path: "./e.sock" });
    expect(parseEnclaveAddress("127.0.0.1:7000")).toEqual({ kind: "tcp", host: "127.0.0.1", port: 7000 });
    expect(parseEnclaveAddresses(["/a.sock,/b.sock", " 127.0.0.1:1 "])).toHaveLength(3);
  });

  it("refuses malformed and non-loopback addresses", () => {
    for (const bad of [
      "vsock:",
      "vsock:x",
      "vsock:1:2:3",
      "4294967296",
      "10.0.0.1:7000",
      "localhost:7000",
      "127.0.0.1:0",
      "127.0.0.1:70000",
      "e.sock",
    ])
      expect(() => parseEnclaveAddress(bad), bad).toThrow(EnclaveAddressError);
  });
});

describe("host command line", () => {
  it("has defaults for everything but the upstreams, the chain and the enclaves", () => {
    const config = run([...BASE, "--vsock-cid", "/tmp/e.sock"]);
    expect(config.l2ChainId).toBe(8453n);
    expect(config.listen).toEqual({ host: "127.0.0.1", port: 7300 });
    expect(config.proofTimeoutMs).toBe(1_740_000);
    expect(config.shutdownDrainMs).toBe(1_750_000);
    expect(config.registryAddress).toBeUndefined();
    expect(config.logLevel).toBe("info");
    expect(config.processMetrics).toBe(false);
    expect(config.maxConcurrentProofs).toBe(availableParallelism());
    expect(config.maxBlocksPerProof).toBe(1800n);
    expect(config.maxBlocksPerFrame).toBe(100n);
    expect(config.journalVersion).toBe("spec");
  });

  it("--max-blocks-per-frame (PROVER_MAX_BLOCKS_PER_FRAME): 100 by default, none with Base's messages or 0", () => {
    const base = [...BASE, "--vsock-cid", "/a"];
    expect(run([...base, "--max-blocks-per-frame", "25"]).maxBlocksPerFrame).toBe(25n);
    expect(run(base, { PROVER_MAX_BLOCKS_PER_FRAME: "40" }).maxBlocksPerFrame).toBe(40n);
    expect(run([...base, "--max-blocks-per-frame", "0"]).maxBlocksPerFrame).toBeUndefined();
    // Base's enclave has no Aggregate request: one frame per proof unless asked.
    expect(run([...base, "--message-form", "base"]).maxBlocksPerFrame).toBeUndefined();
    expect(run([...base, "--message-form", "base", "--max-blocks-per-frame", "50"]).maxBlocksPerFrame).toBe(
      50n,
    );
    expect(() => run([...base, "--max-blocks-per-frame", "-1"])).toThrow(/--max-blocks-per-frame/);
    expect(() => run([...base, "--max-blocks-per-frame", "ten"])).toThrow(/--max-blocks-per-frame/);
  });

  it("--journal-version (PROVER_JOURNAL_VERSION) names the enclaves' journal; schedule-id needs the chain's upgrade times", () => {
    expect(run([...BASE, "--vsock-cid", "/a", "--journal-version", "schedule-id"]).journalVersion).toBe(
      "schedule-id",
    );
    expect(
      run([...BASE, "--vsock-cid", "/a"], { PROVER_JOURNAL_VERSION: "schedule-id" }).journalVersion,
    ).toBe("schedule-id");
    expect(() => run([...BASE, "--vsock-cid", "/a", "--journal-version", "v2"])).toThrow(
      /--journal-version: "v2" must be one of spec, schedule-id/,
    );
    // The dev chain has no registry entry: its upgrade times come only from --rollup-config.
    const dev = [...BASE.slice(0, 6), "--l2-chain-id", "901", "--vsock-cid", "/a"];
    expect(run(dev).journalVersion).toBe("spec");
    expect(() => run([...dev, "--journal-version", "schedule-id"])).toThrow(/give --rollup-config/);
  });

  it("reads environment twins; flags win", () => {
    const env = {
      PROVER_L1_RPC_URL: "http://l1:8545",
      PROVER_L1_BEACON_URL: "http://beacon:5052",
      PROVER_L2_RPC_URL: "http://l2:9545",
      PROVER_L2_CHAIN_ID: "84532",
      PROVER_VSOCK_CID: "/a.sock,/b.sock",
      PROVER_TEE_PROVER_REGISTRY_ADDRESS: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
      PROVER_PROOF_REQUEST_TIMEOUT: "2.5",
      PROVER_LOG_LEVEL: "debug",
      PROVER_PROCESS_METRICS: "true",
      PROVER_LISTEN: "0.0.0.0:8080",
      PROVER_MAX_CONCURRENT_PROOFS: "3",
    };
    const config = run([], env);
    expect(config.enclaves).toHaveLength(2);
    expect(config.registryAddress).toBe("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    expect(config.proofTimeoutMs).toBe(2500);
    expect(config.logLevel).toBe("debug");
    expect(config.processMetrics).toBe(true);
    expect(config.listen).toEqual({ host: "0.0.0.0", port: 8080 });
    expect(config.maxConcurrentProofs).toBe(3);
    expect(run(["--max-concurrent-proofs", "1"], env).maxConcurrentProofs).toBe(1);
    expect(run([], { ...env, PROVER_MAX_BLOCKS_PER_PROOF: "50" }).maxBlocksPerProof).toBe(50n);
    expect(run(["--max-blocks-per-proof", "7"], env).maxBlocksPerProof).toBe(7n);
    const overridden = run(["--l2-chain-id", "10", "--vsock-cid", "/c.sock", "--listen", "[::1]:9"], env);
    expect(overridden.l2ChainId).toBe(10n);
    expect(overridden.enclaves).toEqual([{ kind: "unix", path: "/c.sock" }]);
    expect(overridden.listen).toEqual({ host: "::1", port: 9 });
    // The project's dev chain is in the enclave's table, so a host for it starts.
    expect(run(["--l2-chain-id", "901", "--vsock-cid", "/c.sock"], env).l2ChainId).toBe(901n);
  });

  it("refuses bad values with the flag's name", () => {
    const cases: [string[], RegExp][] = [
      [[...BASE], /--vsock-cid is required/],
      [[...BASE.slice(0, 6), "--l2-chain-id", "902", "--vsock-cid", "/e"], /unknown L2 chain id 902/],
      [
        [...BASE, "--vsock-cid", "/a", "--vsock-cid", "/b"],
        /2 enclaves are configured but no --tee-prover-registry-address/,
      ],
      [[...BASE, "--vsock-cid", "/a", "--tee-prover-registry-address", "0x12"], /is not an address/],
      [[...BASE, "--vsock-cid", "/a", "--proof-request-timeout", "0"], /--proof-request-timeout/],
      [[...BASE, "--vsock-cid", "/a", "--proof-request-timeout", "-3"], /--proof-request-timeout/],
      [[...BASE, "--vsock-cid", "/a", "--log-level", "loud"], /--log-level/],
      [[...BASE, "--vsock-cid", "/a", "--max-concurrent-proofs", "0"], /--max-concurrent-proofs/],
      [[...BASE, "--vsock-cid", "/a", "--max-blocks-per-proof", "0"], /--max-blocks-per-proof/],
      [[...BASE, "--vsock-cid", "/a", "--max-concurrent-proofs", "two"], /--max-concurrent-proofs/],
      [[...BASE, "--vsock-cid", "/a", "--listen", "7300"], /--listen/],
      [[...BASE, "--vsock-cid", "nowhere"], /--vsock-cid: bad enclave address/],
      [["--l1-rpc-url", "ftp://x", ...BASE.slice(2), "--vsock-cid", "/a"], /http\(s\) or ws\(s\)/],
      [[...BASE, "--vsock-cid", "/a", "--unknown-flag"], /Unknown option/],
    ];
    for (const [argv, message] of cases) {
      expect(() => run(argv), argv.join(" ")).toThrow(HostConfigError);
      expect(() => run(argv), argv.join(" ")).toThrow(message);
    }
  });

  it("--rollup-config (PROVER_ROLLUP_CONFIG) enables witness collection; the beacon URL defaults to the L1 RPC", async () => {
    const dir = await mkdtemp(join(tmpdir(), "host-rollup-"));
    try {
      const base = findBuiltInChain(8453n)!.rollupConfig;
      const path = join(dir, "rollup.json");
      await writeFile(path, JSON.stringify(rollupConfigToJson(base)));
      expect(run([...BASE, "--vsock-cid", "/a"]).rollupConfig).toBeUndefined();
      const config = run([...BASE, "--vsock-cid", "/a", "--rollup-config", path]);
      expect(config.rollupConfig?.l2ChainId).toBe(8453n);
      expect(config.rollupConfig?.genesis?.l2.hash).toEqual(base.genesis!.l2.hash);
      expect(
        run([...BASE, "--vsock-cid", "/a"], { PROVER_ROLLUP_CONFIG: path }).rollupConfig?.l2ChainId,
      ).toBe(8453n);
      const noBeacon = run([...BASE.slice(0, 2), ...BASE.slice(4), "--vsock-cid", "/a"]);
      expect(noBeacon.l1BeaconUrl).toBe("http://127.0.0.1:8545");
      // A config of another chain than --l2-chain-id, and a file that is not a rollup config, are refused.
      const other = join(dir, "other.json");
      await writeFile(other, JSON.stringify(rollupConfigToJson({ ...base, l2ChainId: 10n })));
      expect(() => run([...BASE, "--vsock-cid", "/a", "--rollup-config", other])).toThrow(
        /--rollup-config: .* is chain 10, not --l2-chain-id 8453/,
      );
      const junk = join(dir, "junk.json");
      await writeFile(junk, "{}");
      for (const bad of [junk, join(dir, "absent.json")]) {
        expect(() => run([...BASE, "--vsock-cid", "/a", "--rollup-config", bad])).toThrow(HostConfigError);
        expect(() => run([...BASE, "--vsock-cid", "/a", "--rollup-config", bad])).toThrow(
          /--rollup-config: .* is not a readable rollup config/,
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("answers --help with the usage text", () => {
    const parsed = parseHostCommandLine(["--help"], {});
    expect(parsed.kind).toBe("help");
  });
});
