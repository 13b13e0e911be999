/**
 * The real processes end to end: anvil with the L1 contracts, our node in L1 mode, the batcher posting blobs, a
 * local-mode enclave PROCESS given the chain's rollup.json (--rollup-config, a development chain) and a host
 * PROCESS collecting the witness (--rollup-config with the L1, beacon and L2 endpoints). prover_prove over a short
 * batched range returns proposals signed by the enclave's signer under the development config hash; a wrong claim
 * is refused before any enclave, nothing signed.
 */
import { type Hex, hexToBytes, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { type BatcherProcess, spawnBatcher } from "../../src/batcher/test/spawn-batcher.js";
import { devAccounts, genesisFactsOf } from "../../src/chain/index.js";
import {
  type BootInfo,
  computeConfigHash,
  perBlockJournals,
  recoverJournalSigner,
} from "../../src/proof/index.js";
import { type L1Chain, startL1Chain } from "../node/l1-chain.js";
import { hostClient, rpcFailure } from "./host-client.js";
import { type RunningHost, startHost } from "./spawn-host.js";

interface Output {
  outputRoot: Hex;
  blockRef: { hash: Hex; number: number };
  syncStatus: { safe_l2: { number: number } };
}

let chain: L1Chain;
let batcher: BatcherProcess | undefined;
let enclave: RunningEnclave | undefined;
let host: RunningHost | undefined;
let request: Record<string, unknown>;
let boot: BootInfo;
let roots: Hex[];

async function call<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

const output = (n: number) => call<Output>(chain.node.url, "optimism_outputAtBlock", [`0x${n.toString(16)}`]);

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  chain = await startL1Chain({ blockTime: 1 });
  const agreed = 2;
  const claimed = 5;
  batcher = spawnBatcher(
    [
      "--l1-rpc-url",
      chain.l1.anvil.rpcUrl,
      "--l2-rpc-url",
      chain.node.url,
      "--rollup-config",
      chain.rollupPath,
      "--data-availability",
      "blobs",
      "--max-channel-duration",
      "2",
      "--poll-interval-ms",
      "200",
    ],
    { BATCHER_PRIVATE_KEY: devAccounts(4)[3]!.privateKey },
  );
  // Generous: on a loaded 2-core machine the first blob waits for the KZG setup.
  await until(
    "the safe head to pass the claimed block",
    async () => ((await output(0)).syncStatus.safe_l2.number >= claimed ? true : undefined),
    600_000,
  );
  const l1Head = await chain.l1.anvil.client.getBlock({ blockTag: "latest" });
  const agreedOut = await output(agreed);
  roots = [];
  for (let n = agreed + 1; n <= claimed; n++) roots.push((await output(n)).outputRoot);
  const proposer = devAccounts(3)[2]!.address;
  request = {
    l1_head: l1Head.hash,
    l1_head_number: Number(l1Head.number),
    agreed_l2_head_hash: agreedOut.blockRef.hash,
    agreed_l2_output_root: agreedOut.outputRoot,
    claimed_l2_output_root: roots.at(-1)!,
    claimed_l2_block_number: claimed,
    proposer,
    intermediate_block_interval: 1,
  };
  boot = {
    l1Head: hexToBytes(l1Head.hash),
    l1HeadNumber: l1Head.number,
    agreedOutputRoot: hexToBytes(agreedOut.outputRoot),
    claimedOutputRoot: hexToBytes(roots.at(-1)!),
    claimedL2BlockNumber: BigInt(claimed),
    chainId: chain.rollup.l2ChainId,
    proposer: hexToBytes(proposer),
    intermediateBlockInterval: 1n,
  };
  enclave = await startEnclave(["--rollup-config", chain.rollupPath]);
  if (enclave.address.kind !== "unix") throw new Error("expected a Unix socket enclave");
  host = await startHost([
    "--l1-rpc-url",
    chain.l1.anvil.rpcUrl,
    "--l2-rpc-url",
    chain.node.url,
    "--l2-chain-id",
    chain.rollup.l2ChainId.toString(),
    "--rollup-config",
    chain.rollupPath,
    "--listen",
    "127.0.0.1:0",
    "--vsock-cid",
    enclave.address.path,
    "--proof-request-timeout",
    "600",
  ]);
}, 900_000);

afterAll(async () => {
  await host?.stop();
  await enclave?.stop();
  await batcher?.stop();
  await chain?.stop();
});

const proves = () =>
  enclave!.logs.filter((line) => line.msg === "request served" && line.request === "Prove");

describe("prover_prove through the host and enclave processes on the L1-backed chain", () => {
  it("returns proposals signed by the enclave's signer under the development config hash", async () => {
    // Plain fetch: the proof (witness collection included) can outlast the test client's 30 s timeout.
    const result = await call<{
      Tee: { proposals: { output_root: Hex; signature: Hex; config_hash: Hex }[] };
    }>(host!.url, "prover_prove", [request]);
    const configHash = toHex(computeConfigHash(genesisFactsOf(chain.rollup)));
    expect(result.Tee.proposals.map((p) => p.output_root)).toEqual(roots);
    const journals = perBlockJournals(
      { boot, configHash: hexToBytes(configHash), teeImageHash: new Uint8Array(32) },
      { startBlock: 2n, outputRoots: roots.map((root) => hexToBytes(root)) },
    );
    result.Tee.proposals.forEach((p, i) => {
      expect(p.config_hash).toBe(configHash);
      expect(toHex(recoverJournalSigner(journals[i]!, hexToBytes(p.signature)))).toBe(enclave!.signer);
    });
  }, 600_000);

  it("refuses a wrong claimed root at the witness, before any enclave, nothing signed", async () => {
    const before = proves().length;
    const failure = await rpcFailure(
      hostClient(host!.url)("prover_prove", [{ ...request, claimed_l2_output_root: `0x${"ab".repeat(32)}` }]),
    );
    expect(failure.code).toBe(-32000);
    expect(failure.message).toMatch(/re-executed output root at block 5 differs from the claimed root/);
    expect(proves().length).toBe(before);
  }, 600_000);
});
