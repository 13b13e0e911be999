/**
 * Witness strategies against real processes (docs/proof.md "Witness collection"): one devnet for the file (anvil on
 * a 1 s slot grid with the standard beacon API beside it, our node in L1 mode, the batcher posting blobs) and three
 * read replicas of the node answering as reth, geth and Base's node (`--rpc-surface`, docs/node-surfaces.md).
 *
 * - `auto` picks execute-payload on `full` and `base`, execution-witness on `reth` and `geth`, and says what the
 *   probe saw of each method;
 * - execute-payload (base), execution-witness in reth's and geth's forms (reth, geth) and proofs (reth, with a
 *   proof window) each collect a witness of a 2-block range (the transfer's block and the next) whose run gives
 *   the node's output roots, whose preimages the enclave's program replays offline and signs, and which holds every
 *   preimage of the db-get baseline (full: the same set, or a verified superset);
 * - the three witness forms parse to the same values (geth's ExtWitness from the geth replica; the map form built
 *   from the node's own reth-form witness); a forged JSON header and a map value under another hash are refused;
 * - an L2 that omits a trie node or code from its witnesses is refused with a MissingWitnessValueError naming the
 *   kind, the hash, the block and the endpoint;
 * - the host process with `--l2-rpc-url` on the geth replica and a beacon endpoint that answers only by slot proves
 *   the range (prover_prove through a local-mode enclave), and logs the strategy in one line;
 * - a host whose L2 endpoint serves none of the methods refuses to start, naming each method and the client flags;
 * - the proofs strategy executes a block whose deletion collapses a storage branch onto a leaf 7 nibbles deep.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWalletClient, defineChain, type Hex, hexToBytes, http, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preimage } from "../../generated/protocol/index.js";
import { devAccounts, keccak256, toHex } from "../../src/chain/index.js";
import {
  DataMismatchError,
  JsonRpcClient,
  parseExecutionWitness,
  witnessValues,
} from "../../src/chain-rpc/index.js";
import { startTamperProxy, type TamperProxy } from "../../src/chain-rpc/proxy.test-support.js";
import { type DevnetL1, startDevnetL1 } from "../../src/devnet/l1/bootstrap.js";
import { ensureDevnetRollupConfig } from "../../src/devnet/rollup-config.js";
import {
  chooseWitnessStrategy,
  collectWitness,
  MissingWitnessValueError,
  type WitnessCollection,
  WitnessFetchError,
  type WitnessStrategyName,
} from "../../src/host/index.js";
import { ProofsExecutor } from "../../src/host/witness/proofs.js";
import type { BootInfo } from "../../src/proof/preimages/index.js";
import { programExecutor } from "../../src/proof/program/index.js";
import type { RollupConfig } from "../../src/chain/index.js";
import { runProof } from "../../enclave/prove.js";
import { EnclaveSigner } from "../../enclave/signer.js";
import { type RunningEnclave, startEnclave } from "../../enclave/test/enclave-process.js";
import { testSystemConfig } from "../l1/support.js";
import { call, waitFor } from "../node/helpers.js";
import { type BatcherProcess, startBatcher } from "../node/l1-chain.js";
import { type NodeProcess, startNodeProcess } from "../node/spawn-node.js";
import { rpc } from "../proof/prove-chain.js";
import { type RunningHost, startHost } from "./spawn-host.js";

type Surface = "full" | "reth" | "geth" | "base";

const dir = mkdtempSync(join(tmpdir(), "witness-strategies-"));
let l1: DevnetL1;
let rollup: RollupConfig;
let rollupPath: string;
let node: NodeProcess;
let batcher: BatcherProcess | undefined;
const replicas = new Map<Surface, NodeProcess>();
const proxies: TamperProxy[] = [];
let boot: BootInfo;
let agreedHash: Uint8Array;
let agreed: bigint;
let claimed: bigint;
let nodeRoots: string[];
let params: Record<string, unknown>;
let baseline: WitnessCollection;

const urlOf = (surface: Surface): string => (surface === "full" ? node.url : replicas.get(surface)!.url);
const quantity = (n: bigint): Hex => `0x${n.toString(16)}`;

function collect(url: string, strategy: WitnessStrategyName): Promise<WitnessCollection> {
  return collectWitness({
    boot,
    agreedL2HeadHash: agreedHash,
    l1RpcUrl: l1.anvil.rpcUrl,
    l1BeaconUrl: l1.beacon!.url,
    l2RpcUrl: url,
    l2State: async () =>
      (await chooseWitnessStrategy(strategy, { client: new JsonRpcClient(url), rollupConfig: rollup }))
        .source,
    rollupConfig: rollup,
  });
}

const keysOf = (preimages: readonly Preimage[]): Set<string> => new Set(preimages.map(([key]) => toHex(key)));

beforeAll(async () => {
  l1 = await startDevnetL1({ systemConfig: testSystemConfig(), slots: { secondsPerSlot: 1 } });
  const written = await ensureDevnetRollupConfig(l1, { dataDir: dir, blockTime: 1 });
  rollup = written.config;
  rollupPath = written.path;
  node = await startNodeProcess({
    l1: { rpcUrl: l1.anvil.rpcUrl, rollupConfigPath: rollupPath, confirmations: 1 },
    flashblockIntervalMs: 100,
    callWorkers: 0,
    startTimeoutMs: 60_000,
  });
  // The batcher from the start: the safe head's wait below then overlaps the replicas' starts and the transfer.
  batcher = startBatcher({ l1RpcUrl: l1.anvil.rpcUrl, l2RpcUrl: node.url, rollupConfigPath: rollupPath });
  // The three replicas start side by side (each one a node process following the first).
  await Promise.all(
    (["reth", "geth", "base"] as const).map(async (surface) => {
      const window = surface === "geth" ? [] : ["--rpc-eth-proof-window", "100000"];
      const replica = await startNodeProcess({
        l1: { rpcUrl: l1.anvil.rpcUrl, rollupConfigPath: rollupPath, confirmations: 1 },
        extraArgs: ["--follow", node.wsUrl, "--rpc-surface", surface, ...window],
        callWorkers: 0,
        startTimeoutMs: 90_000,
      });
      replicas.set(surface, replica);
    }),
  );
  // One L2 transfer; the range is the block before it to the block after (a block with a transfer and one without:
  // a longer range only executes more blocks of the same kinds).
  const l2 = defineChain({
    id: node.chainId,
    name: "L2",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  const wallet = createWalletClient({
    account: privateKeyToAccount(devAccounts(8)[7]!.privateKey),
    chain: l2,
    transport: http(node.url, { timeout: 60_000 }),
  });
  const hash = await wallet.sendTransaction({
    to: devAccounts(10)[9]!.address,
    value: 1234n,
    maxFeePerGas: parseGwei("50"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const receipt = await waitFor(
    () =>
      call<{ blockNumber: Hex } | null>(node.url, "eth_getTransactionReceipt", [hash]).then(
        (r) => r ?? undefined,
      ),
    "the transfer's receipt",
    120_000,
    100,
  );
  const transferBlock = BigInt(receipt.blockNumber);
  agreed = transferBlock - 1n;
  claimed = transferBlock + 1n;
  // Generous: on a loaded 2-core machine each blob's KZG check costs the node seconds of CPU.
  await waitFor(
    async () =>
      (await call<{ safe_l2: { number: number } }>(node.url, "optimism_syncStatus", [])).safe_l2.number >=
      Number(claimed)
        ? true
        : undefined,
    "the safe head to pass the claimed block",
    600_000,
    250,
  );
  for (const [surface, replica] of replicas)
    await waitFor(
      async () => (BigInt(await call<Hex>(replica.url, "eth_blockNumber", [])) >= claimed ? true : undefined),
      `the ${surface} replica to reach the claimed block`,
      120_000,
      100,
    );
  const output = (n: bigint) =>
    call<{ outputRoot: Hex; blockRef: { hash: Hex } }>(node.url, "optimism_outputAtBlock", [quantity(n)]);
  const agreedOut = await output(agreed);
  nodeRoots = [];
  for (let n = agreed + 1n; n <= claimed; n++) nodeRoots.push((await output(n)).outputRoot);
  const head = await l1.anvil.client.getBlock({ blockTag: "latest" });
  agreedHash = hexToBytes(agreedOut.blockRef.hash);
  const proposer = devAccounts(3)[2]!.address;
  boot = {
    l1Head: hexToBytes(head.hash),
    l1HeadNumber: head.number,
    agreedOutputRoot: hexToBytes(agreedOut.outputRoot),
    claimedOutputRoot: hexToBytes(nodeRoots.at(-1)! as Hex),
    claimedL2BlockNumber: claimed,
    chainId: rollup.l2ChainId,
    proposer: hexToBytes(proposer),
    intermediateBlockInterval: 1n,
  };
  params = {
    l1_head: head.hash,
    l1_head_number: Number(head.number),
    agreed_l2_head_hash: agreedOut.blockRef.hash,
    agreed_l2_output_root: agreedOut.outputRoot,
    claimed_l2_output_root: nodeRoots.at(-1),
    claimed_l2_block_number: Number(claimed),
    proposer,
    intermediate_block_interval: 1,
  };
  baseline = await collect(node.url, "db-get");
}, 1_200_000);

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await batcher?.stop().catch(() => undefined);
  for (const replica of replicas.values()) await replica.stop();
  await node?.stop();
  await l1?.beacon?.stop();
  await l1?.anvil.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("auto picks the first strategy each surface serves", () => {
  it.each([
    ["full", "execute-payload"],
    ["base", "execute-payload"],
    ["reth", "execution-witness"],
    ["geth", "execution-witness"],
  ] as const)("%s: %s", async (surface, expected) => {
    const chosen = await chooseWitnessStrategy("auto", {
      client: new JsonRpcClient(urlOf(surface)),
      rollupConfig: rollup,
    });
    expect(chosen.source.name).toBe(expected);
    if (expected === "execution-witness")
      expect(chosen.probed.debug_executePayload).toMatch(
        surface === "reth" ? /Method not found/ : /does not exist\/is not available/,
      );
    else expect(chosen.probed).toEqual({ debug_executePayload: "ok" });
  });
});

describe("every strategy yields a witness the enclave accepts", () => {
  const cases: [Surface, WitnessStrategyName][] = [
    ["base", "execute-payload"],
    ["reth", "execution-witness"],
    ["geth", "execution-witness"],
    ["reth", "proofs"],
  ];
  it("db-get on the full surface (the baseline) gives the node's roots", () => {
    expect(baseline.result.outputRoots.map(toHex)).toEqual(nodeRoots);
    expect(baseline.metrics.fetches["state"] ?? 0).toBeGreaterThan(0);
    expect(baseline.metrics.fetches["l2-block-witness"]).toBeUndefined();
  });
  it.each(cases)(
    "%s surface, %s",
    async (surface, strategy) => {
      const collected = await collect(urlOf(surface), strategy);
      expect(collected.result.outputRoots.map(toHex)).toEqual(nodeRoots);
      // Every block of the range was fetched ahead.
      expect(collected.metrics.fetches["l2-block-witness"]).toBe(Number(claimed - agreed));
      const keys = keysOf(collected.preimages);
      for (const key of keysOf(baseline.preimages)) expect(keys.has(key), key).toBe(true);
      // The enclave's program over the preimages (each verified as it is loaded) signs the node's roots.
      const inner = EnclaveSigner.generate((n) => randomBytes(n));
      const executor = programExecutor((id) =>
        id === rollup.l2ChainId ? { rollupConfig: rollup } : undefined,
      );
      const proof = await runProof(
        { signer: inner, teeImageHash: new Uint8Array(32), executor },
        collected.preimages,
      );
      expect(proof.Tee.proposals.map((p) => toHex(p.output_root))).toEqual(nodeRoots);
    },
    600_000,
  );
});

describe("the proofs strategy on a deep storage trie", () => {
  /** Runtime: SSTORE(calldata[0..32], calldata[32..64]); behind an init code returning it. */
  const STORE_INIT: Hex = "0x6008600c60003960086000f36020356000355500";
  const word = (n: bigint): Hex => `0x${n.toString(16).padStart(64, "0")}`;

  it("a deletion whose remaining sibling is 7 nibbles deep: the sibling comes from the block's own proof", async () => {
    // Two slots whose hashed keys share their first 6 nibbles (a birthday search over 3 bytes): the storage trie
    // holding only them is an extension of 6 nibbles to a branch with two leaves, and clearing one collapses the
    // branch, reading the other leaf at a 7-nibble path, past the 16^5 key search.
    const seen = new Map<string, bigint>();
    let pair: [bigint, bigint] | undefined;
    for (let i = 1n; pair === undefined; i++) {
      const prefix = toHex(keccak256(hexToBytes(word(i)))).slice(0, 8);
      const other = seen.get(prefix);
      if (other === undefined) seen.set(prefix, i);
      else pair = [other, i];
    }
    const [a, b] = pair;
    const l2 = defineChain({
      id: node.chainId,
      name: "L2",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const wallet = createWalletClient({
      account: privateKeyToAccount(devAccounts(7)[6]!.privateKey),
      chain: l2,
      transport: http(node.url, { timeout: 60_000 }),
    });
    const fees = { maxFeePerGas: parseGwei("50"), maxPriorityFeePerGas: parseGwei("1") };
    const receiptOf = (hash: Hex) =>
      waitFor(
        () =>
          call<{ blockNumber: Hex; contractAddress: Hex | null; status: Hex } | null>(
            node.url,
            "eth_getTransactionReceipt",
            [hash],
          ).then((r) => r ?? undefined),
        "a receipt",
        120_000,
        100,
      );
    const created = await receiptOf(
      await wallet.sendTransaction({ data: STORE_INIT, gas: 200_000n, ...fees }),
    );
    const contract = created.contractAddress!;
    const store = async (slot: bigint, value: bigint) =>
      receiptOf(
        await wallet.sendTransaction({
          to: contract,
          data: `0x${word(slot).slice(2)}${word(value).slice(2)}`,
          gas: 100_000n,
          ...fees,
        }),
      );
    const full = (1n << 256n) - 1n;
    await store(a, full);
    const stored = await store(b, full);
    // Receipts are pre-confirmed: the clearing must land in a later block than the stores, so the parent holds both
    // slots. Wait until the stores' block is sealed before sending it.
    await waitFor(
      async () =>
        BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= BigInt(stored.blockNumber)
          ? true
          : undefined,
      "the stores' block to be sealed",
      120_000,
      100,
    );
    const cleared = await store(a, 0n);
    expect(cleared.status).toBe("0x1");
    const n = BigInt(cleared.blockNumber);
    expect(n).toBeGreaterThan(BigInt(stored.blockNumber));
    await waitFor(
      async () => (BigInt(await call<Hex>(urlOf("reth"), "eth_blockNumber", [])) >= n ? true : undefined),
      "the reth replica to reach the clearing block",
      120_000,
      100,
    );
    // The precondition: at the parent, b's leaf is the third node of its proof (extension, branch, leaf), and no
    // proof of a the block reads holds it.
    const proofOf = async (slot: bigint, at: bigint) =>
      (
        await call<{ storageProof: { proof: Hex[] }[] }>(urlOf("reth"), "eth_getProof", [
          contract,
          [word(slot)],
          quantity(at),
        ])
      ).storageProof[0]!.proof;
    const [aProof, bProof] = [await proofOf(a, n - 1n), await proofOf(b, n - 1n)];
    expect(bProof).toHaveLength(3);
    const sibling = bProof[2]!;
    expect(aProof).not.toContain(sibling);

    const values = await new ProofsExecutor(new JsonRpcClient(urlOf("reth")), rollup).blockWitness(n);
    expect(values.map((v) => toHex(v))).toContain(sibling);
  }, 600_000);
});

