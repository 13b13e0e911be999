/**
 * The host checks each enclave result before returning it: a real host process (chain 901, boot keys only) reaches
 * a real local-mode enclave (the recorded devnet witness's rollup config) through a proxy that sends the enclave the
 * recorded witness for the host's request (whose boot values are the witness's) and can edit the enclave's answer
 * on its way back. Unedited, the host returns the proof; an answer whose L1 origin, roots or blocks no longer match
 * the request is refused (-32000, "enclave fault"), logged and counted in prover_enclave_faults_total; so is one
 * whose signatures do not recover to the key the enclave reported (the host asks each proof's enclave for its key
 * and attestation, registry or not). With TEEProverRegistry on a dev chain node process, the enclave's own result
 * is returned (every signature recovered to the registered signer) and the same proposals signed by another key
 * are refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { type Address, hexToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { teeProverRegistryAbi } from "../../contracts/artifacts.js";
import { EnclaveSigner } from "../../enclave/index.js";
import {
  decodeRequestPayload,
  encodeResponseFrame,
  frameWriteChunks,
  newRequestFrameReader,
  type Response,
} from "../../generated/protocol/index.js";
import { FIXTURE_ROLLUP_PATH, recordedWitness } from "../../conformance/fixture.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { callEnclave } from "../../enclave/test/transport.js";
import { buildProofResult } from "../../src/proof/onchain/index.js";
import { PreimageTable, readBootInfo } from "../../src/proof/preimages/index.js";
import { clients, waitFor } from "../node/helpers.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { hostClient, type HostCall, rpcFailure } from "./host-client.js";
import { deployRegistry, LOCAL_IMAGE_HASH } from "./registry.js";
import { hostArgs, type RunningHost, startHost } from "./spawn-host.js";

type ResponseEdit = (response: Response) => Response;

let enclave: RunningEnclave;
let host: RunningHost;
let call: HostCall;
let proxyServer: Server;
let proxyDir: string;
let edit: ResponseEdit | undefined;
let proxyPath: string;

/** Forwards each request to the enclave (a Prove with the recorded witness instead of the boot keys). */
function serveProxied(socket: Socket): void {
  socket.on("error", () => socket.destroy());
  const reader = newRequestFrameReader();
  socket.on("data", (chunk: Buffer) => {
    const payload = reader.push(chunk);
    if (payload === undefined) return;
    const request = decodeRequestPayload(payload);
    const forwarded =
      request.kind === "Prove" ? { kind: "Prove" as const, preimages: recordedWitness().preimages } : request;
    void callEnclave(enclave.address, forwarded, { timeoutMs: 300_000 }).then((response) => {
      const answer = request.kind === "Prove" && edit !== undefined ? edit(response) : response;
      for (const part of frameWriteChunks(encodeResponseFrame(answer))) socket.write(part);
      socket.end();
    });
  });
}

function manifestRequest(): Record<string, unknown> {
  const { boot, agreedL2HeadHash } = recordedWitness().manifest;
  return {
    l1_head: boot.l1Head,
    l1_head_number: boot.l1HeadNumber,
    agreed_l2_head_hash: agreedL2HeadHash,
    agreed_l2_output_root: boot.agreedOutputRoot,
    claimed_l2_output_root: boot.claimedOutputRoot,
    claimed_l2_block_number: boot.claimedL2BlockNumber,
    proposer: boot.proposer,
    intermediate_block_interval: boot.intermediateBlockInterval,
  };
}

beforeAll(async () => {
  enclave = await startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH]);
  proxyDir = mkdtempSync(join(tmpdir(), "result-proxy-"));
  const path = join(proxyDir, "proxy.sock");
  proxyPath = path;
  proxyServer = createServer(serveProxied);
  await new Promise<void>((resolve) => proxyServer.listen(path, resolve));
  host = await startHost(hostArgs({ enclaves: [path], chainId: "901" }));
  call = hostClient(host.url);
}, 120_000);

afterAll(async () => {
  await host?.stop();
  await new Promise<void>((resolve) => (proxyServer ? proxyServer.close(() => resolve()) : resolve()));
  if (proxyDir !== undefined) rmSync(proxyDir, { recursive: true, force: true });
  await enclave?.stop();
});

const faults = async (check: string, url = host.url): Promise<number> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith("prover_enclave_faults_total{") && l.includes(`check="${check}"`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
};

/** Edits every proposal of a Prove answer. */
const proposals =
  (change: (p: Extract<Response, { kind: "Prove" }>["result"]["Tee"]) => void): ResponseEdit =>
  (response) => {
    if (response.kind !== "Prove") return response;
    const tee = structuredClone(response.result.Tee);
    change(tee);
    return { kind: "Prove", result: { Tee: tee } };
  };

