/** Start-up refusals and --help of the real host process. */
import { describe, expect, it } from "vitest";
import { hostClient, rpcFailure } from "./host-client.js";
import { hostArgs, runHostToExit, startHost } from "./spawn-host.js";

describe("host start-up", () => {
  it("refuses an unknown L2 chain id, naming the known chains", async () => {
    const { code, stderr } = await runHostToExit(
      hostArgs({ enclaves: ["/tmp/no-enclave.sock"], chainId: "999" }),
    );
    expect(code).toBe(2);
    expect(stderr).toContain("unknown L2 chain id 999");
    expect(stderr).toContain("84532 (Base Sepolia)");
  });

  it("refuses several enclaves without a registry address", async () => {
    const { code, stderr } = await runHostToExit(
      hostArgs({ enclaves: ["/tmp/a.sock", "/tmp/b.sock,127.0.0.1:7001"] }),
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/3 enclaves are configured but no --tee-prover-registry-address/);
  });

  it("accepts vsock enclaves (the AF_VSOCK addon loads at start-up); with AF_VSOCK forbidden, enclave_* fails -32001", async () => {
    const host = await startHost(hostArgs({ enclaves: ["vsock:16"] }));
    try {
      const failure = await rpcFailure(hostClient(host.url)("enclave_signerPublicKey"));
      expect(failure.code).toBe(-32001);
      expect(failure.message).toMatch(/vsock:16:8000: connection failed: VsockForbiddenError/);
    } finally {
      // SIGINT drains and exits 0 like SIGTERM (prove.test.ts covers SIGTERM with a request in flight).
      expect(await host.stop("SIGINT")).toBe(0);
    }
  });

  it("refuses prover_prove inside a JSON-RPC batch without running it (--max-concurrent-proofs); the rest of the batch is answered", async () => {
    const host = await startHost(
      hostArgs({ enclaves: ["vsock:16"], extra: ["--max-concurrent-proofs", "1"] }),
    );
    try {
      const response = await fetch(host.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([
          { jsonrpc: "2.0", id: 1, method: "prover_prove", params: [{}] },
          { jsonrpc: "2.0", id: 2, method: "healthz", params: [] },
        ]),
      });
      const answers = (await response.json()) as { id: number; result?: unknown; error?: { code: number } }[];
      const byId = new Map(answers.map((answer) => [answer.id, answer]));
      expect(byId.get(1)?.error?.code).toBe(-32600);
      expect(byId.get(2)?.error).toBeUndefined();
      expect(byId.get(2)?.result).toBeDefined();
    } finally {
      expect(await host.stop("SIGINT")).toBe(0);
    }
  });

  it("reads the environment twins and refuses a missing flag with its name", async () => {
    const { code, stderr } = await runHostToExit(["--vsock-cid", "/tmp/a.sock"], {
      PROVER_L1_RPC_URL: "http://127.0.0.1:1",
      PROVER_L1_BEACON_URL: "http://127.0.0.1:1",
      PROVER_L2_CHAIN_ID: "1",
    });
    expect(code).toBe(2);
    expect(stderr).toContain("--l2-rpc-url is required");
  });

  it("prints every flag and its environment twin with --help", async () => {
    const { code, stdout } = await runHostToExit(["--help"]);
    expect(code).toBe(0);
    for (const flag of [
      "--l1-rpc-url",
      "--l1-beacon-url",
      "--l2-rpc-url",
      "--l2-chain-id",
      "--listen",
      "--vsock-cid",
      "--proof-request-timeout",
      "--tee-prover-registry-address",
      "--log-level",
    ])
      expect(stdout).toContain(flag);
    expect(stdout).toContain("PROVER_TEE_PROVER_REGISTRY_ADDRESS");
  });
});
