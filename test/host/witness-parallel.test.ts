/**
 * The host's parallel witness collection (docs/host.md "Parallel witness collection") against real processes:
 * anvil with the L1 contracts, our node in L1 mode, the batcher posting blobs. A range holding a user deposit
 * (sent through the portal on L1) and a reverting transaction is collected
 * (a) sequentially and on two worker threads (each with its own fetching oracle): the parallel run executes on the
 *     workers, every block's hash chained (no fallback), to the node's output roots; both witnesses replay in the
 *     enclave's runProof to the same signed proposals;
 * (b) through an L2 endpoint that forges the range's headers by number from the middle on (another mixHash, the
 *     later headers re-chained onto it): the chain of hashes breaks at the forged block, the collection falls back
 *     to sequential execution and gives the same witness result and signed proposals as (a);
 * (c) forwarded (`run: "forward"`, docs/host.md "Forwarded witnesses"): derivation only, the node's block witnesses
 *     (debug_executePayload of each derived payload, which the node answers from its witness records, no block
 *     fetched) sent whole with the chain witness: the node's roots, and the enclave signs for it, sequentially and
 *     on two workers, what it signs for (a);
 * (c') forwarded over db-get (no block witnesses to forward): the program's own run, as without forwarding;
 * (d) a node whose block witness lacks values (the first block's state nodes dropped): the enclave refuses the
 *     forwarded witness (MissingWitnessError), and the ProofService, told so, collects again with the program and
 *     gets the proof signed;
 * (e) the ProofService proving the range in frames of three blocks (docs/host.md "Ranges in frames"): the frames'
 *     per-block proposals and the enclave's Aggregate are what one Prove over the whole range signs; the enclave
 *     refuses to aggregate proposals with a forged root or a gap; a node that names a wrong root at a frame's
 *     boundary gets the proof refused with nothing signed.
 */
import { createWalletClient, defineChain, type Hex, hexToBytes, http, parseEther, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositPortalAbi } from "../../contracts/index.js";
import type { Preimage } from "../../generated/protocol/index.js";
import {
  decodeHeader,
  devAccounts,
  encodeHeader,
  fromHex,
  keccak256,
  toHex,
  type BlockHeader,
} from "../../src/chain/index.js";
import { startTamperProxy, type TamperProxy } from "../../src/chain-rpc/proxy.test-support.js";
import {
  collectWitness,
  rpcWitnessSource,
  type RpcWitnessSourceOptions,
  stateSource,
  type WitnessCollection,
  type WitnessMetrics,
} from "../../src/host/index.js";
import type { BootInfo } from "../../src/proof/preimages/index.js";
import { BlockPool, type ExecutionReport, programExecutor } from "../../src/proof/program/index.js";
import { proofRequestOf, startInProcessProver } from "./in-process-prover.js";
import { countingSigner } from "../../src/proof/program/parallel/chain-witness.test-support.js";
import { runProof } from "../../enclave/prove.js";
import { type BatcherProcess, type L1Chain, startChainBatcher, startL1Chain } from "../node/l1-chain.js";
import { call } from "../node/helpers.js";
import { until } from "../proof/prove-chain.js";

/** Init code of a contract whose code is PUSH1 0 PUSH1 0 REVERT: every call to it reverts. */
const REVERTER_INIT: Hex = "0x6460006000fd6000526005601bf3";

let chain: L1Chain;
let batcher: BatcherProcess | undefined;
let proxy: TamperProxy | undefined;
let boot: BootInfo;
let agreedHash: Uint8Array;
let nodeRoots: string[];
let depositBlock: bigint;
let revertBlock: bigint;

const quantity = (n: bigint): Hex => `0x${n.toString(16)}`;
const output = (n: bigint) =>
  call<{ outputRoot: Hex; blockRef: { hash: Hex }; syncStatus: { safe_l2: { number: number } } }>(
    chain.node.url,
    "optimism_outputAtBlock",
    [quantity(n)],
  );

