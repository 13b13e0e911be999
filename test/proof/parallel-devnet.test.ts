/**
 * Parallel execution of a range on a real devnet made of processes (docs/proof.md "Parallel execution"): anvil
 * with the L1 contracts, our node in L1 mode, the batcher posting blobs. The range holds transfers, a reverting
 * transaction, and the epoch that brought a user deposit (DepositPortal) and a gas limit change (SystemConfig).
 * The host's witness collection, asked for the chain witness, gives a witness that
 * (a) executes on two worker threads to the node's output roots, every block's hash chained (no fallback), the
 *     same roots as sequential execution;
 * (b) gives the enclave's runProof the same signed proposals in parallel and sequentially;
 * (c) with a header of the range forged (in the middle, at the end) and a claim over the forged chain, breaks
 *     the chain of hashes at the forged block, is executed sequentially and refused, nothing signed.
 */
import { createWalletClient, defineChain, type Hex, hexToBytes, http, parseEther, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositPortalAbi, systemConfigAbi } from "../../contracts/index.js";
import { runProof } from "../../enclave/prove.js";
import type { Preimage } from "../../generated/protocol/index.js";
import { devAccounts, toHex } from "../../src/chain/index.js";
import { collectWitness, type WitnessCollection } from "../../src/host/index.js";
import { OutputRootMismatchError } from "../../src/proof/onchain/index.js";
import { type BootInfo, PreimageTable, readBootInfo } from "../../src/proof/preimages/index.js";
import {
  BlockPool,
  type ExecutionReport,
  OfflineOracle,
  programExecutor,
  runProgram,
} from "../../src/proof/program/index.js";
import {
  countingSigner,
  forgeHeaderChain,
} from "../../src/proof/program/parallel/chain-witness.test-support.js";
import { type BatcherProcess, type L1Chain, startChainBatcher, startL1Chain } from "../node/l1-chain.js";

const NEW_GAS_LIMIT = 45_000_000n;
/** Init code of a contract whose code is PUSH1 0 PUSH1 0 REVERT: every call to it reverts. */
const REVERTER_INIT: Hex = "0x6460006000fd6000526005601bf3";

let chain: L1Chain;
let batcher: BatcherProcess | undefined;
let boot: BootInfo;
let nodeRoots: Uint8Array[];
let collected: WitnessCollection;
let depositBlock: bigint;
let revertBlock: bigint;
const pool = new BlockPool({ workers: 2 });