/** The enclave's proposals, every one signed again by another key (a valid signature, by a signer not asked). */
function signedByImpostor(): ResponseEdit {
  const { preimages, manifest } = recordedWitness();
  const impostor = EnclaveSigner.generate((n) => new Uint8Array(randomBytes(n)));
  return (response) => {
    if (response.kind !== "Prove") return response;
    const boot = readBootInfo(PreimageTable.fromPreimages(preimages));
    const ctx = {
      boot,
      configHash: response.result.Tee.aggregate_proposal.config_hash,
      teeImageHash: new Uint8Array(32),
    };
    const range = {
      startBlock: BigInt(manifest.startBlock),
      outputRoots: manifest.outputRoots.map((root) => hexToBytes(root as `0x${string}`)),
    };
    return { kind: "Prove", result: buildProofResult(ctx, range, impostor) };
  };
}

/** The impostor's result through `callHost` is refused (-32000, naming the enclave's own signer) and counted. */
async function refusesImpostor(callHost: HostCall, url: string): Promise<void> {
  edit = signedByImpostor();
  const failure = await rpcFailure(callHost("prover_prove", [manifestRequest()]));
  edit = undefined;
  expect(failure.code).toBe(-32000);
  expect(failure.message).toMatch(/recovers to 0x[0-9a-f]{40}, not the routed signer/);
  expect(failure.message).toContain(enclave.signer.toLowerCase());
  expect(await faults("signer", url)).toBe(1);
}

describe("the host verifies the enclave's result", () => {
  it("returns an untouched result", async () => {
    edit = undefined;
    const result = (await call("prover_prove", [manifestRequest()])) as {
      Tee: { aggregate_proposal: { output_root: string; l2_block_number: number } };
    };
    expect(result.Tee.aggregate_proposal).toMatchObject({
      output_root: recordedWitness().manifest.boot.claimedOutputRoot,
      l2_block_number: recordedWitness().manifest.boot.claimedL2BlockNumber,
    });
  }, 300_000);

  it("refuses, logs and counts a result whose L1 origin, chain of roots or range is not the request's", async () => {
    const cases: [string, ResponseEdit][] = [
      [
        "l1-origin",
        proposals((tee) => {
          tee.aggregate_proposal.l1_origin_number += 1n;
        }),
      ],
      [
        "chain",
        proposals((tee) => {
          tee.proposals[1]!.prev_output_root = new Uint8Array(32).fill(7);
        }),
      ],
      [
        "range",
        proposals((tee) => {
          tee.proposals.forEach((p) => (p.l2_block_number += 1n));
        }),
      ],
    ];
    for (const [check, change] of cases) {
      edit = change;
      const failure = await rpcFailure(call("prover_prove", [manifestRequest()]));
      expect(failure.code).toBe(-32000);
      expect(failure.message).toMatch(/the enclave's result does not match the request/);
      expect(await faults(check)).toBe(1);
      expect(
        host.logs.filter((line) => line.check === check && String(line.msg).startsWith("enclave fault")),
      ).toHaveLength(1);
    }
    edit = undefined;
  }, 600_000);

  it("without a registry, recovers every signature to the key the enclave reported: another key's are refused", async () => {
    await refusesImpostor(call, host.url);
    expect(
      host.logs.filter((line) => line.check === "signer" && String(line.msg).startsWith("enclave fault")),
    ).toHaveLength(1);
    // A flipped bit in one signature is refused the same way; the untouched result still goes through.
    edit = proposals((tee) => {
      tee.proposals[0]!.signature[10]! ^= 1;
    });
    expect((await rpcFailure(call("prover_prove", [manifestRequest()]))).code).toBe(-32000);
    expect(await faults("signer")).toBe(2);
    edit = undefined;
    expect(await call("prover_prove", [manifestRequest()])).toMatchObject({ Tee: expect.any(Object) });
  }, 600_000);
});

describe("with a registry: every signature recovers to the routed signer", () => {
  let node: NodeProcess;
  let registryHost: RunningHost;

  beforeAll(async () => {
    node = await startNodeProcess({ blockTimeMs: 250, flashblockIntervalMs: 50, callWorkers: 0 });
    const registry = await deployRegistry(node);
    const { publicClient, walletClient } = clients(node);
    const hash = await walletClient.writeContract({
      address: registry,
      abi: teeProverRegistryAbi,
      functionName: "registerSigner",
      args: [enclave.signer as Address, LOCAL_IMAGE_HASH],
      chain: walletClient.chain,
    } as never);
    await publicClient.waitForTransactionReceipt({ hash });
    await waitFor(
      async () =>
        (await publicClient.readContract({
          address: registry,
          abi: teeProverRegistryAbi,
          functionName: "isValidSigner",
          args: [enclave.signer as Address],
        }))
          ? true
          : undefined,
      "the enclave's signer valid on latest",
    );
    registryHost = await startHost(
      hostArgs({ enclaves: [proxyPath], chainId: "901", registry, l1RpcUrl: node.url }),
    );
  }, 300_000);

  afterAll(async () => {
    await registryHost?.stop();
    await node?.stop();
  });

  it("returns the enclave's result, and refuses the same proposals signed by another key", async () => {
    const call = hostClient(registryHost.url);
    edit = undefined;
    expect(await call("prover_prove", [manifestRequest()])).toMatchObject({
      Tee: { proposals: expect.any(Array) },
    });

    await refusesImpostor(call, registryHost.url);
  }, 600_000);
});