/** How many debug_executePayload witnesses the node answered so far, from its records and by executing (GET /metrics). */
async function payloadWitnessesAnswered(nodeUrl: string): Promise<{ record: number; execution: number }> {
  const text = await (await fetch(`${nodeUrl}/metrics`)).text();
  const count = (source: string): number => {
    const line = text
      .split("\n")
      .find((l) => l.startsWith(`node_witnesses_total{method="debug_executePayload",source="${source}"}`));
    return line === undefined ? 0 : Number(line.split(" ").at(-1));
  };
  return { record: count("record"), execution: count("execution") };
}

/** The host's collection on `workers` threads (over db-get), or `forward`ed over the node's debug_executePayload. */
function collect(l2RpcUrl: string, workers: number | "forward"): Promise<WitnessCollection> {
  return collectWitness({
    boot,
    agreedL2HeadHash: agreedHash,
    l1RpcUrl: chain.l1.anvil.rpcUrl,
    l1BeaconUrl: chain.l1.anvil.beaconUrl,
    l2RpcUrl,
    rollupConfig: chain.rollup,
    ...(workers === "forward"
      ? {
          l2State: async (client) => stateSource("execute-payload", { client, rollupConfig: chain.rollup }),
          chainWitness: true,
          run: "forward" as const,
        }
      : workers > 1
        ? { parallel: { workers, strategy: "db-get" as const } }
        : {}),
  });
}

/** The enclave's proof over `preimages` (sequential execution, or on `pool`), signed by `signer`. */
function prove(
  preimages: readonly Preimage[],
  signer: ReturnType<typeof countingSigner>,
  pool?: { readonly pool: BlockPool; readonly reports: ExecutionReport[] },
) {
  return runProof(
    {
      signer,
      teeImageHash: new Uint8Array(32),
      executor: programExecutor(
        () => ({ rollupConfig: chain.rollup }),
        pool === undefined ? {} : { pool: pool.pool, onExecuted: (report) => pool.reports.push(report) },
      ),
    },
    preimages,
  );
}

