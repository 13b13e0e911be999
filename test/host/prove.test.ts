/**
 * prover_prove through the real host process: request validation, the enclave's own refusal coming back
 * as -32000 (without witness flags the host sends the boot keys only, so the enclave's proof program refuses
 * the missing agreed output root and nothing is signed), the proof request
 * timeout against a peer that never answers, and draining an in-flight request on SIGTERM.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { findBuiltInChain, rollupConfigToJson } from "../../src/chain/index.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { hostClient, rpcFailure } from "./host-client.js";
import { type SocketPeer, startSilentPeer, startSlowLink } from "./peers.js";
import { PROOF_BLOCK, proofRequest } from "./proof-request.js";
import { hostArgs, type RunningHost, startHost } from "./spawn-host.js";

function unixPath(enclave: RunningEnclave): string {
  if (enclave.address.kind !== "unix") throw new Error("expected a Unix socket enclave");
  return enclave.address.path;
}

describe("prover_prove with one local enclave and no registry", () => {
  let enclave: RunningEnclave;
  let host: RunningHost;

  beforeAll(async () => {
    enclave = await startEnclave();
    host = await startHost(hostArgs({ enclaves: [unixPath(enclave)] }));
  });
  afterAll(async () => {
    await host?.stop();
    await enclave?.stop();
  });

  it("returns the enclave's refusal as -32000 with its message (positional and named params)", async () => {
    const call = hostClient(host.url);
    const positional = await rpcFailure(call("prover_prove", [proofRequest()]));
    expect(positional.code).toBe(-32000);
    // The program opens the agreed output root first: its preimage key is the root with type byte 2.
    expect(positional.message).toBe(
      `MissingWitnessError: missing preimage keccak256:0x02${"33".repeat(31)} (agreed output root): the proof is refused`,
    );
    const named = await rpcFailure(
      call("prover_prove", {
        request: proofRequest({ claimed_l2_block_number: 77, agreed_l2_output_root: `0x${"77".repeat(32)}` }),
      }),
    );
    expect(named.code).toBe(-32000);
    expect(named.message).toContain(`keccak256:0x02${"77".repeat(31)} (agreed output root)`);
    // The enclave logs after it has written the response, so its line can reach us after the host's answer.
    await vi.waitFor(
      () =>
        expect(
          enclave.logs.filter((line) => line.msg === "request served" && line.request === "Prove"),
        ).toHaveLength(2),
      { timeout: 5000, interval: 20 },
    );
  });

  it("refuses invalid requests with -32602 before contacting the enclave", async () => {
    const call = hostClient(host.url);
    const served = (): number => enclave.logs.filter((line) => line.msg === "request served").length;
    const before = served();
    const zeroInterval = await rpcFailure(
      call("prover_prove", [proofRequest({ intermediate_block_interval: 0 })]),
    );
    expect(zeroInterval).toEqual({
      code: -32602,
      message: "invalid request: intermediate_block_interval must be at least 1",
    });
    const genesis = await rpcFailure(call("prover_prove", [proofRequest({ claimed_l2_block_number: 0 })]));
    expect(genesis.code).toBe(-32602);
    const badHash = await rpcFailure(call("prover_prove", [proofRequest({ l1_head: "0x1234" })]));
    expect(badHash.code).toBe(-32602);
    expect(badHash.message).toMatch(/l1_head/);
    const missing = await rpcFailure(call("prover_prove", [{ ...proofRequest(), proposer: undefined }]));
    expect(missing.code).toBe(-32602);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(served()).toBe(before);
  });

  it("reports healthy without a registry and exports the proof metrics", async () => {
    const call = hostClient(host.url);
    expect(await call("healthz")).toEqual({ version: "0.1.0" });
    const response = await fetch(`${host.url}/healthz`);
    expect(response.status).toBe(200);
    const metrics = await (await fetch(`${host.url}/metrics`)).text();
    expect(metrics).toMatch(/prover_proof_duration_seconds_count\{[^}]*outcome="enclave_error"[^}]*\} 2/);
    expect(metrics).toMatch(
      /prover_proof_duration_seconds_count\{[^}]*outcome="invalid_request"[^}]*\} [1-9]/,
    );
    expect(metrics).toMatch(/prover_in_flight_proofs\{[^}]*\} 0/);
    expect(metrics).toMatch(/jsonrpc_requests_total\{[^}]*method="prover_prove"[^}]*outcome="error"/);
  });
});

describe("prover_prove with witness collection (--rollup-config) and unreachable endpoints", () => {
  let enclave: RunningEnclave;
  let host: RunningHost;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "host-witness-"));
    const path = join(dir, "rollup.json");
    await writeFile(path, JSON.stringify(rollupConfigToJson(findBuiltInChain(84532n)!.rollupConfig)));
    enclave = await startEnclave();
    host = await startHost(hostArgs({ enclaves: [unixPath(enclave)], extra: ["--rollup-config", path] }));
  });
  afterAll(async () => {
    await host?.stop();
    await enclave?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("fails at the witness before any Prove reaches the enclave, counted as witness_error", async () => {
    const start = host.logs.find((line) => line.msg === "prover host listening");
    expect(start?.witness).toBe("collected from the L1, beacon and L2 endpoints");
    const failure = await rpcFailure(hostClient(host.url)("prover_prove", [proofRequest()]));
    expect(failure.code).toBe(-32000);
    // The first fetch is the agreed L2 head's header from the (closed) L2 endpoint.
    expect(failure.message).toMatch(/debug_getRawHeader: request failed/);
    expect(enclave.logs.filter((line) => line.msg === "request served" && line.request === "Prove")).toEqual(
      [],
    );
    const metrics = await (await fetch(`${host.url}/metrics`)).text();
    expect(metrics).toMatch(/prover_proof_duration_seconds_count\{[^}]*outcome="witness_error"[^}]*\} 1/);
    expect(metrics).not.toMatch(/outcome="transport_error"/);
    await vi.waitFor(
      () =>
        expect(host.logs.find((line) => line.msg === "witness collection refused the proof")?.reason).toMatch(
          /debug_getRawHeader/,
        ),
      { timeout: 5000, interval: 20 },
    );
    expect(metrics).toMatch(/prover_in_flight_proofs\{[^}]*\} 0/);
  });
});

describe("proof request timeout", () => {
  let silent: SocketPeer;
  let host: RunningHost;

  beforeAll(async () => {
    silent = await startSilentPeer();
    host = await startHost(hostArgs({ enclaves: [silent.path], proofTimeoutSeconds: "0.5" }));
  });
  afterAll(async () => {
    await host?.stop();
    await silent?.close();
  });

  it("fails with -32000 naming the L2 block when the enclave never answers, and keeps serving", async () => {
    const call = hostClient(host.url);
    const first = await rpcFailure(call("prover_prove", [proofRequest()]));
    expect(first).toEqual({
      code: -32000,
      message: `proof request for L2 block ${PROOF_BLOCK} timed out after 0.5 s`,
    });
    expect(await call("healthz")).toEqual({ version: "0.1.0" });
    const second = await rpcFailure(call("prover_prove", [proofRequest({ claimed_l2_block_number: 99 })]));
    expect(second.message).toBe("proof request for L2 block 99 timed out after 0.5 s");
    expect(silent.connections).toBe(2);
    const metrics = await (await fetch(`${host.url}/metrics`)).text();
    expect(metrics).toMatch(/prover_proof_duration_seconds_count\{[^}]*outcome="timeout"[^}]*\} 2/);
    expect(metrics).toMatch(/prover_in_flight_proofs\{[^}]*\} 0/);
  });
});

describe("graceful shutdown", () => {
  it("drains an in-flight request on SIGTERM, refuses new connections, and exits 0", async () => {
    const enclave = await startEnclave();
    const slow = await startSlowLink(unixPath(enclave), 1500);
    const host = await startHost(hostArgs({ enclaves: [slow.path] }));
    try {
      const call = hostClient(host.url);
      const inFlight = call("enclave_signerPublicKey");
      await slow.connectionAccepted(1);
      host.child.kill("SIGTERM");
      const keys = (await inFlight) as number[][];
      expect(keys).toHaveLength(1);
      expect(keys[0]).toHaveLength(65);
      expect(await host.exited).toBe(0);
      await expect(fetch(`${host.url}/healthz`)).rejects.toThrow();
      expect(host.logs.find((line) => line.msg === "draining JSON-RPC server")?.inFlight).toBe(1);
      expect(host.logs.some((line) => line.msg === "shutdown complete")).toBe(true);
    } finally {
      await host.stop();
      await slow.close();
      await enclave.stop();
    }
  });
});
