/**
 * JSON-RPC against a real node process with viem: every tag and EIP-1898 form, full transaction
 * objects, a contract deployed and called on latest and pending, calls in the pending block's
 * environment, logs and receipts of pre-confirmed transactions, and the error cases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Hex,
  createPublicClient,
  defineChain,
  http,
  encodeFunctionData,
  parseEther,
  parseGwei,
  keccak256,
  toHex as viemToHex,
  bytesToHex,
  hexToBytes,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { eip3009TokenAbi } from "../../contracts/artifacts.js";
import { loadArtifact } from "../../contracts/artifacts.js";
import { deployArtifact } from "../../contracts/deploy.js";
import { chainConfig, publicActionsL2 } from "viem/op-stack";
import { devChainGenesisConfig } from "../../src/proof/onchain/index.js";
import { DEV_GENESIS_TIME } from "../../src/chain/index.js";
import {
  call,
  clients,
  devChain,
  hexNumber,
  declaredBodyStatus,
  rawCall,
  rpc,
  signTransfer,
  waitFor,
} from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const SPEC_BLOCK_FIELDS = [
  "number",
  "hash",
  "parentHash",
  "nonce",
  "sha3Uncles",
  "logsBloom",
  "transactionsRoot",
  "stateRoot",
  "receiptsRoot",
  "miner",
  "difficulty",
  "mixHash",
  "extraData",
  "size",
  "gasLimit",
  "gasUsed",
  "timestamp",
  "transactions",
  "uncles",
  "withdrawals",
  "withdrawalsRoot",
  "baseFeePerGas",
  "blobGasUsed",
  "excessBlobGas",
  "parentBeaconBlockRoot",
  "requestsHash",
];

type Block = Record<string, unknown> & { number: Hex; hash: Hex; transactions: unknown[] };

let node: NodeProcess;
beforeAll(async () => {
  node = await startNodeProcess({
    blockTimeMs: 500,
    flashblockIntervalMs: 50,
  });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

async function sealedReceipt(hash: Hex): Promise<{ blockNumber: Hex; blockHash: Hex }> {
  const { publicClient } = clients(node);
  const r = await publicClient.waitForTransactionReceipt({ hash });
  // waitForTransactionReceipt may return a pre-confirmed receipt; wait until the block is sealed.
  await waitFor(
    async () =>
      BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= r.blockNumber ? true : undefined,
    "seal",
  );
  return call(node.url, "eth_getTransactionReceipt", [hash]);
}

describe("genesis", () => {
  it("a new default dev chain has the fixed genesis the enclave's config-hash table was built from", async () => {
    const genesis = await call<Block>(node.url, "eth_getBlockByNumber", ["earliest", false]);
    expect(BigInt(genesis.timestamp as Hex)).toBe(DEV_GENESIS_TIME);
    expect(genesis.hash).toBe(viemToHex((await devChainGenesisConfig()).l2GenesisHash));
  });
});

describe("block tags and EIP-1898", () => {
  it("answers every tag, hex numbers and block-hash forms consistently", async () => {
    const { walletClient } = clients(node, 4);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await walletClient.sendTransaction({ to: recipient, value: parseEther("1") });
    const receipt = await sealedReceipt(hash);
    const b = BigInt(receipt.blockNumber);
    // A few more blocks (standalone: safe = finalized = latest).
    await waitFor(
      async () => (BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= b + 5n ? true : undefined),
      "5 more blocks",
    );

    const balance = (block: unknown) =>
      call<Hex>(node.url, "eth_getBalance", [recipient, block]).then(BigInt);
    const one = parseEther("1");
    expect(await balance("latest")).toBe(one);
    expect(await balance("pending")).toBe(one);
    expect(await balance("safe")).toBe(one);
    expect(await balance("finalized")).toBe(one);
    expect(await balance("earliest")).toBe(0n);
    expect(await balance(hexNumber(b))).toBe(one);
    expect(await balance(hexNumber(b - 1n))).toBe(0n);
    expect(await balance(receipt.blockHash)).toBe(one);
    expect(await balance({ blockHash: receipt.blockHash })).toBe(one);
    expect(await balance({ blockHash: receipt.blockHash, requireCanonical: true })).toBe(one);
    expect(await balance({ blockNumber: hexNumber(b - 1n) })).toBe(0n);
    expect(await balance({ blockNumber: "pending" })).toBe(one);
    expect(BigInt(await call<Hex>(node.url, "eth_getBalance", [recipient]))).toBe(one); // default latest

    // Unknown blocks: an error naming the block for state, null for eth_getBlockByNumber.
    const missingHash = keccak256("0x1234");
    for (const sel of [
      missingHash,
      { blockHash: missingHash },
      "0xffffffff",
      { blockNumber: "0xffffffff" },
    ]) {
      const r = await rpc(node.url, "eth_getBalance", [recipient, sel]);
      expect(r.body?.error?.code).toBe(-32001);
      expect(r.body?.error?.message).toMatch(/block not found/);
    }
    expect((await rpc(node.url, "eth_getBlockByNumber", ["0xffffffff", false])).body?.result).toBeNull();

    const get = (tag: string) => call<Block>(node.url, "eth_getBlockByNumber", [tag, false]);
    const latest = await get("latest");
    const head = BigInt(latest.number);
    const safe = await get("safe");
    const finalized = await get("finalized");
    // Standalone: no L1 can reorg the chain, so safe and finalized are latest (a block may seal in between).
    expect(BigInt(safe.number)).toBeGreaterThanOrEqual(head);
    expect(BigInt(finalized.number)).toBeGreaterThanOrEqual(head);
    const earliest = await get("earliest");
    expect(earliest.number).toBe("0x0");
    const pending = await get("pending");
    expect(BigInt(pending.number)).toBeGreaterThanOrEqual(head);
    const byNumber = await get(hexNumber(b));
    expect(byNumber.hash).toBe(receipt.blockHash);
    const byHash = await call<Block>(node.url, "eth_getBlockByHash", [receipt.blockHash, false]);
    expect(byHash.hash).toBe(receipt.blockHash);
    for (const blk of [latest, safe, finalized, earliest, pending, byNumber]) {
      for (const f of SPEC_BLOCK_FIELDS) expect(blk, `field ${f}`).toHaveProperty(f);
      expect(blk.nonce).toBe("0x0000000000000000");
      expect(blk.difficulty).toBe("0x0");
      expect(blk.uncles).toEqual([]);
      expect(blk.withdrawals).toEqual([]);
    }
  });

  it("returns full transaction objects with deposit fields", async () => {
    const { walletClient } = clients(node, 5);
    const hash = await walletClient.sendTransaction({
      to: privateKeyToAccount(generatePrivateKey()).address,
      value: 5n,
    });
    const receipt = await sealedReceipt(hash);
    const block = await call<Block>(node.url, "eth_getBlockByNumber", [receipt.blockNumber, true]);
    const [deposit, ...rest] = block.transactions as Record<string, unknown>[];
    expect(deposit).toMatchObject({
      type: "0x7e",
      from: "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001",
      to: "0x4200000000000000000000000000000000000015",
      mint: "0x0",
      value: "0x0",
      gas: "0xf4240",
      depositReceiptVersion: "0x1",
      gasPrice: "0x0",
      v: "0x0",
      r: "0x0",
      s: "0x0",
      yParity: "0x0",
      blockHash: block.hash,
      blockNumber: block.number,
      transactionIndex: "0x0",
    });
    expect(deposit!.sourceHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(deposit!.input).toMatch(/^0x098999be/);
    expect(deposit).not.toHaveProperty("isSystemTx");
    const user = rest.find((t) => t.hash === hash)!;
    expect(user).toMatchObject({
      type: "0x2",
      value: "0x5",
      from: walletClient.account.address.toLowerCase(),
      blockHash: block.hash,
    });
    expect(user.chainId).toBe(hexNumber(node.chainId));
    const depositReceipt = await call<Record<string, unknown>>(node.url, "eth_getTransactionReceipt", [
      deposit!.hash,
    ]);
    expect(depositReceipt).toMatchObject({ type: "0x7e", status: "0x1", depositReceiptVersion: "0x1" });
    const userReceipt = await call<Record<string, unknown>>(node.url, "eth_getTransactionReceipt", [hash]);
    expect(BigInt(userReceipt.l1Fee as Hex)).toBeGreaterThan(0n);
  });
});

describe("contracts and calls", () => {
  it("deploys the EIP-3009 token and calls it on latest and pending", async () => {
    const { publicClient, walletClient } = clients(node, 6);
    const owner = walletClient.account.address;
    const { abi, bytecode } = loadArtifact("Eip3009Token");
    const deployHash = await walletClient.deployContract({
      abi,
      bytecode,
      args: ["Dev USD", "DUSD", owner],
      chain: walletClient.chain,
    });
    // The receipt is served as soon as the deployment is pre-confirmed: its code is then in the
    // pending state, and in latest once the block seals.
    const deployReceipt = await publicClient.waitForTransactionReceipt({ hash: deployHash });
    const token = deployReceipt.contractAddress!;
    expect(await publicClient.getCode({ address: token, blockTag: "pending" })).toMatch(/^0x[0-9a-f]{100,}$/);
    const deployment = { blockNumber: deployReceipt.blockNumber };
    // Mint and watch the pending state before the block seals.
    await waitFor(
      async () =>
        BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= deployment.blockNumber ? true : undefined,
      "deployment sealed",
    );
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    const mint = await walletClient.writeContract({
      address: token,
      abi: eip3009TokenAbi,
      functionName: "mint",
      args: [holder, 1_000n],
      chain: walletClient.chain,
    });
    const data = encodeFunctionData({ abi: eip3009TokenAbi, functionName: "balanceOf", args: [holder] });
    const balanceAt = (tag: string) =>
      call<Hex>(node.url, "eth_call", [{ to: token, data }, tag]).then(BigInt);
    await waitFor(
      async () => ((await balanceAt("pending")) === 1_000n ? true : undefined),
      "pending balanceOf",
      5_000,
      2,
    );
    // A pre-confirmed receipt and its Transfer log via eth_getLogs up to pending.
    const pendingReceipt = await call<{ blockNumber: Hex; logs: unknown[] } | null>(
      node.url,
      "eth_getTransactionReceipt",
      [mint],
    );
    expect(pendingReceipt).not.toBeNull();
    expect(pendingReceipt!.logs.length).toBeGreaterThan(0);
    const logs = await call<{ transactionHash: Hex; address: Hex }[]>(node.url, "eth_getLogs", [
      { address: token, fromBlock: pendingReceipt!.blockNumber, toBlock: "pending" },
    ]);
    expect(logs.some((l) => l.transactionHash === mint)).toBe(true);
    await sealedReceipt(mint);
    expect(await balanceAt("latest")).toBe(1_000n);
    expect(
      await publicClient.readContract({
        address: token,
        abi: eip3009TokenAbi,
        functionName: "balanceOf",
        args: [holder],
      }),
    ).toBe(1_000n);
    const sealedLogs = await publicClient.getContractEvents({
      address: token,
      abi: eip3009TokenAbi,
      eventName: "Transfer",
      fromBlock: 0n,
    });
    expect(sealedLogs.some((l) => l.transactionHash === mint)).toBe(true);
    // Reverts carry their data and reason.
    const r = await rpc(node.url, "eth_call", [
      {
        to: token,
        from: holder,
        data: encodeFunctionData({ abi: eip3009TokenAbi, functionName: "mint", args: [holder, 1n] }),
      },
      "latest",
    ]);
    expect(r.body?.error?.code).toBe(3);
    expect(r.body?.error?.data).toMatch(/^0x/);
    // eth_estimateGas agrees with what the transfer used.
    const transferData = encodeFunctionData({
      abi: eip3009TokenAbi,
      functionName: "mint",
      args: [holder, 7n],
    });
    const estimate = BigInt(
      await call<Hex>(node.url, "eth_estimateGas", [{ from: owner, to: token, data: transferData }]),
    );
    expect(estimate).toBeGreaterThan(21_000n);
    const sent = await walletClient.sendTransaction({ to: token, data: transferData, gas: estimate });
    const rc = await publicClient.waitForTransactionReceipt({ hash: sent });
    expect(rc.status).toBe("success");
  });

  it("runs pending calls in the pending block's environment", async () => {
    // Init code that returns NUMBER, TIMESTAMP and BASEFEE as the created contract's "code".
    // NUMBER PUSH0 MSTORE TIMESTAMP PUSH1 32 MSTORE BASEFEE PUSH1 64 MSTORE PUSH1 96 PUSH0 RETURN
    const initCode = "0x435f52426020524860405260605ff3";
    const r = await rawCall(
      node.url,
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: initCode }, "pending"] },
        { jsonrpc: "2.0", id: 2, method: "eth_getBlockByNumber", params: ["pending", false] },
      ]),
    );
    const [callRes, blockRes] = r.body as unknown as [{ result: Hex }, { result: Block }];
    const out = callRes.result;
    const word = (i: number) => BigInt(`0x${out.slice(2 + 64 * i, 2 + 64 * (i + 1))}`);
    const block = blockRes.result;
    // Both answers come from one snapshot unless a seal happened in between; the number is the
    // block being built either way, never an older block.
    const head = BigInt(await call<Hex>(node.url, "eth_blockNumber", []));
    expect(word(0)).toBeGreaterThan(head - 1n);
    if (word(0) === BigInt(block.number)) {
      expect(word(1)).toBe(BigInt(block.timestamp as Hex));
      expect(word(2)).toBe(BigInt(block.baseFeePerGas as Hex));
    }
    const latest = await call<Hex>(node.url, "eth_call", [{ data: initCode }, "latest"]);
    expect(BigInt(`0x${latest.slice(2, 66)}`)).toBeLessThan(word(0) + 1n);
  });
});

describe("bad input", () => {
  const bad = async (body: string) => (await rawCall(node.url, body)).body?.error;
  const req = (method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 7, method, params });

  it("answers malformed requests and params with clear errors", async () => {
    expect((await bad("{not json"))!.code).toBe(-32700);
    expect((await bad(req("eth_nope", [])))!.code).toBe(-32601);
    const cases: [string, unknown[], RegExp][] = [
      ["eth_getBlockByNumber", ["latest"], /fullTransactions/],
      ["eth_getBlockByNumber", [true, false], /block/],
      ["eth_getBlockByNumber", ["latests", false], /block/],
      ["eth_getBlockByNumber", ["0x01", false], /block/],
      ["eth_getBlockByNumber", ["0xzz", false], /block/],
      ["eth_getBlockByNumber", ["latest", "yes"], /fullTransactions/],
      ["eth_getBalance", ["0x1234", "latest"], /address/],
      ["eth_getBalance", ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "latest", 1], /at most/],
      ["eth_getBalance", [], /address/],
      ["eth_getBalance", ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226g", "latest"], /address/],
      ["eth_getBalance", ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", { blockHash: "0x12" }], /block/],
      ["eth_sendRawTransaction", ["0xabc"], /transaction/],
    ];
    for (const [method, params, message] of cases) {
      const error = await bad(req(method, params));
      expect(error, `${method} ${JSON.stringify(params)}`).toBeDefined();
      expect(error!.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(error!.message).toMatch(message);
    }
  });

  it("refuses oversized bodies and invalid or underpriced transactions, and keeps serving", async () => {
    expect(await declaredBodyStatus(node.url, 6 * 1024 * 1024)).toBe(413);

    const { walletClient, publicClient } = clients(node, 7);
    const account = walletClient.account;
    const nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
    const base = {
      to: account.address,
      value: 1n,
      gas: 21_000n,
      chainId: node.chainId,
      type: "eip1559" as const,
    };
    const send = async (tx: Parameters<typeof account.signTransaction>[0]) =>
      (await rawCall(node.url, req("eth_sendRawTransaction", [await account.signTransaction!(tx)]))).body
        ?.error;

    const underpriced = await send({ ...base, nonce, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
    expect(underpriced).toMatchObject({ code: -32000 });
    expect(underpriced!.message).toMatch(/underpriced/);
    const tooLow =
      nonce > 0
        ? await send({ ...base, nonce: nonce - 1, maxFeePerGas: parseGwei("10"), maxPriorityFeePerGas: 1n })
        : undefined;
    if (tooLow) expect(tooLow.message).toMatch(/nonce too low/);
    const wrongChain = await send({
      ...base,
      chainId: 1,
      nonce,
      maxFeePerGas: parseGwei("10"),
      maxPriorityFeePerGas: 1n,
    });
    expect(wrongChain!.message).toMatch(/chain id/);
    const broke = privateKeyToAccount(generatePrivateKey());
    const poor = (
      await rawCall(
        node.url,
        req("eth_sendRawTransaction", [
          await broke.signTransaction({
            ...base,
            nonce: 0,
            maxFeePerGas: parseGwei("10"),
            maxPriorityFeePerGas: 1n,
          }),
        ]),
      )
    ).body?.error;
    expect(poor!.message).toMatch(/insufficient funds/);
    const lowGas = await send({
      ...base,
      gas: 20_000n,
      nonce,
      maxFeePerGas: parseGwei("10"),
      maxPriorityFeePerGas: 1n,
    });
    expect(lowGas!.message).toMatch(/intrinsic gas too low/);
    const garbage = await bad(req("eth_sendRawTransaction", ["0x02deadbeef"]));
    expect(garbage).toMatchObject({ code: -32000 });
    expect(garbage!.message).toMatch(/invalid transaction/);
    const deposit = await bad(req("eth_sendRawTransaction", ["0x7ef8"]));
    expect(deposit!.message).toMatch(/deposit/);

    const ok = await send({ ...base, nonce, maxFeePerGas: parseGwei("10"), maxPriorityFeePerGas: 1n });
    expect(ok).toBeUndefined();
    const again = await send({ ...base, nonce, maxFeePerGas: parseGwei("10"), maxPriorityFeePerGas: 1n });
    expect(again).toBeDefined();
    expect(again!.message).toMatch(/already known|nonce too low|underpriced/);

    // Still alive and answering.
    expect(await call<Hex>(node.url, "eth_chainId", [])).toBe(viemToHex(node.chainId));
  });
});

describe("deploying with contracts/deploy.ts", () => {
  it("deploys once the deployment is sealed", async () => {
    const { publicClient, walletClient } = clients(node, 8);
    // deployArtifact reads the code at latest right after the receipt: give it sealed receipts.
    const sealedOnly = {
      ...publicClient,
      waitForTransactionReceipt: async (args: { hash: Hex }) => {
        const r = await publicClient.waitForTransactionReceipt(args);
        await waitFor(
          async () =>
            BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= r.blockNumber ? true : undefined,
          "seal",
        );
        return r;
      },
    } as typeof publicClient;
    const d = await deployArtifact(
      { publicClient: sealedOnly, walletClient },
      "TEEProverRegistry",
      [walletClient.account.address, keccak256("0x01")],
      { pollingIntervalMs: 50 },
    );
    expect(await publicClient.getCode({ address: d.address })).toMatch(/^0x[0-9a-f]+$/);
  });
});

describe("predeploys", () => {
  it("serves L1Block values set by the L1 attributes deposit and a working GasPriceOracle", async () => {
    const l1Block = "0x4200000000000000000000000000000000000015";
    const gpo = "0x420000000000000000000000000000000000000F";
    const abi = [
      {
        type: "function",
        name: "basefee",
        stateMutability: "view",
        inputs: [],
        outputs: [{ type: "uint256" }],
      },
      {
        type: "function",
        name: "baseFeeScalar",
        stateMutability: "view",
        inputs: [],
        outputs: [{ type: "uint32" }],
      },
      {
        type: "function",
        name: "sequenceNumber",
        stateMutability: "view",
        inputs: [],
        outputs: [{ type: "uint64" }],
      },
      {
        type: "function",
        name: "getL1Fee",
        stateMutability: "view",
        inputs: [{ type: "bytes" }],
        outputs: [{ type: "uint256" }],
      },
      { type: "function", name: "isFjord", stateMutability: "view", inputs: [], outputs: [{ type: "bool" }] },
      {
        type: "function",
        name: "isIsthmus",
        stateMutability: "view",
        inputs: [],
        outputs: [{ type: "bool" }],
      },
    ] as const;
    const { publicClient } = clients(node);
    expect(await publicClient.readContract({ address: l1Block, abi, functionName: "basefee" })).toBe(
      1_000_000_000n,
    );
    expect(await publicClient.readContract({ address: l1Block, abi, functionName: "baseFeeScalar" })).toBe(
      2269,
    );
    expect(await publicClient.readContract({ address: gpo, abi, functionName: "isFjord" })).toBe(true);
    expect(await publicClient.readContract({ address: gpo, abi, functionName: "isIsthmus" })).toBe(true);
    // viem's OP Stack actions: L1 fee, operator fee and total fee estimates.
    const l2 = createPublicClient({
      chain: defineChain({ ...chainConfig, ...devChain(node) }),
      transport: http(node.url, { timeout: 60_000 }),
    }).extend(publicActionsL2());
    const request = { account: node.accounts[0]!.address, to: node.accounts[1]!.address, value: 1n } as const;
    const l1Fee = await l2.estimateL1Fee(request);
    expect(l1Fee).toBeGreaterThan(0n);
    expect(await l2.estimateOperatorFee(request)).toBe(0n);
    expect(await l2.estimateTotalFee(request)).toBeGreaterThan(l1Fee);
    const fee = await publicClient.readContract({
      address: gpo,
      abi,
      functionName: "getL1Fee",
      args: [`0x${"ab".repeat(200)}`],
    });
    expect(fee).toBeGreaterThan(0n);
    for (const system of [
      "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02",
      "0x0000F90827F1C53a10cb7A02335B175320002935",
      "0x4200000000000000000000000000000000000016",
      "0x4200000000000000000000000000000000000019",
    ] as const) {
      expect(await publicClient.getCode({ address: system }), system).toMatch(/^0x[0-9a-f]{40,}$/);
    }
    // EIP-2935: the history contract serves the parent's hash.
    const head = await publicClient.getBlock({ blockTag: "latest" });
    const parentNumber = head.number - 1n;
    const stored = await call<Hex>(node.url, "eth_call", [
      {
        to: "0x0000F90827F1C53a10cb7A02335B175320002935",
        data: `0x${parentNumber.toString(16).padStart(64, "0")}`,
      },
      "latest",
    ]);
    const parent = await call<{ hash: Hex }>(node.url, "eth_getBlockByNumber", [
      hexNumber(parentNumber),
      false,
    ]);
    expect(stored).toBe(parent.hash);
  });
});

describe("eth_feeHistory", () => {
  type FeeHistory = { oldestBlock: Hex; baseFeePerGas: Hex[]; gasUsedRatio: number[]; reward?: Hex[][] };
  const latest = async (): Promise<bigint> => BigInt(await call<Hex>(node.url, "eth_blockNumber", []));
  const feeHistory = (params: unknown[]) => call<FeeHistory>(node.url, "eth_feeHistory", params);

  it("reports each block's base fee and gas used ratio, then the base fee the next block gets", async () => {
    await waitFor(async () => ((await latest()) >= 4n ? true : undefined), "four sealed blocks");
    const newest = await latest();
    const history = await feeHistory(["0x3", hexNumber(newest), [25, 75]]);
    expect(BigInt(history.oldestBlock)).toBe(newest - 2n);
    expect(history.baseFeePerGas).toHaveLength(4);
    expect(history.gasUsedRatio).toHaveLength(3);
    expect(history.reward).toHaveLength(3);
    for (let i = 0; i < 3; i++) {
      const block = await call<Block & { baseFeePerGas: Hex; gasUsed: Hex; gasLimit: Hex }>(
        node.url,
        "eth_getBlockByNumber",
        [hexNumber(newest - 2n + BigInt(i)), false],
      );
      expect(history.baseFeePerGas[i]).toBe(block.baseFeePerGas);
      expect(history.gasUsedRatio[i]).toBeCloseTo(Number(block.gasUsed) / Number(block.gasLimit), 12);
      expect(history.reward![i]).toHaveLength(2);
    }
    await waitFor(async () => ((await latest()) > newest ? true : undefined), "the next block");
    const next = await call<{ baseFeePerGas: Hex }>(node.url, "eth_getBlockByNumber", [
      hexNumber(newest + 1n),
      false,
    ]);
    expect(history.baseFeePerGas[3]).toBe(next.baseFeePerGas);
  });

  it("takes the block count as a hex quantity, a decimal string or a JSON number, as geth does", async () => {
    const newest = hexNumber(await latest());
    const hex = await feeHistory(["0x2", newest]);
    expect(await feeHistory(["2", newest])).toEqual(hex);
    expect(await feeHistory([2, newest])).toEqual(hex);
    expect(hex.gasUsedRatio).toHaveLength(2);
    expect(hex.reward).toBeUndefined();
    expect(await feeHistory([0, newest])).toEqual({
      oldestBlock: "0x0",
      baseFeePerGas: [],
      gasUsedRatio: [],
    });
    // A count beyond the chain's length starts at genesis.
    const all = await feeHistory(["0xffff", newest]);
    expect(all.oldestBlock).toBe("0x0");
    expect(all.gasUsedRatio).toHaveLength(Number(newest) + 1);
  });

  it("works through viem's getFeeHistory, at pending too", async () => {
    const { publicClient } = clients(node);
    const history = await publicClient.getFeeHistory({ blockCount: 2, rewardPercentiles: [50] });
    expect(history.baseFeePerGas).toHaveLength(3);
    expect(history.reward).toHaveLength(2);
    // The latest block is read first: a block sealed between the two reads must not fail the comparison.
    const latestBefore = await latest();
    const pending = await feeHistory(["0x1", "pending"]);
    expect(BigInt(pending.oldestBlock)).toBeGreaterThan(latestBefore);
    expect(pending.baseFeePerGas).toHaveLength(2);
  });

  it("refuses malformed counts and percentiles with -32602", async () => {
    const cases: unknown[][] = [
      [-1, "latest"],
      [1.5, "latest"],
      ["0x02", "latest"],
      ["-1", "latest"],
      ["two", "latest"],
      [null, "latest"],
      ["0x1", "latest", [75, 25]],
      ["0x1", "latest", [101]],
      ["0x1", "latest", [-1]],
    ];
    for (const params of cases) {
      const error = (await rpc(node.url, "eth_feeHistory", params)).body?.error;
      expect(error?.code, JSON.stringify(params)).toBe(-32602);
    }
    const count = (await rpc(node.url, "eth_feeHistory", ["two", "latest"])).body?.error;
    expect(count?.message).toMatch(/block count/);
  });
});

describe("block-indexed methods", () => {
  type Tx = { hash: Hex; blockHash: Hex; blockNumber: Hex; transactionIndex: Hex };
  type Receipt = { transactionHash: Hex; blockHash: Hex; blockNumber: Hex; transactionIndex: Hex };

  it("receipts, counts and transactions by block number, hash and index agree with the by-hash methods", async () => {
    const { walletClient, publicClient } = clients(node, 7);
    const sent = await walletClient.sendTransaction({
      to: privateKeyToAccount(generatePrivateKey()).address,
      value: 5n,
    });
    const placed = await sealedReceipt(sent);
    const number = placed.blockNumber;
    const block = await call<Block & { transactions: Hex[] }>(node.url, "eth_getBlockByNumber", [
      number,
      false,
    ]);
    expect(block.transactions.length).toBeGreaterThanOrEqual(2);

    const receipts = await call<Receipt[]>(node.url, "eth_getBlockReceipts", [number]);
    expect(receipts).toHaveLength(block.transactions.length);
    for (let i = 0; i < block.transactions.length; i++) {
      expect(receipts[i]).toEqual(await call(node.url, "eth_getTransactionReceipt", [block.transactions[i]]));
    }
    for (const selector of [block.hash, { blockHash: block.hash }, { blockNumber: number }]) {
      expect(await call(node.url, "eth_getBlockReceipts", [selector])).toEqual(receipts);
    }

    const count = hexNumber(block.transactions.length);
    expect(await call(node.url, "eth_getBlockTransactionCountByNumber", [number])).toBe(count);
    expect(await call(node.url, "eth_getBlockTransactionCountByHash", [block.hash])).toBe(count);
    for (let i = 0; i < block.transactions.length; i++) {
      const byHash = await call<Tx>(node.url, "eth_getTransactionByHash", [block.transactions[i]]);
      expect(await call(node.url, "eth_getTransactionByBlockNumberAndIndex", [number, hexNumber(i)])).toEqual(
        byHash,
      );
      expect(
        await call(node.url, "eth_getTransactionByBlockHashAndIndex", [block.hash, hexNumber(i)]),
      ).toEqual(byHash);
    }
    const past = hexNumber(block.transactions.length);
    expect(await call(node.url, "eth_getTransactionByBlockNumberAndIndex", [number, past])).toBeNull();
    expect(await call(node.url, "eth_getTransactionByBlockHashAndIndex", [block.hash, past])).toBeNull();
    expect(await call(node.url, "eth_getUncleCountByBlockNumber", [number])).toBe("0x0");
    expect(await call(node.url, "eth_getUncleCountByBlockHash", [block.hash])).toBe("0x0");

    // viem reaches the same methods.
    expect(await publicClient.getBlockTransactionCount({ blockNumber: BigInt(number) })).toBe(
      block.transactions.length,
    );
    expect((await publicClient.getTransaction({ blockHash: block.hash, index: 1 })).hash).toBe(
      block.transactions[1],
    );
  });

  it("answers null for a block that does not exist and -32602 for malformed selectors", async () => {
    const missingHash = `0x${"ab".repeat(32)}`;
    const missingNumber = "0x7fffffff";
    expect(await call(node.url, "eth_getBlockReceipts", [missingNumber])).toBeNull();
    expect(await call(node.url, "eth_getBlockReceipts", [missingHash])).toBeNull();
    expect(await call(node.url, "eth_getBlockTransactionCountByNumber", [missingNumber])).toBeNull();
    expect(await call(node.url, "eth_getBlockTransactionCountByHash", [missingHash])).toBeNull();
    expect(
      await call(node.url, "eth_getTransactionByBlockNumberAndIndex", [missingNumber, "0x0"]),
    ).toBeNull();
    expect(await call(node.url, "eth_getTransactionByBlockHashAndIndex", [missingHash, "0x0"])).toBeNull();
    expect(await call(node.url, "eth_getUncleCountByBlockNumber", [missingNumber])).toBeNull();
    expect(await call(node.url, "eth_getUncleCountByBlockHash", [missingHash])).toBeNull();
    for (const [method, params] of [
      ["eth_getBlockReceipts", ["0x01"]],
      ["eth_getBlockTransactionCountByHash", ["0x12"]],
      ["eth_getTransactionByBlockNumberAndIndex", ["latest", "1"]],
      ["eth_getTransactionByBlockHashAndIndex", [missingHash]],
    ] as const) {
      expect((await rpc(node.url, method, [...params])).body?.error?.code, method).toBe(-32602);
    }
  });

  it("serves the pending block's pre-confirmed receipts and transactions", async () => {
    const { walletClient } = clients(node, 8);
    // A transaction is pending for at most one 500 ms block: on a loaded machine its block can be sealed before a
    // read of the pending block answers (a CI run timed out waiting). Then another transaction is sent.
    let found: { hash: Hex; receipts: Receipt[]; index: number; pendingBlock: string | null } | undefined;
    for (let attempt = 1; found === undefined; attempt++) {
      if (attempt > 5) throw new Error("five transactions were each sealed before a pending read saw them");
      const hash = await walletClient.sendTransaction({
        to: privateKeyToAccount(generatePrivateKey()).address,
        value: 6n,
      });
      const seen = await waitFor(async () => {
        const response = await rpc(node.url, "eth_getBlockReceipts", ["pending"]);
        const receipts = response.body?.result as Receipt[];
        const index = receipts.findIndex((r) => r.transactionHash === hash);
        if (index >= 0)
          return { hash, receipts, index, pendingBlock: response.headers.get("x-pending-block") };
        const latest = BigInt((await rpc(node.url, "eth_blockNumber", [])).body?.result as Hex);
        const receipt = (await rpc(node.url, "eth_getTransactionReceipt", [hash])).body
          ?.result as Receipt | null;
        return receipt !== null && BigInt(receipt.blockNumber) <= latest ? ("sealed" as const) : undefined;
      }, "the pre-confirmed receipt in the pending block");
      if (seen !== "sealed") found = seen;
    }
    const hash = found.hash;
    expect(found.pendingBlock).toMatch(/^0x[0-9a-f]+$/);
    const atIndex = await rpc(node.url, "eth_getTransactionByBlockNumberAndIndex", [
      "pending",
      hexNumber(found.index),
    ]);
    // Indexes are stable within a block: while the same block is pending, the index names our transaction.
    if (atIndex.headers.get("x-pending-block") === found.pendingBlock) {
      expect((atIndex.body?.result as Tx).hash).toBe(hash);
    }
    expect(found.receipts[0]!.transactionIndex).toBe("0x0");
  });
});

describe("eth_getProof", () => {
  type Proof = {
    address: Hex;
    accountProof: Hex[];
    balance: Hex;
    codeHash: Hex;
    nonce: Hex;
    storageHash: Hex;
    storageProof: { key: Hex; value: Hex; proof: Hex[] }[];
  };
  const L1_BLOCK = "0x4200000000000000000000000000000000000015";
  const word = (n: number): Hex => `0x${n.toString(16).padStart(64, "0")}`;
  const EMPTY_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";

  /** Checks every proof of `p` against `stateRoot` with @ethereumjs/mpt's verifier. */
  async function verify(p: Proof, stateRoot: Hex): Promise<void> {
    const account = await verifyMerkleProof(
      hexToBytes(keccak256(p.address)),
      p.accountProof.map((h) => hexToBytes(h)),
      {
        root: hexToBytes(stateRoot),
      },
    );
    if (account === null) {
      expect(p.balance).toBe("0x0");
      expect(p.nonce).toBe("0x0");
      expect(p.storageHash).toBe(EMPTY_ROOT);
    } else {
      const [nonce, balance, storageRoot, codeHash] = RLP.decode(account) as Uint8Array[];
      expect(BigInt(bytesToHex(nonce!) === "0x" ? 0 : bytesToHex(nonce!))).toBe(BigInt(p.nonce));
      expect(BigInt(bytesToHex(balance!) === "0x" ? 0 : bytesToHex(balance!))).toBe(BigInt(p.balance));
      expect(bytesToHex(storageRoot!)).toBe(p.storageHash);
      expect(bytesToHex(codeHash!)).toBe(p.codeHash);
    }
    for (const slot of p.storageProof) {
      if (slot.proof.length === 0) {
        // Only an empty storage trie has nothing to prove.
        expect(p.storageHash).toBe(EMPTY_ROOT);
        expect(slot.value).toBe("0x0");
        continue;
      }
      const value = await verifyMerkleProof(
        hexToBytes(keccak256(slot.key)),
        slot.proof.map((h) => hexToBytes(h)),
        {
          root: hexToBytes(p.storageHash),
        },
      );
      expect(value === null ? 0n : BigInt(bytesToHex(RLP.decode(value) as Uint8Array))).toBe(
        BigInt(slot.value),
      );
    }
  }

  it("proves accounts and storage slots against the block's state root, for present and absent ones", async () => {
    // Past genesis: the L1 attributes deposit has written L1Block's storage.
    await waitFor(
      async () => (BigInt(await call<Hex>(node.url, "eth_blockNumber", [])) >= 1n ? true : undefined),
      "block 1",
    );
    const head = await call<{ number: Hex; stateRoot: Hex; hash: Hex }>(node.url, "eth_getBlockByNumber", [
      "latest",
      false,
    ]);
    const slots = [word(0), word(1), word(2), word(3), word(0x99)];
    const l1Block = await call<Proof>(node.url, "eth_getProof", [L1_BLOCK, slots, head.number]);
    expect(l1Block.storageProof.map((s) => s.key)).toEqual(slots);
    expect(l1Block.accountProof.length).toBeGreaterThan(0);
    expect(l1Block.storageHash).not.toBe(
      "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
    );
    await verify(l1Block, head.stateRoot);
    for (const slot of l1Block.storageProof) {
      const stored = await call<Hex>(node.url, "eth_getStorageAt", [L1_BLOCK, slot.key, head.number]);
      expect(BigInt(stored)).toBe(BigInt(slot.value));
    }
    expect(l1Block.storageProof.some((s) => s.value !== "0x0")).toBe(true);

    const funded = await call<Proof>(node.url, "eth_getProof", [
      node.accounts[0]!.address,
      [],
      { blockHash: head.hash },
    ]);
    expect(BigInt(funded.balance)).toBe(
      BigInt(await call<Hex>(node.url, "eth_getBalance", [node.accounts[0]!.address, head.number])),
    );
    await verify(funded, head.stateRoot);

    const nobody = privateKeyToAccount(generatePrivateKey()).address;
    const absent = await call<Proof>(node.url, "eth_getProof", [nobody, [word(1)], head.number]);
    expect(absent.codeHash).toBe(keccak256("0x"));
    expect(absent.storageProof).toEqual([{ key: word(1), value: "0x0", proof: [] }]);
    await verify(absent, head.stateRoot);

    // viem's getProof reads the same answer.
    const { publicClient } = clients(node);
    const viaViem = await publicClient.getProof({
      address: L1_BLOCK,
      storageKeys: [word(1)],
      blockNumber: BigInt(head.number),
    });
    expect(viaViem.storageHash).toBe(l1Block.storageHash);
    expect(viaViem.storageProof[0]!.value).toBe(BigInt(l1Block.storageProof[1]!.value));
  });

  it("proves against a pending snapshot's state root", async () => {
    const { walletClient } = clients(node, 9);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await walletClient.sendTransaction({ to, value: 77n });
    const { proof, stateRoot } = await waitFor(async () => {
      const pending = await call<{ hash: Hex; stateRoot: Hex }>(node.url, "eth_getBlockByNumber", [
        "pending",
        false,
      ]);
      const r = await rpc(node.url, "eth_getProof", [to, [], { blockHash: pending.hash }]);
      // The snapshot may have been replaced in between: ask again.
      const p = r.body?.result as Proof | undefined;
      return p !== undefined && p.balance === "0x4d" ? { proof: p, stateRoot: pending.stateRoot } : undefined;
    }, "a proof of the pre-confirmed balance");
    await verify(proof, stateRoot);
  });

  it("refuses more than 1024 storage keys and malformed keys", async () => {
    const many = Array.from({ length: 1025 }, (_, i) => word(i));
    const tooMany = await rpc(node.url, "eth_getProof", [L1_BLOCK, many, "latest"]);
    expect(tooMany.body?.error?.code).toBe(-32005);
    const bad = await rpc(node.url, "eth_getProof", [L1_BLOCK, ["0x" + "1".repeat(65)], "latest"]);
    expect(bad.body?.error?.code).toBe(-32602);
    const missing = await rpc(node.url, "eth_getProof", [L1_BLOCK, [], "0x7fffffff"]);
    expect(missing.body?.error?.code).toBe(-32001);
  });
});

