/**
 * Registry-gated routing and health through the real host process, with three real local-mode enclaves
 * and TEEProverRegistry deployed on a real chain node process (the host's L1 RPC). Only a registered
 * signer of the active image hash is routed to; deregistering it and registering another moves new
 * requests; rotating the active image hash away from every signer leaves none valid (-32001); health is
 * unhealthy until a signer is confirmed, then latched, even after the node is gone.
 */
import { type Address, type Hex, pad } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { teeProverRegistryAbi } from "../../contracts/artifacts.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { clients, waitFor } from "../node/helpers.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { hostClient, type HostCall, rpcFailure } from "./host-client.js";
import { proofRequest } from "./proof-request.js";
import { deployRegistry, LOCAL_IMAGE_HASH } from "./registry.js";
import { hostArgs, type RunningHost, startHost } from "./spawn-host.js";
import { formatListenAddress } from "../../src/proof/transport/index.js";

const OTHER_IMAGE_HASH = pad("0xab", { size: 32 });

const proveRequests = (enclave: RunningEnclave): number =>
  enclave.logs.filter((line) => line.msg === "request served" && line.request === "Prove").length;

/**
 * Waits until the enclaves' logs show these Prove counts. An enclave logs a request after writing its
 * response, so its line can reach the test after the host has already answered.
 */
async function expectProveCounts(
  enclaves: readonly RunningEnclave[],
  counts: readonly number[],
): Promise<void> {
  await vi.waitFor(() => expect(enclaves.map(proveRequests)).toEqual(counts), {
    timeout: 5000,
    interval: 20,
  });
}

describe("registry-gated routing and health", () => {
  let node: NodeProcess;
  let enclaves: RunningEnclave[] = [];
  let host: RunningHost;
  let call: HostCall;
  let registry: Address;
  let chainClients: ReturnType<typeof clients>;
  let nodeStopped = false;
  /** Enclaves a test stopped (enclave/test/enclave-process.ts stop() must run once per enclave). */
  const stopped = new Set<RunningEnclave>();

  /** Sends an owner transaction to the registry and waits until `latest` shows its effect. */
  async function registryWrite(
    functionName: "registerSigner" | "deregisterSigner" | "setActiveImageHash",
    args: readonly unknown[],
    settled: () => Promise<boolean>,
  ): Promise<void> {
    const { walletClient, publicClient } = chainClients;
    const hash = await walletClient.writeContract({
      address: registry,
      abi: teeProverRegistryAbi,
      functionName,
      args,
      chain: walletClient.chain,
    } as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    await waitFor(async () => ((await settled()) ? true : undefined), `${functionName} visible on latest`);
  }

  const isValid = (signer: string): Promise<boolean> =>
    chainClients.publicClient.readContract({
      address: registry,
      abi: teeProverRegistryAbi,
      functionName: "isValidSigner",
      args: [signer as Address],
    });

  beforeAll(async () => {
    [node, ...enclaves] = await Promise.all([
      startNodeProcess({ blockTimeMs: 250, flashblockIntervalMs: 50, callWorkers: 0 }),
      startEnclave(),
      startEnclave(),
      startEnclave(),
    ]);
    chainClients = clients(node);
    registry = await deployRegistry(node);
    host = await startHost(
      hostArgs({
        enclaves: enclaves.map((enclave) => formatListenAddress(enclave.address)),
        registry,
        l1RpcUrl: node.url,
      }),
    );
    call = hostClient(host.url);
  });

  afterAll(async () => {
    await host?.stop();
    await Promise.all(enclaves.filter((enclave) => !stopped.has(enclave)).map((enclave) => enclave.stop()));
    if (!nodeStopped) await node?.stop();
  });

  it("is unhealthy and answers NoValidSigner while no enclave's signer is registered", async () => {
    const response = await fetch(`${host.url}/healthz`);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { code: number }).code).toBe(-32001);
    expect((await rpcFailure(call("healthz"))).code).toBe(-32001);
    const failure = await rpcFailure(call("prover_prove", [proofRequest()]));
    expect(failure.code).toBe(-32001);
    expect(failure.message).toMatch(/^NoValidSigner: /);
    expect(failure.message.toLowerCase()).toContain(registry.toLowerCase());
    await expectProveCounts(enclaves, [0, 0, 0]);
  });

  it("routes only to the registered signer and latches healthy", async () => {
    const chosen = enclaves[1]!;
    await registryWrite("registerSigner", [chosen.signer, LOCAL_IMAGE_HASH], () => isValid(chosen.signer));
    const failure = await rpcFailure(call("prover_prove", [proofRequest()]));
    expect(failure.code).toBe(-32000);
    expect(failure.message).toMatch(/^MissingWitnessError: missing preimage .* \(agreed output root\)/);
    await expectProveCounts(enclaves, [0, 1, 0]);
    const response = await fetch(`${host.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ version: "0.1.0" });
    const routed = host.logs.filter((line) => line.msg === "proving").at(-1);
    expect(String(routed?.signer).toLowerCase()).toBe(chosen.signer.toLowerCase());
  });

  it("moves new requests to another enclave after deregistering the first and registering it", async () => {
    const [, previous, next] = enclaves as [RunningEnclave, RunningEnclave, RunningEnclave];
    await registryWrite("deregisterSigner", [previous.signer], async () => !(await isValid(previous.signer)));
    await registryWrite("registerSigner", [next.signer, LOCAL_IMAGE_HASH], () => isValid(next.signer));
    expect((await rpcFailure(call("prover_prove", [proofRequest()]))).code).toBe(-32000);
    expect((await rpcFailure(call("prover_prove", [proofRequest()]))).code).toBe(-32000);
    await expectProveCounts(enclaves, [0, 1, 2]);
  });

  it("skips an enclave whose key cannot be fetched and still routes to the valid one", async () => {
    const dead = enclaves[0]!;
    await dead.stop();
    stopped.add(dead);
    expect((await rpcFailure(call("prover_prove", [proofRequest()]))).code).toBe(-32000);
    await expectProveCounts(enclaves, [0, 1, 3]);
    expect(
      host.logs.some(
        (line) =>
          line.msg === "skipping enclave: its signer key is unavailable" &&
          String(line.enclave).includes(dead.address.kind === "unix" ? dead.address.path : "?"),
      ),
    ).toBe(true);
  });

  it("answers NoValidSigner after the active image hash rotates away from every signer; health stays latched", async () => {
    const last = enclaves[2]!;
    await registryWrite(
      "setActiveImageHash",
      [OTHER_IMAGE_HASH as Hex],
      async () => !(await isValid(last.signer)),
    );
    const failure = await rpcFailure(call("prover_prove", [proofRequest()]));
    expect(failure.code).toBe(-32001);
    expect(failure.message).toMatch(/^NoValidSigner: /);
    await expectProveCounts(enclaves, [0, 1, 3]);
    expect((await fetch(`${host.url}/healthz`)).status).toBe(200);
  });

  it("stays healthy after the registry's RPC is gone; proofs then find no valid signer", async () => {
    await node.stop();
    nodeStopped = true;
    expect((await fetch(`${host.url}/healthz`)).status).toBe(200);
    expect(await call("healthz")).toEqual({ version: "0.1.0" });
    const failure = await rpcFailure(call("prover_prove", [proofRequest()]));
    expect(failure.code).toBe(-32001);
    expect(failure.message).toMatch(/registry check of 0x[0-9a-f]{40} failed/);
  });
});
