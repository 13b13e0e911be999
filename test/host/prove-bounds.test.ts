/**
 * What prover_prove refuses before any witness is collected, through the real host process with a rollup config
 * (so it would collect a witness from its endpoints): with a registry it cannot confirm any signer on, the answer
 * is NoValidSigner (-32001) before the L2 endpoint is touched; a range longer than --max-blocks-per-proof is
 * refused with -32602 after one lookup of the agreed head on the L2 (a real dev chain node process).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hex } from "viem";
import { FIXTURE_ROLLUP_PATH } from "../../conformance/fixture.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { formatListenAddress } from "../../src/proof/transport/index.js";
import { clients, waitFor } from "../node/helpers.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { hostClient, rpcFailure } from "./host-client.js";
import { proofRequest } from "./proof-request.js";
import { hostArgs, type RunningHost, startHost, UNREACHABLE_URL } from "./spawn-host.js";

let node: NodeProcess;
let enclave: RunningEnclave;
const hosts: RunningHost[] = [];

beforeAll(async () => {
  [node, enclave] = await Promise.all([
    startNodeProcess({ blockTimeMs: 250, flashblockIntervalMs: 50, callWorkers: 0 }),
    startEnclave(["--rollup-config", FIXTURE_ROLLUP_PATH]),
  ]);
}, 180_000);

afterAll(async () => {
  for (const host of hosts) await host.stop();
  await Promise.all([node?.stop(), enclave?.stop()]);
});

async function host(extra: string[], l2RpcUrl: string): Promise<string> {
  const args = hostArgs({
    enclaves: [formatListenAddress(enclave.address)],
    chainId: "901",
    extra: ["--rollup-config", FIXTURE_ROLLUP_PATH, ...extra],
  });
  const at = args.indexOf("--l2-rpc-url");
  args[at + 1] = l2RpcUrl;
  const started = await startHost(args);
  hosts.push(started);
  return started.url;
}

describe("prover_prove bounds checked before the witness", () => {
  it("no registry-valid signer: -32001 before any witness is collected", async () => {
    // The registry's L1 is unreachable, so no signer can be confirmed; the L2 is unreachable too, so a witness
    // collection (or a range lookup) before routing would answer another error.
    const url = await host(["--tee-prover-registry-address", `0x${"12".repeat(20)}`], UNREACHABLE_URL);
    const failure = await rpcFailure(hostClient(url)("prover_prove", [proofRequest()]));
    expect(failure.code).toBe(-32001);
    expect(failure.message).toMatch(/^NoValidSigner: /);
  }, 300_000);

  it("a range longer than --max-blocks-per-proof: -32602 naming the range and the bound", async () => {
    const { publicClient } = clients(node);
    await waitFor(async () => ((await publicClient.getBlockNumber()) >= 3n ? true : undefined), "block 3");
    const agreed = await publicClient.getBlock({ blockNumber: 1n });
    const url = await host(["--max-blocks-per-proof", "2"], node.url);
    const call = hostClient(url);
    const request = (claimed: number) =>
      proofRequest({ agreed_l2_head_hash: agreed.hash as Hex, claimed_l2_block_number: claimed });
    const tooLong = await rpcFailure(call("prover_prove", [request(4)]));
    expect(tooLong).toEqual({
      code: -32602,
      message:
        "invalid request: the range covers 3 L2 blocks (1 to 4), more than the 2 one proof may cover (--max-blocks-per-proof)",
    });
    const backwards = await rpcFailure(call("prover_prove", [request(1)]));
    expect(backwards.code).toBe(-32602);
    expect(backwards.message).toMatch(/is not after the agreed L2 head 1/);
  }, 300_000);
});