describe("witness forms", () => {
  it("reth's lists, geth's ExtWitness and the map form parse to the same values", async () => {
    const block = quantity(agreed + 1n);
    const reth = await call<Record<string, Hex[]>>(urlOf("reth"), "debug_executionWitness", [block]);
    const geth = await call<Record<string, unknown>>(urlOf("geth"), "debug_executionWitness", [block]);
    expect(typeof (geth.headers as unknown[])[0]).toBe("object");
    const asMap = (list: Hex[]) => Object.fromEntries(list.map((v) => [toHex(keccak256(hexToBytes(v))), v]));
    const map = {
      state: asMap(reth.state!),
      codes: asMap(reth.codes!),
      keys: asMap(reth.keys!),
      headers: reth.headers,
    };
    const parsed = {
      reth: parseExecutionWitness(reth, "reth"),
      geth: parseExecutionWitness(geth, "geth"),
      map: parseExecutionWitness(map, "map"),
    };
    expect([parsed.reth.form, parsed.geth.form, parsed.map.form]).toEqual(["reth", "geth", "map"]);
    const sorted = (values: Uint8Array[]) => values.map(toHex).sort();
    expect(sorted(witnessValues(parsed.geth))).toEqual(sorted(witnessValues(parsed.reth)));
    expect(sorted(witnessValues(parsed.map))).toEqual(sorted(witnessValues(parsed.reth)));
    expect(parsed.reth.keys.length).toBeGreaterThan(0);
    expect(parsed.geth.keys).toEqual([]);

    // A JSON header whose fields were changed no longer hashes to its `hash`.
    const headers = structuredClone(geth.headers) as Record<string, string>[];
    headers[0]!.gasUsed = "0x1";
    expect(() => parseExecutionWitness({ ...geth, headers }, "geth")).toThrow(DataMismatchError);
    // A map value under another value's hash.
    const [first, second] = Object.keys(map.state);
    const forged = { ...map, state: { ...map.state, [first!]: map.state[second!] } };
    expect(() => parseExecutionWitness(forged, "map")).toThrow(DataMismatchError);
  });

  it("an L2 whose witness omits a trie node is refused with an error naming the kind, the hash, the block and the endpoint", async () => {
    const proxy = await startTamperProxy(urlOf("reth"));
    proxies.push(proxy);
    // The state root the first block of the range executes on: its node is read first.
    const parent = await call<{ stateRoot: Hex }>(urlOf("reth"), "eth_getBlockByNumber", [
      quantity(agreed),
      false,
    ]);
    let dropped = false;
    proxy.rpc = async (request, forward) => {
      // reth answers debug_dbGet(0x63 ‖ hash) with code only, null for a trie node's hash.
      if (request.method === "debug_dbGet") return { jsonrpc: "2.0", id: 1, result: null };
      const answer = await forward(request);
      if (request.method === "debug_executionWitness" && request.params[0] === quantity(agreed + 1n)) {
        const result = answer.result as { state: Hex[] };
        const state = result.state.filter((node) => toHex(keccak256(hexToBytes(node))) !== parent.stateRoot);
        dropped = state.length < result.state.length;
        answer.result = { ...result, state };
      }
      return answer;
    };
    const error = await collect(proxy.url, "execution-witness").catch((e: unknown) => e);
    expect(dropped).toBe(true);
    expect(error).toBeInstanceOf(MissingWitnessValueError);
    expect((error as MissingWitnessValueError).fields).toEqual({
      kind: "trie-node",
      hash: parent.stateRoot,
      block: agreed + 1n,
      endpoint: proxy.url,
      strategy: "execution-witness",
    });
    expect((error as Error).message).toContain(
      `the L2 block witnesses from ${proxy.url} (execution-witness) lack the trie-node ${parent.stateRoot} of L2 block ${agreed + 1n}`,
    );
  }, 600_000);

  it("an L2 whose witnesses omit the code a block runs is refused, naming the code's hash and the block", async () => {
    const proxy = await startTamperProxy(urlOf("reth"));
    proxies.push(proxy);
    const omitted = new Set<string>();
    proxy.rpc = async (request, forward) => {
      if (request.method === "debug_dbGet") return { jsonrpc: "2.0", id: 1, result: null };
      const answer = await forward(request);
      if (request.method === "debug_executionWitness") {
        const result = answer.result as { codes: Hex[] };
        for (const code of result.codes) omitted.add(toHex(keccak256(hexToBytes(code))));
        answer.result = { ...result, codes: [] };
      }
      return answer;
    };
    const error = await collect(proxy.url, "execution-witness").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingWitnessValueError);
    const fields = (error as MissingWitnessValueError).fields;
    // Every block runs the L1 attributes deposit into the L1Block predeploy: the first block already misses code.
    expect(fields).toMatchObject({ kind: "code", block: agreed + 1n, endpoint: proxy.url });
    expect(omitted.has(fields.hash)).toBe(true);
  }, 600_000);

  it("an L2 that answers a witness with a forged header is refused, naming the endpoint and the block", async () => {
    const proxy = await startTamperProxy(urlOf("geth"));
    proxies.push(proxy);
    proxy.rpc = async (request, forward) => {
      const answer = await forward(request);
      if (request.method === "debug_executionWitness" && request.params[0] === quantity(agreed + 1n)) {
        const result = answer.result as { headers: Record<string, string>[] };
        answer.result = { ...result, headers: [{ ...result.headers[0]!, timestamp: "0x1" }] };
      }
      return answer;
    };
    const error = await collect(proxy.url, "execution-witness").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WitnessFetchError);
    expect((error as Error).message).toContain(`L2 block ${agreed + 1n}'s witness from ${proxy.url}`);
    expect((error as Error).message).toMatch(/does not hash/);
  }, 600_000);
});

