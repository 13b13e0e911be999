/**
 * The proof program against a real devnet made of processes (docs/proof.md "Tests"): anvil with the L1
 * contracts (src/devnet/l1), the devnet's rollup.json, our node in L1 mode and the batcher posting blob
 * channels. L2 transfers are sent, batched to L1 and derived safe by the node; then
 * (a) the program run natively over the host's fetching oracle (src/host/witness) on a range of several blocks
 *     reproduces the node's output roots (optimism_outputAtBlock);
 * (b) the recorded witness, loaded as the enclave loads a Prove frame (every hash-keyed value verified), replays
 *     offline to the same roots, and the enclave's runProof signs journals over them;
 * (c) a wrong claimed output root is refused and nothing is signed;
 * (d) a withheld preimage is refused (MissingWitnessError), never read as a default;
 * (e) a tampered blob element, or a precompile-result key, is refused;
 * (f) the host's ProofService proves the range through an enclave server running the program;
 * (g) tampered answers from the L2 node, the L1 and the beacon API are refused.
 * Parallel execution of the same range (docs/proof.md "Parallel execution"), whose blocks also hold a reverting
 * transaction: the chain witness
 * (a) executes on two worker threads to the node's output roots, every block's hash chained (no fallback), the
 *     same roots as sequential execution;
 * (b) gives the enclave's runProof the same signed proposals in parallel and sequentially;
 * (c) with a header of the range forged (in the middle, at the end) and a claim over the forged chain, breaks
 *     the chain of hashes at the forged block, is executed sequentially and refused, nothing signed.
 */
import { createWalletClient, defineChain, type Hex, hexToBytes, http, parseEther, parseGwei } from "viem";
import { depositPortalAbi, systemConfigAbi } from "../../contracts/index.js";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preimage } from "../../generated/protocol/index.js";
import { devAccounts, PreimageKeyType, toHex } from "../../src/chain/index.js";
import {
  collectWitness,
  rpcWitnessSource,
  type WitnessCollection,
  WitnessFetchError,
  type WitnessMetrics,
} from "../../src/host/index.js";
import { DataMismatchError } from "../../src/chain-rpc/index.js";
import { startTamperProxy } from "../../src/chain-rpc/proxy.test-support.js";
import { proofRequestOf, startInProcessProver } from "../host/in-process-prover.js";
import {
  OutputRootMismatchError,
  recoverJournalSigner,
  perBlockJournals,
} from "../../src/proof/onchain/index.js";
import {
  type BootInfo,
  BootKey,
  isBootPreimageKey,
  loadVerifiedPreimages,
  PreimageTable,
  preimageKeyOf,
  readBootInfo,
  u64be,
  bootPreimageKey,
} from "../../src/proof/preimages/index.js";
import {
  BlockPool,
  type ExecutionReport,
  InvalidWitnessError,
  MissingWitnessError,
  OfflineOracle,
  ProgramError,
  programExecutor,
  RefusedPreimageKeyError,
  refusePrecompileKeys,
  runProgram,
} from "../../src/proof/program/index.js";
import { runProof } from "../../enclave/prove.js";
import {
  countingSigner,
  forgeHeaderChain,
} from "../../src/proof/program/parallel/chain-witness.test-support.js";
import { type BatcherProcess, type L1Chain, startChainBatcher, startL1Chain } from "../node/l1-chain.js";

const NEW_GAS_LIMIT = 45_000_000n;
/** Init code of a contract whose code is PUSH1 0 PUSH1 0 REVERT: every call to it reverts. */
const REVERTER_INIT: Hex = "0x6460006000fd6000526005601bf3";

/** Blocks in the proven range (from the agreed block's transfer to one after the deposit). */
let range: bigint;
/** The L2 block of the range holding the user deposit. */
let depositInRange: bigint;
/** The L2 block of the range holding a transaction that reverts. */
let revertBlock: bigint;

