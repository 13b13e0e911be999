/**
 * The registrar end to end: two real local-mode enclaves behind the real host, TEEProverRegistry on a
 * real chain node process. The registrar reads keys and fresh attestations through the host, verifies
 * them, registers the signers with the owner's key, and the host then routes to them and turns healthy.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Address, getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { nodeArgs } from "../../src/bundles/index.js";
import { REGISTRAR_USAGE, runRegistrarCli } from "../../src/registrar/index.js";
import { hostClient, rpcFailure } from "../host/host-client.js";
import { proofRequest } from "../host/proof-request.js";
import { deployRegistry, LOCAL_IMAGE_HASH } from "../host/registry.js";
import { hostArgs, type RunningHost, startHost } from "../host/spawn-host.js";
import { clients } from "../node/helpers.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { formatListenAddress } from "../../src/proof/transport/index.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

interface CliRun {
  readonly status: number;
  readonly lines: Record<string, unknown>[];
  readonly stderr: string;
}

describe("registrar against a real host, enclaves and registry", () => {
  let node: NodeProcess;
  let enclaves: RunningEnclave[] = [];
  let host: RunningHost;
  let registry: Address;

  async function registrar(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
    let stdout = "";
    let stderr = "";
    const status = await runRegistrarCli(args, {
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
      env: {
        REGISTRAR_HOST_URL: host.url,
        REGISTRAR_L1_RPC_URL: node.url,
        REGISTRAR_REGISTRY_ADDRESS: registry,
        REGISTRAR_CONFIRMATIONS: "1",
        ...env,
      },
    });
    const lines = stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { status, lines, stderr };
  }

  const owner = () => ({ REGISTRAR_PRIVATE_KEY: node.accounts[0]!.privateKey });
  const signers = () => enclaves.map((enclave) => getAddress(enclave.signer));

  async function statuses(): Promise<Record<string, unknown>[]> {
    const run = await registrar(["status"]);
    expect(run.status, run.stderr).toBe(0);
    return run.lines;
  }

  beforeAll(async () => {
    [node, ...enclaves] = await Promise.all([
      startNodeProcess({ blockTimeMs: 250, flashblockIntervalMs: 50, callWorkers: 0 }),
      startEnclave(),
      startEnclave(),
    ]);
    registry = await deployRegistry(node);
    host = await startHost(
      hostArgs({
        enclaves: enclaves.map((enclave) => formatListenAddress(enclave.address)),
        registry,
        l1RpcUrl: node.url,
      }),
    );
  });

  afterAll(async () => {
    await host?.stop();
    await Promise.all(enclaves.map((enclave) => enclave.stop()));
    await node?.stop();
  });

  it("inspect refuses local-mode documents unless they are allowed, then names each signer", async () => {
    const refused = await registrar(["inspect"]);
    expect(refused.status).toBe(1);
    expect(refused.lines).toEqual([]);
    expect(refused.stderr).toMatch(
      /AttestationRefusedError: enclave 0: a local-mode development document \(LOCAL-DEVELOPMENT-ENCLAVE/,
    );

    const inspected = await registrar(["inspect", "--allow-local"]);
    expect(inspected.status, inspected.stderr).toBe(0);
    expect(
      inspected.lines.map(({ index, signer, imageHash, mode }) => ({ index, signer, imageHash, mode })),
    ).toEqual(
      signers().map((signer, index) => ({ index, signer, imageHash: LOCAL_IMAGE_HASH, mode: "local" })),
    );
    for (const line of inspected.lines) {
      expect(Date.now() - Date.parse(line.attestedAt as string)).toBeLessThan(60_000);
    }
  });

  it("register --dry-run reports what it would do and sends nothing", async () => {
    const dry = await registrar(["register", "--allow-local", "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.lines.map((line) => [line.signer, line.action, line.valid])).toEqual(
      signers().map((signer) => [signer, "would-register", false]),
    );
    expect((await statuses()).map((line) => line.registered)).toEqual([false, false]);
  });

  it("an account without the registrar role is refused with the contract's error before anything is sent", async () => {
    const stranger = node.accounts[5]!;
    const refused = await registrar(["register", "--allow-local"], {
      REGISTRAR_PRIVATE_KEY: stranger.privateKey,
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`registerSigner would fail: NotRegistrar(${stranger.address})`);
    const nonce = await clients(node).publicClient.getTransactionCount({
      address: stranger.address,
      blockTag: "pending",
    });
    expect(nonce).toBe(0);
    expect((await statuses()).map((line) => line.registered)).toEqual([false, false]);
  });

  it("registers every attested signer; the host then routes to the first and reports healthy", async () => {
    const call = hostClient(host.url);
    expect((await rpcFailure(call("prover_prove", [proofRequest()]))).code).toBe(-32001);

    const run = await registrar(["register", "--allow-local"], owner());
    expect(run.status, run.stderr).toBe(0);
    expect(run.lines.map((line) => [line.signer, line.imageHash, line.action, line.valid])).toEqual(
      signers().map((signer) => [signer, LOCAL_IMAGE_HASH, "registered", true]),
    );
    for (const line of run.lines) expect(line.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);

    const status = await statuses();
    expect(
      status.map(({ signer, registered, imageHash, valid }) => ({ signer, registered, imageHash, valid })),
    ).toEqual(
      signers().map((signer) => ({ signer, registered: true, imageHash: LOCAL_IMAGE_HASH, valid: true })),
    );
    // Routed to a registered enclave: the refusal now comes from the enclave, not from the registry check.
    const failure = await rpcFailure(call("prover_prove", [proofRequest()]));
    expect(failure.code).toBe(-32000);
    expect(failure.message).toMatch(/^MissingWitnessError: missing preimage .* \(agreed output root\)/);
    expect((await fetch(`${host.url}/healthz`)).status).toBe(200);
  });

  it("a second run finds every signer registered and sends nothing", async () => {
    const { publicClient } = clients(node);
    const ownerAddress = node.accounts[0]!.address as Hex;
    const before = await publicClient.getTransactionCount({ address: ownerAddress, blockTag: "pending" });
    const run = await registrar(["register", "--allow-local"], owner());
    expect(run.status, run.stderr).toBe(0);
    expect(run.lines.map((line) => [line.action, line.valid, "transactionHash" in line])).toEqual([
      ["already-registered", true, false],
      ["already-registered", true, false],
    ]);
    expect(await publicClient.getTransactionCount({ address: ownerAddress, blockTag: "pending" })).toBe(
      before,
    );
  });

  it("deregister retires a signer; deregistering it again is the contract's SignerNotRegistered", async () => {
    const [first, second] = signers();
    const run = await registrar(["deregister", "--signer", first!], owner());
    expect(run.status, run.stderr).toBe(0);
    expect(run.lines).toEqual([
      { signer: first, action: "deregistered", transactionHash: expect.any(String) },
    ]);
    const status = await registrar(["status", "--signer", first!, "--signer", second!]);
    expect(status.lines.map((line) => [line.signer, line.registered, line.valid])).toEqual([
      [first, false, false],
      [second, true, true],
    ]);
    const again = await registrar(["deregister", "--signer", first!], owner());
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`deregisterSigner would fail: SignerNotRegistered(${first})`);
  });

  it("usage errors exit 2 with the usage text; the entry point runs", async () => {
    expect((await registrar([])).status).toBe(2);
    const badCommand = await registrar(["rotate"]);
    expect(badCommand.status).toBe(2);
    expect(badCommand.stderr).toMatch(/unknown command "rotate"/);
    const badRoot = await registrar(["inspect", "--trusted-root-sha256", "abcd"]);
    expect(badRoot.status).toBe(2);
    expect(badRoot.stderr).toMatch(/not a 32-byte hex fingerprint/);
    const noKey = await registrar(["register", "--allow-local"]);
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toMatch(/--private-key is required/);

    const help = spawnSync(process.execPath, [...nodeArgs("src/registrar/main.ts"), "--help"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(REGISTRAR_USAGE);
  });
});