async function call<T>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(chain.node.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

interface Output {
  outputRoot: Hex;
  blockRef: { hash: Hex; number: number };
  syncStatus: { safe_l2: { number: number } };
}
const output = (n: bigint) => call<Output>("optimism_outputAtBlock", [`0x${n.toString(16)}`]);

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function executor(parallel: boolean, reports: ExecutionReport[]) {
  return programExecutor(() => ({ rollupConfig: chain.rollup }), {
    ...(parallel ? { pool } : {}),
    onExecuted: (report) => reports.push(report),
  });
}

function run(preimages: readonly Preimage[], parallel: boolean) {
  const table = PreimageTable.fromPreimages(preimages);
  return runProgram({
    boot: readBootInfo(table),
    oracle: new OfflineOracle(table),
    rollupConfig: chain.rollup,
    ...(parallel ? { parallel: { pool, table } } : {}),
  });
}

beforeAll(async () => {
  chain = await startL1Chain({ blockTime: 1 });
  const l2 = defineChain({
    id: chain.node.chainId,
    name: "L2",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [chain.node.url] } },
  });
  const wallet = createWalletClient({
    account: privateKeyToAccount(devAccounts(8)[7]!.privateKey),
    chain: l2,
    transport: http(chain.node.url, { timeout: 60_000 }),
  });
  const fees = { maxFeePerGas: parseGwei("50"), maxPriorityFeePerGas: parseGwei("1") };
  const receiptOf = (hash: Hex) => chain.l2.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  const transfer = async (i: number): Promise<bigint> => {
    const hash = await wallet.sendTransaction({
      to: devAccounts(10)[9]!.address,
      value: BigInt(1000 + i),
      ...fees,
    });
    return (await receiptOf(hash)).blockNumber;
  };
  const deployed = await receiptOf(
    await wallet.deployContract({ abi: [], bytecode: REVERTER_INIT, ...fees }),
  );
  expect(deployed.status).toBe("success");
  const agreed = (await transfer(0)) - 1n;
  // A transaction that reverts (explicit gas: estimation would refuse it), included with status 0.
  const reverted = await receiptOf(
    await wallet.sendTransaction({ to: deployed.contractAddress!, gas: 100_000n, ...fees }),
  );
  expect(reverted.status).toBe("reverted");
  revertBlock = reverted.blockNumber;
  // On L1: a deposit through the portal and a gas limit change, adopted by one L2 epoch of the range.
  const l1Wallet = (index: number) =>
    createWalletClient({
      account: privateKeyToAccount(devAccounts(index + 1)[index]!.privateKey),
      chain: chain.l1.anvil.chain,
      transport: http(chain.l1.anvil.rpcUrl, { timeout: 60_000 }),
    });
  const l1Sent = [
    await l1Wallet(6).writeContract({
      address: chain.l1.deployment.depositPortal,
      abi: depositPortalAbi,
      functionName: "depositTransaction",
      args: [devAccounts(7)[6]!.address, parseEther("0.5"), 100_000n, false, "0x"],
      value: parseEther("1"),
    }),
    await l1Wallet(0).writeContract({
      address: chain.l1.deployment.systemConfig,
      abi: systemConfigAbi,
      functionName: "setGasLimit",
      args: [NEW_GAS_LIMIT],
    }),
  ];
  for (const hash of l1Sent) {
    const receipt = await chain.l1.anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.status).toBe("success");
  }
  // Transfers go on until the user deposit is in a sealed L2 block; one more after it ends the range.
  let found: bigint | undefined;
  let scanned = agreed + 1n;
  for (let i = 1; found === undefined; i++) {
    const last = await transfer(i);
    for (; scanned <= last && found === undefined; scanned++) {
      const block = await call<{ transactions: { type: Hex }[] } | null>("eth_getBlockByNumber", [
        `0x${scanned.toString(16)}`,
        true,
      ]);
      if (block === null) break;
      if (block.transactions.filter((tx) => tx.type === "0x7e").length >= 2) found = scanned;
    }
    if (i > 120) throw new Error("the deposit never reached L2");
  }
  depositBlock = found;
  const claimed = await transfer(1000);
  batcher = startChainBatcher(chain);
  let safe = -1;
  await until(
    "the safe head to pass the claimed block",
    async () => {
      safe = (await output(0n)).syncStatus.safe_l2.number;
      return safe >= Number(claimed) ? true : undefined;
    },
    600_000,
  );
  const l1Head = await chain.l1.anvil.client.getBlock({ blockTag: "latest" });
  const agreedOut = await output(agreed);
  nodeRoots = [];
  for (let n = agreed + 1n; n <= claimed; n++) nodeRoots.push(hexToBytes((await output(n)).outputRoot));
  boot = {
    l1Head: hexToBytes(l1Head.hash),
    l1HeadNumber: l1Head.number,
    agreedOutputRoot: hexToBytes(agreedOut.outputRoot),
    claimedOutputRoot: nodeRoots.at(-1)!,
    claimedL2BlockNumber: claimed,
    chainId: chain.rollup.l2ChainId,
    proposer: hexToBytes(devAccounts(3)[2]!.address),
    intermediateBlockInterval: 2n,
  };
  collected = await collectWitness({
    boot,
    agreedL2HeadHash: hexToBytes(agreedOut.blockRef.hash),
    l1RpcUrl: chain.l1.anvil.rpcUrl,
    l1BeaconUrl: chain.l1.anvil.beaconUrl,
    l2RpcUrl: chain.node.url,
    rollupConfig: chain.rollup,
    chainWitness: true,
  });
}, 1_200_000);

