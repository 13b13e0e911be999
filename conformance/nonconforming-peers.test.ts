/**
 * The suite can fail: pointed at deliberately non-conforming peers (peers/), the checks for the broken
 * requirements FAIL, the ones the peers do honour still PASS, and the CLI exits 1 with one line per check.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeArgs } from "../src/bundles/index.js";
import type { CheckResult, CheckStatus } from "./check.js";
import { type CarelessEnclave, startCarelessEnclave } from "./peers/careless-enclave.js";
import { type CarelessRpcServer, startCarelessRpcServer } from "./peers/careless-rpc.js";
import { startFailOpenEnclave } from "./peers/fail-open-enclave.js";
import { recordedWitness } from "./fixture.js";
import { runConformance } from "./suite.js";

const repoRoot = fileURLToPath(new URL("../", import.meta.url));

function statusOf(results: readonly CheckResult[], id: string): CheckStatus | undefined {
  return results.find((r) => r.id === id)?.status;
}

function runCli(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [...nodeArgs("conformance/run.ts"), ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.resume();
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout })));
}

describe("conformance suite against non-conforming peers", () => {
  let enclave: CarelessEnclave;
  let rpc: CarelessRpcServer;

  beforeAll(async () => {
    [enclave, rpc] = await Promise.all([startCarelessEnclave(), startCarelessRpcServer()]);
  });

  afterAll(async () => {
    await enclave?.close();
    await rpc?.close();
  });

  it("fails every enclave requirement an enclave that signs without checking breaks", async () => {
    const results = await runConformance({ enclave: { kind: "tcp", host: "127.0.0.1", port: enclave.port } });
    for (const id of [
      "enclave.one-request-per-connection",
      "enclave.content-verification.keccak256",
      "enclave.content-verification.sha256",
      "enclave.unknown-chain",
      "enclave.missing-boot-key",
      "enclave.wrong-claimed-root",
      "enclave.journal-image-hash",
      "enclave.withheld-preimage.l1-header",
      "enclave.withheld-preimage.l2-state-node",
      "enclave.withheld-preimage.blob",
      "enclave.tampered-blob-element",
      "enclave.precompile-key",
      "enclave.proves-control",
    ]) {
      expect(statusOf(results, id), id).toBe("FAIL");
    }
    expect(results.find((r) => r.id === "enclave.proves-control")?.detail).toMatch(
      /^1 per-block proposals for a range of 3 blocks/,
    );
    expect(results.find((r) => r.id === "enclave.content-verification.keccak256")?.detail).toMatch(
      /was signed/,
    );
    expect(results.find((r) => r.id === "enclave.journal-image-hash")?.detail).toMatch(
      /does not recover to the enclave signer .* over the journal with teeImageHash 0x0{64}/,
    );
    // What the peer does honour still passes: the checks are specific.
    expect(statusOf(results, "enclave.signer-public-key")).toBe("PASS");
    expect(statusOf(results, "enclave.attestation-binds-key")).toBe("PASS");
    expect(statusOf(results, "enclave.hostile-frame.garbage")).toBe("PASS");
  });

  it("fails the withheld-preimage, blob and wrong-claim checks against an enclave that signs the claim when its program refuses", async () => {
    const failOpen = await startFailOpenEnclave(recordedWitness().rollupConfig, { failOpen: true });
    try {
      const results = await runConformance({ enclave: failOpen.address });
      const caught = [
        "enclave.withheld-preimage.l1-header",
        "enclave.withheld-preimage.l2-state-node",
        "enclave.withheld-preimage.blob",
        "enclave.tampered-blob-element",
        "enclave.wrong-claimed-root",
      ];
      for (const id of caught) {
        expect(statusOf(results, id), id).toBe("FAIL");
        expect(results.find((r) => r.id === id)?.detail, id).toMatch(/was signed/);
      }
      // The refusals that happen before the program runs still pass: each new check is caught by its own defect.
      const others = results.filter((r) => !caught.includes(r.id));
      expect(others.filter((r) => r.status !== "PASS")).toEqual([]);
    } finally {
      await failOpen.close();
    }
  }, 120_000);

  it("fails only the precompile check against an enclave that drops precompile-result keys instead of refusing", async () => {
    const lenient = await startFailOpenEnclave(recordedWitness().rollupConfig, {
      acceptsPrecompileKeys: true,
    });
    try {
      const results = await runConformance({ enclave: lenient.address });
      expect(results.filter((r) => r.status !== "PASS").map((r) => [r.id, r.status])).toEqual([
        ["enclave.precompile-key", "FAIL"],
      ]);
      expect(results.find((r) => r.id === "enclave.precompile-key")?.detail).toMatch(
        /a request with a precompile-result key was signed/,
      );
    } finally {
      await lenient.close();
    }
  }, 120_000);

  it("fails the node checks for a null pending number/hash, a zero balance on a missing block and absent validation", async () => {
    const results = await runConformance({ node: rpc.url });
    expect(statusOf(results, "node.block.pending")).toBe("FAIL");
    expect(results.find((r) => r.id === "node.block.pending")?.detail).toMatch(/number = null; hash = null/);
    expect(statusOf(results, "node.balance.unknown-block-is-error")).toBe("FAIL");
    expect(statusOf(results, "node.block.bad-params")).toBe("FAIL");
    expect(statusOf(results, "node.balance.bad-params")).toBe("FAIL");
    expect(statusOf(results, "node.block.latest")).toBe("PASS");
    expect(statusOf(results, "node.block.missing-is-null")).toBe("PASS");
  });

  it("fails the host's 512-byte cap, request validation, named arguments and batches when the host has none of them", async () => {
    const results = await runConformance({ host: rpc.url }, { expectNoValidSigner: true });
    expect(statusOf(results, "host.registry-fail-closed")).toBe("FAIL");
    expect(statusOf(results, "host.attestation-input-cap")).toBe("FAIL");
    expect(statusOf(results, "host.prove-validation")).toBe("FAIL");
    expect(statusOf(results, "host.signer-attestation-arguments")).toBe("FAIL");
    expect(results.find((r) => r.id === "host.signer-attestation-arguments")?.detail).toMatch(
      /named nonce \[42\] is not in the document/,
    );
    expect(statusOf(results, "host.batch")).toBe("FAIL");
    expect(statusOf(results, "host.signer-public-key")).toBe("PASS");
    expect(statusOf(results, "host.signer-attestation")).toBe("PASS");
    expect(statusOf(results, "host.unknown-method")).toBe("PASS");
    // enclave_teeImageHash is this project's extension: a host without it is not failed for that.
    expect(statusOf(results, "host.tee-image-hash")).toBe("SKIP");
  });

  it("fails the key check when the host serves fewer keys than the operator says it has enclaves", async () => {
    const results = await runConformance(
      { host: rpc.url },
      { only: ["host.signer-public-key"], hostEnclaves: 2 },
    );
    expect(results.map((r) => [r.status, r.detail])).toEqual([
      ["FAIL", "1 key(s) for 2 configured enclave(s)"],
    ]);
  });

  it("CLI: one line per check, the summary, exit 1 on a failure", async () => {
    const { code, stdout } = await runCli([
      "--enclave",
      `127.0.0.1:${enclave.port}`,
      "--node",
      rpc.url,
      "--only",
      "enclave.one-request-per-connection",
      "--only",
      "node.block.latest",
    ]);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^FAIL enclave\.one-request-per-connection \[safety 7.*\] — a second request frame/,
    );
    expect(lines[1]).toMatch(/^PASS node\.block\.latest \[/);
    expect(lines[2]).toBe("1 passed, 1 failed, 0 skipped");
    expect(code).toBe(1);
  });

  it("CLI: exit 0 when everything passes, 2 on a usage error", async () => {
    const passing = await runCli(["--node", rpc.url, "--only", "node.block.latest"]);
    expect(passing.stdout.trim().split("\n").at(-1)).toBe("1 passed, 0 failed, 0 skipped");
    expect(passing.code).toBe(0);
    expect((await runCli([])).code).toBe(2);
    expect((await runCli(["--enclave", "vsock:3:8000"])).code).toBe(2);
  });
});