describe("small standard methods", () => {
  it("eth_blobBaseFee, net_listening, net_peerCount, web3_sha3", async () => {
    expect(await call(node.url, "eth_blobBaseFee", [])).toBe("0x1");
    expect(await clients(node).publicClient.getBlobBaseFee()).toBe(1n);
    expect(await call(node.url, "net_listening", [])).toBe(true);
    expect(await call(node.url, "net_peerCount", [])).toBe("0x0");
    expect(await call(node.url, "web3_sha3", ["0x68656c6c6f"])).toBe(keccak256("0x68656c6c6f"));
    expect(await call(node.url, "web3_sha3", ["0x"])).toBe(keccak256("0x"));
    expect((await rpc(node.url, "web3_sha3", ["0x123"])).body?.error?.code).toBe(-32602);
  });

  it("txpool_status counts a transaction behind a nonce gap as queued until the gap is filled", async () => {
    type Status = { pending: Hex; queued: Hex };
    const account = privateKeyToAccount(node.accounts[3]!.privateKey);
    const sign = (nonce: number) => signTransfer(node, 3, nonce, account.address, 1n);
    const next = Number(await call<Hex>(node.url, "eth_getTransactionCount", [account.address, "pending"]));
    const before = await call<Status>(node.url, "txpool_status", []);
    const gapped = await call<Hex>(node.url, "eth_sendRawTransaction", [await sign(next + 1)]);
    const during = await call<Status>(node.url, "txpool_status", []);
    expect(BigInt(during.queued)).toBe(BigInt(before.queued) + 1n);
    // The same transaction in geth's content and inspect forms: checksummed sender, decimal nonce.
    type ByNonce = Record<string, { hash: Hex; blockHash: Hex | null }>;
    const content = await call<{ pending: Record<string, ByNonce>; queued: Record<string, ByNonce> }>(
      node.url,
      "txpool_content",
      [],
    );
    expect(content.queued[account.address]?.[String(next + 1)]).toMatchObject({
      hash: gapped,
      blockHash: null,
    });
    const from = await call<{ pending: ByNonce; queued: ByNonce }>(node.url, "txpool_contentFrom", [
      account.address,
    ]);
    expect(Object.keys(from.queued)).toEqual([String(next + 1)]);
    expect(from.queued[String(next + 1)]?.hash).toBe(gapped);
    const inspect = await call<{ queued: Record<string, Record<string, string>> }>(
      node.url,
      "txpool_inspect",
      [],
    );
    expect(inspect.queued[account.address]?.[String(next + 1)]).toBe(
      `${account.address}: 1 wei + 21000 gas × 10000000000 wei`,
    );
    await call(node.url, "eth_sendRawTransaction", [await sign(next)]);
    // Both are executable now; the sequencer takes them into the block being built.
    await waitFor(
      async () =>
        (await call<unknown>(node.url, "eth_getTransactionReceipt", [gapped])) === null ? undefined : true,
      "the gapped transaction included",
    );
    const after = await call<Status>(node.url, "txpool_status", []);
    expect(BigInt(after.queued)).toBe(BigInt(before.queued));
  });
});