afterAll(async () => {
  await pool.close();
  await batcher?.stop().catch(() => undefined);
  await chain?.stop();
});

describe("parallel execution of a devnet range", () => {
  it("(a) runs on the workers to the node's roots, the same as sequential execution", async () => {
    const start = collected.result.startBlock;
    // The range holds the reverting transaction, the deposit and the epoch with the new gas limit.
    for (const n of [revertBlock, depositBlock]) {
      expect(n).toBeGreaterThan(start);
      expect(n).toBeLessThanOrEqual(boot.claimedL2BlockNumber);
    }
    const gasLimit = async (n: bigint) =>
      BigInt(
        (await call<{ gasLimit: Hex }>("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).gasLimit,
      );
    expect(await gasLimit(start)).not.toBe(NEW_GAS_LIMIT);
    expect(await gasLimit(boot.claimedL2BlockNumber)).toBe(NEW_GAS_LIMIT);
    expect(collected.result.outputRoots.map(toHex)).toEqual(nodeRoots.map(toHex));

    const sequential = await run(collected.preimages, false);
    const parallel = await run(collected.preimages, true);
    expect(sequential.execution.mode).toBe("sequential");
    expect(parallel.execution).toMatchObject({ mode: "parallel", workers: 2 });
    expect(parallel.execution.fallback).toBeUndefined();
    expect(parallel.outputRoots.map(toHex)).toEqual(sequential.outputRoots.map(toHex));
    expect(parallel.outputRoots.map(toHex)).toEqual(nodeRoots.map(toHex));
    expect(parallel.blocks.map((b) => toHex(b.hash))).toEqual(sequential.blocks.map((b) => toHex(b.hash)));
    console.log(
      JSON.stringify({
        blocks: parallel.blocks.length,
        preimages: collected.preimages.length,
        sequentialExecutionMs: Math.round(sequential.timings.executionMs),
        parallelExecutionMs: Math.round(parallel.timings.executionMs),
        peakWorkerHeapBytes: parallel.execution.peakWorkerHeapBytes,
        peakRssBytes: parallel.execution.peakRssBytes,
      }),
    );
  }, 300_000);

  it("(b) the enclave signs the same proposals in parallel and sequentially", async () => {
    const signer = countingSigner();
    const reports: ExecutionReport[] = [];
    const prove = (parallel: boolean) =>
      runProof(
        { signer, teeImageHash: new Uint8Array(32), executor: executor(parallel, reports) },
        collected.preimages,
      );
    const sequential = await prove(false);
    const parallel = await prove(true);
    expect(reports.map((r) => r.mode)).toEqual(["sequential", "parallel"]);
    expect(parallel).toEqual(sequential);
    expect(parallel.Tee.proposals.map((p) => toHex(p.output_root))).toEqual(nodeRoots.map(toHex));
  }, 300_000);

  it("(c) a header forged in the middle or at the end is caught by the chain of hashes and refused", async () => {
    const blocks = nodeRoots.length;
    for (const at of [Math.floor(blocks / 2), blocks - 1]) {
      const forged = forgeHeaderChain(collected.preimages, collected.result.agreedHead, at);
      const signer = countingSigner();
      const reports: ExecutionReport[] = [];
      await expect(
        runProof(
          { signer, teeImageHash: new Uint8Array(32), executor: executor(true, reports) },
          forged.witness,
        ),
      ).rejects.toBeInstanceOf(OutputRootMismatchError);
      expect(signer.calls).toBe(0);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ mode: "sequential", fallback: { verifiedBlocks: at } });
      expect(reports[0]!.fallback!.reason).toMatch(/sealed to .*, not the header the witness carries/);
    }
  }, 600_000);
});