let chain: L1Chain;
let batcher: BatcherProcess | undefined;
let boot: BootInfo;
let agreedHash: Uint8Array;
let nodeRoots: Uint8Array[];
let collected: WitnessCollection;
const pool = new BlockPool({ workers: 2 });

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

interface Output {
  outputRoot: Hex;
  blockRef: { hash: Hex; number: number };
  syncStatus: { safe_l2: { number: number } };
}

const output = (n: bigint) => call<Output>(chain.node.url, "optimism_outputAtBlock", [`0x${n.toString(16)}`]);

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 240_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function withBoot(preimages: readonly Preimage[], index: number, value: Uint8Array): Preimage[] {
  return preimages.map(([key, v]): Preimage =>
    isBootPreimageKey(key, index) ? [bootPreimageKey(index), value] : [key, v],
  );
}

function replay(preimages: readonly Preimage[]) {
  refusePrecompileKeys(preimages);
  const store = loadVerifiedPreimages(preimages);
  return runProgram({
    boot: readBootInfo(store),
    oracle: new OfflineOracle(store),
    rollupConfig: chain.rollup,
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
  // On L1: a deposit through the portal and a gas limit change. The L2 block that adopts their L1 block as its
  // origin starts an epoch with the user deposit and the new gas limit; the range is proven across it.
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
  // Transfers go on until the user deposit is in an L2 block; one more after it ends the range.
  let depositBlock: bigint | undefined;
  let scanned = agreed + 1n;
  for (let i = 1; depositBlock === undefined; i++) {
    const last = await transfer(i);
    for (; scanned <= last && depositBlock === undefined; scanned++) {
      const block = await call<{ transactions: { type: Hex }[] } | null>(
        chain.node.url,
        "eth_getBlockByNumber",
        [`0x${scanned.toString(16)}`, true],
      );
      // A pre-confirmed receipt can name the block being built: scan sealed blocks only.
      if (block === null) break;
      if (block.transactions.filter((tx) => tx.type === "0x7e").length >= 2) depositBlock = scanned;
    }
    if (i > 120) throw new Error("the deposit never reached L2");
  }
  const claimed = await transfer(1000);
  range = claimed - agreed;
  depositInRange = depositBlock;
  batcher = startChainBatcher(chain);
  // The node's derived safe head passes the claimed block: its batches are on L1.
  // Generous: on a loaded 2-core machine each blob's KZG check costs the node seconds of CPU.
  let safe = -1;
  await until(
    "the safe head to pass the claimed block",
    async () => {
      safe = (await output(0n)).syncStatus.safe_l2.number;
      return safe >= Number(claimed) ? true : undefined;
    },
    600_000,
  ).catch((error: unknown) => {
    const tail = (text: string) => text.split("\n").slice(-15).join("\n");
    throw new Error(
      `${(error as Error).message} (claimed ${claimed}, safe ${safe})\nbatcher:\n${tail(batcher?.output() ?? "")}\nnode:\n${tail(chain.node.output())}`,
    );
  });
  const l1Head = await chain.l1.anvil.client.getBlock({ blockTag: "latest" });
  const agreedOut = await output(agreed);
  nodeRoots = [];
  for (let n = agreed + 1n; n <= claimed; n++) nodeRoots.push(hexToBytes((await output(n)).outputRoot));
  agreedHash = hexToBytes(agreedOut.blockRef.hash);
  boot = {
    l1Head: hexToBytes(l1Head.hash),
    l1HeadNumber: l1Head.number,
    agreedOutputRoot: hexToBytes(agreedOut.outputRoot),
    claimedOutputRoot: nodeRoots[nodeRoots.length - 1]!,
    claimedL2BlockNumber: claimed,
    chainId: chain.rollup.l2ChainId,
    proposer: hexToBytes(devAccounts(3)[2]!.address),
    intermediateBlockInterval: 2n,
  };
  collected = await collectWitness({
    boot,
    agreedL2HeadHash: agreedHash,
    l1RpcUrl: chain.l1.anvil.rpcUrl,
    l1BeaconUrl: chain.l1.anvil.beaconUrl,
    l2RpcUrl: chain.node.url,
    rollupConfig: chain.rollup,
  });
}, 1_200_000);

afterAll(async () => {
  await pool.close();
  await batcher?.stop().catch(() => undefined);
  await chain?.stop();
});

describe("the proof program on the devnet", () => {
  it("(a) run natively over the fetching oracle, reproduces the node's output roots", async () => {
    const { result, metrics } = collected;
    expect(result.startBlock).toBe(boot.claimedL2BlockNumber - range);
    expect(result.outputRoots.map(toHex)).toEqual(nodeRoots.map(toHex));
    // The range crosses the epoch that brought the deposit and the gas limit change.
    const gasLimit = async (n: bigint) =>
      BigInt(
        (
          await call<{ gasLimit: Hex }>(chain.node.url, "eth_getBlockByNumber", [
            `0x${n.toString(16)}`,
            false,
          ])
        ).gasLimit,
      );
    expect(depositInRange).toBeGreaterThan(result.startBlock);
    expect(depositInRange).toBeLessThanOrEqual(boot.claimedL2BlockNumber);
    expect(await gasLimit(result.startBlock)).not.toBe(NEW_GAS_LIMIT);
    expect(await gasLimit(boot.claimedL2BlockNumber)).toBe(NEW_GAS_LIMIT);
    expect(metrics.preimageCount).toBe(collected.preimages.length);
    expect(metrics.witnessBytes).toBeGreaterThan(0);
    // The range's batches came in blobs: the witness carries blob elements.
    expect(collected.preimages.some(([key]) => key[0] === PreimageKeyType.Blob)).toBe(true);
    expect(metrics.fetches["state"] ?? 0).toBeGreaterThan(0);
    console.log(
      JSON.stringify({
        blocks: Number(range),
        preimages: metrics.preimageCount,
        witnessBytes: metrics.witnessBytes,
        fetches: metrics.fetches,
        fetchMs: Math.round(metrics.fetchMs),
        totalMs: Math.round(metrics.totalMs),
        program: metrics.program,
      }),
    );
  });

  it("(b) the recorded witness replays offline to the same roots, and the enclave signs them", async () => {
    const replayed = await replay(collected.preimages);
    expect(replayed.outputRoots.map(toHex)).toEqual(nodeRoots.map(toHex));
    const signer = countingSigner();
    const executor = programExecutor((id) =>
      id === chain.rollup.l2ChainId ? { rollupConfig: chain.rollup } : undefined,
    );
    const proof = await runProof({ signer, teeImageHash: new Uint8Array(32), executor }, collected.preimages);
    expect(proof.Tee.proposals.map((p) => toHex(p.output_root))).toEqual(nodeRoots.map(toHex));
    const journals = perBlockJournals(
      { boot, configHash: proof.Tee.proposals[0]!.config_hash, teeImageHash: new Uint8Array(32) },
      { startBlock: replayed.startBlock, outputRoots: replayed.outputRoots },
    );
    proof.Tee.proposals.forEach((p, i) =>
      expect(toHex(recoverJournalSigner(journals[i]!, p.signature))).toBe(toHex(signer.address)),
    );
  });

  it("(c) a wrong claimed output root is refused and nothing is signed", async () => {
    const wrong = boot.claimedOutputRoot.slice();
    wrong[31]! ^= 1;
    const preimages = withBoot(collected.preimages, BootKey.ClaimedOutputRoot, wrong);
    await expect(replay(preimages)).rejects.toBeInstanceOf(OutputRootMismatchError);
    const signer = countingSigner();
    const executor = programExecutor(() => ({ rollupConfig: chain.rollup }));
    await expect(
      runProof({ signer, teeImageHash: new Uint8Array(32), executor }, preimages),
    ).rejects.toBeInstanceOf(OutputRootMismatchError);
    expect(signer.calls).toBe(0);
    // The host refuses it the same way before any enclave is involved.
    await expect(
      collectWitness({
        boot: { ...boot, claimedOutputRoot: wrong },
        agreedL2HeadHash: agreedHash,
        l1RpcUrl: chain.l1.anvil.rpcUrl,
        l2RpcUrl: chain.node.url,
        rollupConfig: chain.rollup,
      }),
    ).rejects.toBeInstanceOf(OutputRootMismatchError);
    // A claim past what the L1 head's data derives is refused (not derivable, or its data is not in the witness).
    const far = withBoot(
      collected.preimages,
      BootKey.ClaimedL2BlockNumber,
      u64be(boot.claimedL2BlockNumber + 100_000n),
    );
    const farError = await replay(far).catch((e: unknown) => e);
    expect(farError).toBeInstanceOf(ProgramError);
    expect(["range-not-derived", "missing-preimage"]).toContain((farError as ProgramError).kind);
  });

  it("(d) a withheld preimage is refused as missing, never read as a default", async () => {
    const keyOf = (p: Preimage) => toHex(p[0]);
    const without = (drop: (p: Preimage, i: number) => boolean) =>
      collected.preimages.filter((p, i) => !drop(p, i));
    const nonBoot = collected.preimages.filter(([key]) => key[0] !== PreimageKeyType.Local);
    // The agreed output's opening, the agreed L2 header, and a sample across the record.
    const picks = [nonBoot[0]!, nonBoot[1]!];
    for (let i = 1; i <= 6; i++) picks.push(nonBoot[Math.floor((i * nonBoot.length) / 7)]!);
    let refused = 0;
    for (const pick of picks) {
      const outcome = await replay(without((p) => keyOf(p) === keyOf(pick))).then(
        (r) => r,
        (e: unknown) => e,
      );
      if (outcome instanceof MissingWitnessError) {
        expect(outcome.details.key).toContain(keyOf(pick).slice(2));
        refused++;
      } else {
        // A value only read to check it existed (a trie write's lookup) may be dispensable: then the result is
        // exactly the same, never a different one.
        expect(outcome).not.toBeInstanceOf(Error);
        expect((outcome as { outputRoots: Uint8Array[] }).outputRoots.map(toHex)).toEqual(
          nodeRoots.map(toHex),
        );
      }
    }
    expect(refused).toBeGreaterThanOrEqual(2);
  });

  it("(e) a tampered blob element or a precompile-result key is refused", async () => {
    const index = collected.preimages.findIndex(([key]) => key[0] === PreimageKeyType.Blob);
    expect(index).toBeGreaterThan(-1);
    const tampered = collected.preimages.map((p, i): Preimage => {
      if (i !== index) return p;
      const value = p[1].slice();
      value[31]! ^= 1;
      return [p[0], value];
    });
    const error = await replay(tampered).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidWitnessError);
    expect((error as InvalidWitnessError).details.what).toMatch(/^blob /);
    // Two elements swapped: each is a valid field element, the blob is not the committed one.
    const blobIndexes = collected.preimages.flatMap(([key], i) =>
      key[0] === PreimageKeyType.Blob ? [i] : [],
    );
    const value = (i: number) => toHex(collected.preimages[i]![1]);
    const i1 = blobIndexes.find((i) => /[1-9a-f]/.test(value(i).slice(2)))!;
    const i2 = blobIndexes.find((i) => value(i) !== value(i1))!;
    const swapped = collected.preimages.map((p, i): Preimage => {
      if (i === i1) return [p[0], collected.preimages[i2]![1]];
      if (i === i2) return [p[0], collected.preimages[i1]![1]];
      return p;
    });
    expect(i1).toBeDefined();
    expect(i2).toBeDefined();
    expect(await replay(swapped).catch((e: unknown) => e)).toBeInstanceOf(InvalidWitnessError);
    const withPrecompile: Preimage[] = [
      ...collected.preimages,
      [preimageKeyOf("Precompile", new Uint8Array(31).fill(7)), new Uint8Array([1])],
    ];
    const signer = countingSigner();
    await expect(
      runProof(
        {
          signer,
          teeImageHash: new Uint8Array(32),
          executor: programExecutor(() => ({ rollupConfig: chain.rollup })),
        },
        withPrecompile,
      ),
    ).rejects.toBeInstanceOf(RefusedPreimageKeyError);
    expect(signer.calls).toBe(0);
  });

  it("(f) ProofService with the witness source and an enclave running the program returns signed proposals", async () => {
    const signer = countingSigner();
    const collectedMetrics: WitnessMetrics[] = [];
    const prover = await startInProcessProver({
      signer,
      rollupConfig: chain.rollup,
      witness: rpcWitnessSource({
        l1RpcUrl: chain.l1.anvil.rpcUrl,
        l1BeaconUrl: chain.l1.anvil.beaconUrl,
        l2RpcUrl: chain.node.url,
        rollupConfig: chain.rollup,
        onCollected: (m) => collectedMetrics.push(m),
      }),
    });
    const { service } = prover;
    try {
      const request = proofRequestOf(boot, agreedHash);
      const result = await service.prove(request, new AbortController().signal);
      expect(result.Tee.proposals.map((p) => toHex(p.output_root))).toEqual(nodeRoots.map(toHex));
      expect(toHex(result.Tee.aggregate_proposal.output_root)).toBe(toHex(boot.claimedOutputRoot));
      expect(signer.calls).toBe(Number(range) + 1);
      expect(collectedMetrics).toHaveLength(1);
      // A wrong claim fails at the witness, before the enclave: nothing more is signed.
      const wrong = boot.claimedOutputRoot.slice();
      wrong[0]! ^= 1;
      await expect(
        service.prove({ ...request, claimed_l2_output_root: wrong }, new AbortController().signal),
      ).rejects.toBeInstanceOf(OutputRootMismatchError);
      expect(signer.calls).toBe(Number(range) + 1);
    } finally {
      await prover.close();
    }
  });

  it("(g) the host checks every fetched value: tampered answers from the L2 node, the L1 and the beacon API are refused", async () => {
    const l2 = await startTamperProxy(chain.node.url);
    const l1 = await startTamperProxy(chain.l1.anvil.rpcUrl);
    const flip = (hex: string, at: number) =>
      `${hex.slice(0, at)}${hex[at] === "0" ? "1" : "0"}${hex.slice(at + 1)}`;
    const collect = (agreedL2HeadHash = agreedHash) =>
      collectWitness({
        boot,
        agreedL2HeadHash,
        l1RpcUrl: l1.url,
        l2RpcUrl: l2.url,
        rollupConfig: chain.rollup,
      }).catch((e: unknown) => e);
    try {
      // The agreed head: its raw header altered in transit.
      l2.rpc = async (request, forward) => {
        const answer = await forward(request);
        if (request.method !== "debug_getRawHeader") return answer;
        return { ...answer, result: flip(answer.result as string, 40) };
      };
      expect(await collect()).toBeInstanceOf(WitnessFetchError);
      // A head whose output root is not the agreed one: refused before any enclave could be asked.
      l2.rpc = (request, forward) => forward(request);
      const other = hexToBytes((await output(boot.claimedL2BlockNumber)).blockRef.hash);
      const wrongHead = await collect(other);
      expect(wrongHead).toBeInstanceOf(WitnessFetchError);
      expect((wrongHead as WitnessFetchError).details.hint).toMatch(/^starting-l2-output/);
      // L1 receipts that do not have the header's root.
      l1.rpc = async (request, forward) => {
        const answer = await forward(request);
        const receipts = answer.result as { cumulativeGasUsed: Hex }[] | null;
        if (request.method !== "eth_getBlockReceipts" || receipts === null || receipts.length === 0)
          return answer;
        const first = {
          ...receipts[0]!,
          cumulativeGasUsed: `0x${(BigInt(receipts[0]!.cumulativeGasUsed) + 1n).toString(16)}`,
        };
        return { ...answer, result: [first, ...receipts.slice(1)] };
      };
      expect(await collect()).toBeInstanceOf(DataMismatchError);
      // A blob changed in one field element by the beacon API.
      l1.rpc = (request, forward) => forward(request);
      l1.get = async (path, forward) => {
        const answer = await forward(path);
        if (!path.startsWith("/eth/v1/beacon/blobs/") || answer.status !== 200) return answer;
        const body = JSON.parse(answer.body) as { data: string[] };
        return { ...answer, body: JSON.stringify({ ...body, data: [flip(body.data[0]!, 2 + 64 * 5 + 10)] }) };
      };
      const blobError = await collect();
      expect(blobError).toBeInstanceOf(WitnessFetchError);
      expect((blobError as WitnessFetchError).details.hint).toMatch(/^l1-blob/);
      // A state node from debug_dbGet that does not hash to its key.
      l1.get = (path, forward) => forward(path);
      l2.rpc = async (request, forward) => {
        const answer = await forward(request);
        if (request.method !== "debug_dbGet" || typeof answer.result !== "string") return answer;
        return { ...answer, result: flip(answer.result, 10) };
      };
      const stateError = await collect();
      expect(stateError).toBeInstanceOf(WitnessFetchError);
      expect((stateError as WitnessFetchError).details.hint).toBe("state");
    } finally {
      await l2.close();
      await l1.close();
    }
  }, 600_000);
});