describe("eth_createAccessList", () => {
  type Result = { accessList: { address: Hex; storageKeys: Hex[] }[]; gasUsed: Hex; error?: string };
  const L1_BLOCK = "0x4200000000000000000000000000000000000015";
  const GPO = "0x420000000000000000000000000000000000000f";
  const slot = (n: number): Hex => `0x${n.toString(16).padStart(64, "0")}`;
  const selector = (signature: string): Hex => keccak256(viemToHex(signature)).slice(0, 10) as Hex;

  it("lists the recipient's slots and the other contracts a call reads, and the gas with the list", async () => {
    const basefee = await call<Result>(node.url, "eth_createAccessList", [
      { to: L1_BLOCK, data: selector("basefee()") },
      "latest",
    ]);
    expect(basefee.accessList).toEqual([{ address: L1_BLOCK, storageKeys: [slot(1)] }]);
    expect(basefee.error).toBeUndefined();
    // Listing the recipient costs 2 400 without saving anything; the warm slot saves 2 000 of 2 100.
    const plain = BigInt(
      await call<Hex>(node.url, "eth_estimateGas", [{ to: L1_BLOCK, data: selector("basefee()") }, "latest"]),
    );
    expect(BigInt(basefee.gasUsed)).toBe(plain + 2_400n + 1_900n - 2_000n);

    // GasPriceOracle reads L1Block's fee parameters: a second address with its slots.
    const data = encodeFunctionData({
      abi: [
        {
          type: "function",
          name: "getL1Fee",
          stateMutability: "view",
          inputs: [{ type: "bytes" }],
          outputs: [{ type: "uint256" }],
        },
      ],
      functionName: "getL1Fee",
      args: [`0x${"ab".repeat(100)}`],
    });
    const fee = await call<Result>(node.url, "eth_createAccessList", [{ to: GPO, data }]);
    const l1Block = fee.accessList.find((e) => e.address === L1_BLOCK);
    expect(l1Block?.storageKeys.length).toBeGreaterThan(0);
    expect(fee.accessList.every((e) => e.address !== node.accounts[0]!.address.toLowerCase())).toBe(true);
    // Running again with the list gives the same list and gas: it is complete.
    const again = await call<Result>(node.url, "eth_createAccessList", [
      { to: GPO, data, accessList: fee.accessList },
    ]);
    expect(again).toEqual(fee);

    // viem's action reads the same answer.
    const viaViem = await clients(node).publicClient.createAccessList({ to: GPO, data });
    expect(viaViem.gasUsed).toBe(BigInt(fee.gasUsed));
    expect(viaViem.accessList.map((e) => e.address.toLowerCase())).toEqual(
      fee.accessList.map((e) => e.address),
    );
  });

  it("reports a revert in the result's error, not as an RPC error", async () => {
    const reverted = await call<Result>(node.url, "eth_createAccessList", [
      { from: node.accounts[0]!.address, to: L1_BLOCK, data: selector("setL1BlockValuesIsthmus()") },
    ]);
    expect(reverted.error).toMatch(/^execution reverted/);
    expect(BigInt(reverted.gasUsed)).toBeGreaterThan(21_000n);
    const bad = await rpc(node.url, "eth_createAccessList", [{ to: "0x12" }]);
    expect(bad.body?.error?.code).toBe(-32602);
  });
});