/** An in-process prover whose witness comes from the chain's L1 and `l2RpcUrl`; long ranges in frames if asked. */
function proverOver(
  l2RpcUrl: string,
  signer: ReturnType<typeof countingSigner>,
  options: { readonly witness?: Partial<RpcWitnessSourceOptions>; readonly maxBlocksPerFrame?: bigint } = {},
) {
  return startInProcessProver({
    signer,
    rollupConfig: chain.rollup,
    witness: rpcWitnessSource({
      l1RpcUrl: chain.l1.anvil.rpcUrl,
      l1BeaconUrl: chain.l1.anvil.beaconUrl,
      l2RpcUrl,
      rollupConfig: chain.rollup,
      ...options.witness,
    }),
    ...(options.maxBlocksPerFrame === undefined
      ? {}
      : { frames: { maxBlocksPerFrame: options.maxBlocksPerFrame, l2RpcUrl } }),
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
  const reverted = await receiptOf(
    await wallet.sendTransaction({ to: deployed.contractAddress!, gas: 100_000n, ...fees }),
  );
  expect(reverted.status).toBe("reverted");
  revertBlock = reverted.blockNumber;
  const l1Wallet = createWalletClient({
    account: privateKeyToAccount(devAccounts(7)[6]!.privateKey),
    chain: chain.l1.anvil.chain,
    transport: http(chain.l1.anvil.rpcUrl, { timeout: 60_000 }),
  });
  const deposit = await l1Wallet.writeContract({
    address: chain.l1.deployment.depositPortal,
    abi: depositPortalAbi,
    functionName: "depositTransaction",
    args: [devAccounts(7)[6]!.address, parseEther("0.5"), 100_000n, false, "0x"],
    value: parseEther("1"),
  });
  const receipt = await chain.l1.anvil.client.waitForTransactionReceipt({
    hash: deposit,
    pollingInterval: 100,
  });
  expect(receipt.status).toBe("success");
  // Transfers go on until the user deposit is in an L2 block; one more after it ends the range.
  let found: bigint | undefined;
  let scanned = agreed + 1n;
  for (let i = 1; found === undefined; i++) {
    const last = await transfer(i);
    for (; scanned <= last && found === undefined; scanned++) {
      const block = await call<{ transactions: { type: Hex }[] } | null>(
        chain.node.url,
        "eth_getBlockByNumber",
        [quantity(scanned), true],
      );
      if (block === null) break;
      if (block.transactions.filter((tx) => tx.type === "0x7e").length >= 2) found = scanned;
    }
    if (i > 120) throw new Error("the deposit never reached L2");
  }
  depositBlock = found;
  const claimed = await transfer(1000);
  batcher = startChainBatcher(chain);
  await until(
    "the safe head to pass the claimed block",
    async () => ((await output(0n)).syncStatus.safe_l2.number >= Number(claimed) ? true : undefined),
    900_000,
  );
  const l1Head = await chain.l1.anvil.client.getBlock({ blockTag: "latest" });
  const agreedOut = await output(agreed);
  nodeRoots = [];
  for (let n = agreed + 1n; n <= claimed; n++) nodeRoots.push((await output(n)).outputRoot);
  agreedHash = hexToBytes(agreedOut.blockRef.hash);
  boot = {
    l1Head: hexToBytes(l1Head.hash),
    l1HeadNumber: l1Head.number,
    agreedOutputRoot: hexToBytes(agreedOut.outputRoot),
    claimedOutputRoot: hexToBytes(nodeRoots.at(-1)! as Hex),
    claimedL2BlockNumber: claimed,
    chainId: chain.rollup.l2ChainId,
    proposer: hexToBytes(devAccounts(3)[2]!.address),
    intermediateBlockInterval: 2n,
  };
}, 1_500_000);

afterAll(async () => {
  await proxy?.close();
  await batcher?.stop().catch(() => undefined);
  await chain?.stop();
});

describe("the host's witness collection on worker threads", () => {
  let sequential: WitnessCollection;
  let parallel: WitnessCollection;
  let fromSequential: Awaited<ReturnType<typeof prove>>;
  const signer = countingSigner();

  it("(a) executes on the workers to the node's roots; the enclave signs what it signs for the sequential witness", async () => {
    sequential = await collect(chain.node.url, 1);
    parallel = await collect(chain.node.url, 2);
    // The range holds the reverting transaction and the user deposit.
    for (const block of [revertBlock, depositBlock]) {
      expect(block).toBeGreaterThan(sequential.result.startBlock);
      expect(block).toBeLessThanOrEqual(boot.claimedL2BlockNumber);
    }
    expect(sequential.metrics.execution.mode).toBe("sequential");
    expect(parallel.metrics.execution).toMatchObject({ mode: "parallel", workers: 2 });
    expect(parallel.metrics.execution.fallback).toBeUndefined();
    expect(parallel.metrics.execution.peakWorkerHeapBytes).toBeGreaterThan(0);
    expect(parallel.result.outputRoots.map(toHex)).toEqual(nodeRoots);
    expect(parallel.result.outputRoots.map(toHex)).toEqual(sequential.result.outputRoots.map(toHex));
    expect(parallel.result.blocks.map((b) => toHex(b.hash))).toEqual(
      sequential.result.blocks.map((b) => toHex(b.hash)),
    );
    fromSequential = await prove(sequential.preimages, signer);
    const fromParallel = await prove(parallel.preimages, signer);
    expect(fromParallel).toEqual(fromSequential);
    expect(toHex(fromParallel.Tee.proposals.at(-1)!.output_root)).toBe(nodeRoots.at(-1));
  }, 900_000);

  it("(b) headers forged from the middle of the range on break the chain of hashes: sequential fallback, same proof", async () => {
    const count = nodeRoots.length;
    const at = boot.claimedL2BlockNumber - BigInt(count) + 1n + BigInt(Math.floor(count / 2));
    const forged = new Map<string, Hex>();
    let parentHash: Uint8Array | undefined;
    for (let n = at; n <= boot.claimedL2BlockNumber; n++) {
      const real = decodeHeader(
        fromHex(await call<Hex>(chain.node.url, "debug_getRawHeader", [quantity(n)])),
      );
      const header: BlockHeader =
        n === at
          ? { ...real, mixHash: keccak256(new TextEncoder().encode("forged")) }
          : { ...real, parentHash: parentHash! };
      const rlp = encodeHeader(header);
      forged.set(quantity(n), toHex(rlp));
      parentHash = keccak256(rlp);
    }
    const l2 = await startTamperProxy(chain.node.url);
    proxy = l2;
    let forgedAnswers = 0;
    l2.rpc = async (request, forward) => {
      const value =
        request.method === "debug_getRawHeader" ? forged.get(String(request.params[0])) : undefined;
      if (value === undefined) return forward(request);
      forgedAnswers++;
      return { jsonrpc: "2.0", id: 1, result: value };
    };
    const fellBack = await collect(l2.url, 2);
    expect(forgedAnswers).toBeGreaterThan(0);
    // The break is found at the forged block because this chain's batcher posts the range in one span batch. Were a
    // batch boundary right after the forged block, derivation ahead of execution would refuse the forged parent hash
    // first and fall back with 0 verified blocks (same proof): a chain shared with other files must keep that layout.
    expect(fellBack.metrics.execution).toMatchObject({
      mode: "sequential",
      workers: 2,
      fallback: { verifiedBlocks: Number(at - sequential.result.startBlock - 1n) },
    });
    expect(fellBack.metrics.execution.fallback!.reason).toMatch(
      /sealed to .*, not the header the witness carries/,
    );
    expect(fellBack.result.outputRoots.map(toHex)).toEqual(nodeRoots);
    // The sequential witness's proof from (a): signatures are deterministic, so proving it again gives the same.
    expect(await prove(fellBack.preimages, signer)).toEqual(fromSequential);
  }, 900_000);

  it("(c) forwarded: the node's block witnesses sent whole; the enclave signs what it signs for (a), sequentially and on two workers", async () => {
    const answeredBefore = await payloadWitnessesAnswered(chain.node.url);
    const forwarded = await collect(chain.node.url, "forward");
    expect(forwarded.metrics.execution).toMatchObject({ mode: "forwarded", workers: 1 });
    expect(forwarded.metrics.execution.fallback).toBeUndefined();
    const blocks = Number(boot.claimedL2BlockNumber - forwarded.result.startBlock);
    expect(forwarded.metrics.fetches["l2-block-witness"]).toBe(blocks);
    expect(forwarded.metrics.requestsByMethod["debug_executePayload"]).toBe(blocks);
    // The derived payloads were asked for, not the node's blocks fetched and sent back; each is a sealed block's own
    // payload, so the node answered every one from its witness record without executing it.
    expect(forwarded.metrics.requestsByMethod["eth_getBlockByNumber"] ?? 0).toBe(0);
    const answeredAfter = await payloadWitnessesAnswered(chain.node.url);
    expect(answeredAfter.record - answeredBefore.record).toBe(blocks);
    expect(answeredAfter.execution - answeredBefore.execution).toBe(0);
    expect(forwarded.result.outputRoots.map(toHex)).toEqual(nodeRoots);
    expect(forwarded.result.blocks.map((b) => toHex(b.hash))).toEqual(
      sequential.result.blocks.map((b) => toHex(b.hash)),
    );
    expect(await prove(forwarded.preimages, signer)).toEqual(fromSequential);
    const pool = new BlockPool({ workers: 2 });
    try {
      const reports: ExecutionReport[] = [];
      expect(await prove(forwarded.preimages, signer, { pool, reports })).toEqual(fromSequential);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ mode: "parallel", workers: 2 });
      expect(reports[0]!.fallback).toBeUndefined();
    } finally {
      await pool.close();
    }
  }, 900_000);

  it("(c') forwarding over a strategy without block witnesses (db-get) falls back to the program's run", async () => {
    const fellBack = await collectWitness({
      boot,
      agreedL2HeadHash: agreedHash,
      l1RpcUrl: chain.l1.anvil.rpcUrl,
      l1BeaconUrl: chain.l1.anvil.beaconUrl,
      l2RpcUrl: chain.node.url,
      rollupConfig: chain.rollup,
      run: "forward",
    });
    expect(fellBack.metrics.execution).toMatchObject({
      mode: "sequential",
      fallback: { reason: "the db-get strategy has no block witnesses to forward", verifiedBlocks: 0 },
    });
    expect(fellBack.result.outputRoots.map(toHex)).toEqual(nodeRoots);
    expect(await prove(fellBack.preimages, signer)).toEqual(fromSequential);
  }, 900_000);

  it("(c'') a block witness the node refuses in the middle of the range: the forwarded run falls back to the program's run, the same proof", async () => {
    // Refused once: the program's own run asks for the same witness again (its prefetch) and gets it.
    const l2 = await startTamperProxy(chain.node.url);
    const agreedNumber = boot.claimedL2BlockNumber - BigInt(nodeRoots.length);
    const refusedParent = (await output(agreedNumber + 1n)).blockRef.hash;
    let refused = 0;
    l2.rpc = async (request, forward) => {
      if (request.method !== "debug_executePayload" || request.params[0] !== refusedParent || refused > 0)
        return forward(request);
      refused++;
      return { jsonrpc: "2.0", error: { code: -32000, message: "witness unavailable" } };
    };
    try {
      const fellBack = await collect(l2.url, "forward");
      expect(refused).toBeGreaterThan(0);
      expect(fellBack.metrics.execution).toMatchObject({ mode: "sequential" });
      expect(fellBack.metrics.execution.fallback?.reason).toContain(
        `L2 block ${agreedNumber + 2n} failed: its block witness`,
      );
      expect(fellBack.result.outputRoots.map(toHex)).toEqual(nodeRoots);
      expect(await prove(fellBack.preimages, signer)).toEqual(fromSequential);
    } finally {
      await l2.close();
    }
  }, 900_000);

  it("(d) a block witness that lacks values: the enclave refuses the forwarded witness, the proof service collects again with the program", async () => {
    const l2 = await startTamperProxy(chain.node.url);
    let dropped = 0;
    l2.rpc = async (request, forward) => {
      const answer = await forward(request);
      if (request.method !== "debug_executePayload" || request.params[0] !== toHex(agreedHash)) return answer;
      if (typeof answer === "string" || !("result" in answer)) return answer;
      const witness = answer.result as { state: unknown[] };
      dropped += witness.state.length;
      return { ...answer, result: { ...witness, state: [] } };
    };
    try {
      const forwarded = await collect(l2.url, "forward");
      expect(dropped).toBeGreaterThan(0);
      expect(forwarded.metrics.execution.mode).toBe("forwarded");
      const before = signer.calls;
      await expect(prove(forwarded.preimages, signer)).rejects.toMatchObject({ name: "MissingWitnessError" });
      expect(signer.calls).toBe(before);

      const collected: WitnessMetrics[] = [];
      const prover = await proverOver(l2.url, signer, {
        witness: {
          witnessStrategy: "execute-payload",
          run: "forward",
          onCollected: (metrics) => collected.push(metrics),
        },
      });
      try {
        const result = await prover.service.prove(
          proofRequestOf(boot, agreedHash),
          new AbortController().signal,
        );
        expect(collected.map((metrics) => metrics.execution.mode)).toEqual(["forwarded", "sequential"]);
        expect(result.Tee.proposals.map((p) => toHex(p.output_root))).toEqual(
          fromSequential.Tee.proposals.map((p) => toHex(p.output_root)),
        );
        expect(toHex(result.Tee.aggregate_proposal.output_root)).toBe(nodeRoots.at(-1));
      } finally {
        await prover.close();
      }
    } finally {
      await l2.close();
    }
  }, 900_000);

  it("(e) in frames of three blocks: the frames' proposals and the enclave's aggregate are those of one Prove", async () => {
    const collected: WitnessMetrics[] = [];
    const prover = await proverOver(chain.node.url, signer, {
      witness: { onCollected: (metrics) => collected.push(metrics) },
      maxBlocksPerFrame: 3n,
    });
    try {
      const result = await prover.service.prove(
        proofRequestOf(boot, agreedHash),
        new AbortController().signal,
      );
      expect(collected).toHaveLength(Math.ceil(nodeRoots.length / 3));
      expect(nodeRoots.length).toBeGreaterThan(3);
      expect(result.Tee.proposals).toEqual(fromSequential.Tee.proposals);
      expect(result.Tee.aggregate_proposal).toEqual(fromSequential.Tee.aggregate_proposal);

      // The enclave aggregates only proposals it signed that chain into one range.
      const before = signer.calls;
      const aggregate = (proposals: typeof result.Tee.proposals) =>
        prover.enclave.aggregate({
          chain_id: chain.rollup.l2ChainId,
          proposer: boot.proposer,
          intermediate_block_interval: boot.intermediateBlockInterval,
          schedule_l2_block_number: boot.claimedL2BlockNumber,
          proposals,
        });
      expect(await aggregate(result.Tee.proposals)).toEqual(fromSequential.Tee.aggregate_proposal);
      const forged = result.Tee.proposals.map((p, i) =>
        i === 2
          ? { ...p, output_root: new Uint8Array(32).fill(0xee) }
          : i === 3
            ? { ...p, prev_output_root: new Uint8Array(32).fill(0xee) }
            : p,
      );
      await expect(aggregate(forged)).rejects.toMatchObject({
        name: "EnclaveRefusedError",
        enclaveMessage: expect.stringMatching(
          /^AggregationRefusedError: proposal 2 .* not signed by this enclave/,
        ),
      });
      await expect(
        aggregate([result.Tee.proposals[0]!, ...result.Tee.proposals.slice(2)]),
      ).rejects.toMatchObject({
        enclaveMessage: expect.stringMatching(/^AggregationRefusedError: proposal 1 is for block/),
      });
      expect(signer.calls).toBe(before + 1);
    } finally {
      await prover.close();
    }
  }, 900_000);

  it("(e') a node naming a wrong root at a frame's boundary: the proof is refused, nothing is signed", async () => {
    const l2 = await startTamperProxy(chain.node.url);
    const boundary = quantity(boot.claimedL2BlockNumber - BigInt(nodeRoots.length) + 3n);
    let forgedAnswers = 0;
    l2.rpc = async (request, forward) => {
      const answer = await forward(request);
      if (request.method !== "debug_getRawHeader" || request.params[0] !== boundary) return answer;
      if (typeof answer === "string" || !("result" in answer)) return answer;
      forgedAnswers += 1;
      const header = decodeHeader(fromHex(answer.result as string));
      return {
        ...answer,
        result: toHex(encodeHeader({ ...header, stateRoot: new Uint8Array(32).fill(0x5e) })),
      };
    };
    const prover = await proverOver(l2.url, signer, { maxBlocksPerFrame: 3n });
    try {
      const before = signer.calls;
      await expect(
        prover.service.prove(proofRequestOf(boot, agreedHash), new AbortController().signal),
      ).rejects.toThrow(/claim|output root/i);
      expect(forgedAnswers).toBeGreaterThan(0);
      expect(signer.calls).toBe(before);
    } finally {
      await prover.close();
      await l2.close();
    }
  }, 900_000);
});