describe("parallel execution of the devnet range", () => {
  /** The same range's witness with every block's header (the chain witness the parallel path executes on). */
  let chained: WitnessCollection;
  const execution = (parallel: boolean, reports: ExecutionReport[]) =>
    programExecutor(() => ({ rollupConfig: chain.rollup }), {
      ...(parallel ? { pool } : {}),
      onExecuted: (report) => reports.push(report),
    });
  const run = (preimages: readonly Preimage[], parallel: boolean) => {
    const table = PreimageTable.fromPreimages(preimages);
    return runProgram({
      boot: readBootInfo(table),
      oracle: new OfflineOracle(table),
      rollupConfig: chain.rollup,
      ...(parallel ? { parallel: { pool, table } } : {}),
    });
  };

  beforeAll(async () => {
    chained = await collectWitness({
      boot,
      agreedL2HeadHash: agreedHash,
      l1RpcUrl: chain.l1.anvil.rpcUrl,
      l1BeaconUrl: chain.l1.anvil.beaconUrl,
      l2RpcUrl: chain.node.url,
      rollupConfig: chain.rollup,
      chainWitness: true,
    });
  }, 600_000);

  it("(a) runs on the workers to the node's roots, the same as sequential execution", async () => {
    // The range holds the reverting transaction, the deposit and the epoch with the new gas limit.
    expect(revertBlock).toBeGreaterThan(chained.result.startBlock);
    expect(revertBlock).toBeLessThanOrEqual(boot.claimedL2BlockNumber);
    expect(chained.result.outputRoots.map(toHex)).toEqual(nodeRoots.map(toHex));
    const sequential = await run(chained.preimages, false);
    const parallel = await run(chained.preimages, true);
    expect(sequential.execution.mode).toBe("sequential");
    expect(parallel.execution).toMatchObject({ mode: "parallel", workers: 2 });
    expect(parallel.execution.fallback).toBeUndefined();
    expect(parallel.outputRoots.map(toHex)).toEqual(sequential.outputRoots.map(toHex));
    expect(parallel.outputRoots.map(toHex)).toEqual(nodeRoots.map(toHex));
    expect(parallel.blocks.map((b) => toHex(b.hash))).toEqual(sequential.blocks.map((b) => toHex(b.hash)));
    console.log(
      JSON.stringify({
        blocks: parallel.blocks.length,
        preimages: chained.preimages.length,
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
        { signer, teeImageHash: new Uint8Array(32), executor: execution(parallel, reports) },
        chained.preimages,
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
      const forged = forgeHeaderChain(chained.preimages, chained.result.agreedHead, at);
      const signer = countingSigner();
      const reports: ExecutionReport[] = [];
      await expect(
        runProof(
          { signer, teeImageHash: new Uint8Array(32), executor: execution(true, reports) },
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