describe("the host process", () => {
  let enclave: RunningEnclave;
  const hosts: RunningHost[] = [];
  afterAll(async () => {
    for (const host of hosts) await host.stop();
    await enclave?.stop();
  });

  it("proves the range over the geth surface with a beacon endpoint that answers only by slot", async () => {
    enclave = await startEnclave(["--rollup-config", rollupPath]);
    if (enclave.address.kind !== "unix") throw new Error("expected a Unix socket enclave");
    // Only the standard routes: anvil's execution-block-hash route is refused.
    const beacon = await startTamperProxy(l1.beacon!.url);
    proxies.push(beacon);
    beacon.get = async (path, forward) =>
      /^\/eth\/v1\/beacon\/blobs\/0x/.test(path)
        ? { status: 400, body: JSON.stringify({ code: 400, message: "invalid block id" }) }
        : forward(path);
    const host = await startHost([
      ...["--l1-rpc-url", l1.anvil.rpcUrl, "--l1-beacon-url", beacon.url, "--l2-rpc-url", urlOf("geth")],
      ...["--l2-chain-id", rollup.l2ChainId.toString(), "--rollup-config", rollupPath],
      ...["--listen", "127.0.0.1:0", "--vsock-cid", enclave.address.path, "--witness-concurrency", "2"],
    ]);
    hosts.push(host);
    const line = host.logs.find((entry) => entry.msg === "witness strategy");
    expect(line?.strategy).toBe("execution-witness");
    expect(line?.probed).toMatchObject({ debug_executionWitness: "ok" });
    const result = await rpc<{ Tee: { proposals: { output_root: Hex }[] } }>(host.url, "prover_prove", [
      params,
    ]);
    expect(result.Tee.proposals.map((p) => p.output_root)).toEqual(nodeRoots);
    expect(beacon.paths.some((path) => /^\/eth\/v1\/beacon\/blob(s|_sidecars)\/\d+\?/.test(path))).toBe(true);
  }, 600_000);

  it("refuses to start when the L2 endpoint serves no strategy, naming the methods and the flags", async () => {
    const bare = await startTamperProxy(node.url);
    proxies.push(bare);
    bare.rpc = async (request, forward) =>
      ["debug_executePayload", "debug_executionWitness", "debug_dbGet", "eth_getProof"].includes(
        request.method,
      )
        ? { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } }
        : forward(request);
    const host = await startHost([
      ...[
        "--l1-rpc-url",
        l1.anvil.rpcUrl,
        "--l2-rpc-url",
        bare.url,
        "--l2-chain-id",
        rollup.l2ChainId.toString(),
      ],
      ...["--rollup-config", rollupPath, "--listen", "127.0.0.1:0", "--vsock-cid", "/nonexistent.sock"],
    ]).catch((e: unknown) => e);
    expect(host).toBeInstanceOf(Error);
    const message = (host as Error).message;
    for (const method of ["debug_executePayload", "debug_executionWitness", "eth_getProof", "debug_dbGet"])
      expect(message).toContain(method);
    expect(message).toContain("--rpc.eth-proof-window");
    expect(message).toContain("NoWitnessStrategyError");
  }, 600_000);
});
