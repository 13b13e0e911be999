/**
 * `npm run conformance:record [-- --out <dir>]`: records the suite's devnet witness (docs/conformance.md
 * "The recorded witness"). Starts a small L1-backed chain of real processes (anvil with the L1 contracts, our
 * node in L1 mode: test/node/l1-chain.ts), sends a deposit through the L1 portal and L2 transfers, starts the
 * batcher (blob DA) once the range exists, waits until the range is safe, collects the witness for it with the
 * host's collector (src/host's collectWitness, exactly as the host does), checks the program's roots against the
 * node's optimism_outputAtBlock, and writes the three fixture files (conformance/fixture.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { createWalletClient, type Hex, hexToBytes, http, parseEther, parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { depositPortalAbi } from "../contracts/index.js";
import { preimageKeyTypeFromDiscriminant } from "../generated/protocol/index.js";
import { devAccounts, rollupConfigToJson, toHex } from "../src/chain/index.js";
import { collectWitness } from "../src/host/index.js";
import type { BootInfo } from "../src/proof/preimages/index.js";
import { type BatcherProcess, startChainBatcher, startL1Chain } from "../test/node/l1-chain.js";
import { ConformanceError } from "./errors.js";
import { FIXTURE_DIR, FIXTURE_FORMAT, type RecordedManifest } from "./fixture.js";
import { witnessJson } from "./witness.js";

const USAGE = `usage: npm run conformance:record -- [--out <dir>]

Starts anvil with the L1 contracts, our node in L1 mode and the batcher (blob DA), makes a short range holding
an L1 deposit and an L2 transfer safe, collects its Prove witness with the host's collector and writes
devnet-witness.json.gz, devnet-rollup.json and devnet-witness.manifest.json into --out
(default conformance/fixtures/). Takes one to a few minutes.`;

/** The recording could not be made (a timeout, a disagreement between the program and the node). */
class RecordingError extends ConformanceError<"recording"> {
  override readonly name = "RecordingError";
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, { kind: "recording", details });
  }
}

interface Output {
  outputRoot: Hex;
  blockRef: { hash: Hex; number: number };
  syncStatus: { safe_l2: { number: number } };
}

interface Block {
  transactions: { hash: Hex; type: Hex }[];
}

async function call<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new RecordingError(`${method}: ${body.error.message}`, { method });
  return body.result as T;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new RecordingError(`timed out waiting for ${what}`, { what });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function record(outDir: string): Promise<RecordedManifest> {
  const chain = await startL1Chain({ blockTime: 1 });
  let batcher: BatcherProcess | undefined;
  try {
    const output = (n: number) =>
      call<Output>(chain.node.url, "optimism_outputAtBlock", [`0x${n.toString(16)}`]);
    const block = (n: number) =>
      call<Block | null>(chain.node.url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true]);
    const wallet = createWalletClient({
      account: privateKeyToAccount(devAccounts(8)[7]!.privateKey),
      chain: chain.l2.chain,
      transport: http(chain.node.url, { timeout: 60_000 }),
    });
    const transfer = async (i: number): Promise<{ block: number; hash: Hex }> => {
      const hash = await wallet.sendTransaction({
        to: devAccounts(10)[9]!.address,
        value: BigInt(1000 + i),
        maxFeePerGas: parseGwei("50"),
        maxPriorityFeePerGas: parseGwei("1"),
      });
      const receipt = await chain.l2.waitForTransactionReceipt({ hash, pollingInterval: 100 });
      return { block: Number(receipt.blockNumber), hash };
    };
    // A deposit through the L1 portal; L2 transfers go on until it is in a sealed L2 block.
    const l1Wallet = createWalletClient({
      account: privateKeyToAccount(devAccounts(7)[6]!.privateKey),
      chain: chain.l1.anvil.chain,
      transport: http(chain.l1.anvil.rpcUrl, { timeout: 60_000 }),
    });
    const depositTx = await l1Wallet.writeContract({
      address: chain.l1.deployment.depositPortal,
      abi: depositPortalAbi,
      functionName: "depositTransaction",
      args: [devAccounts(7)[6]!.address, parseEther("0.5"), 100_000n, false, "0x"],
      value: parseEther("1"),
    });
    const receipt = await chain.l1.anvil.client.waitForTransactionReceipt({
      hash: depositTx,
      pollingInterval: 100,
    });
    if (receipt.status !== "success") throw new RecordingError("the L1 deposit reverted", { depositTx });
    const userTransactions: { block: number; hash: string }[] = [];
    let deposit: { block: number; hash: string } | undefined;
    let scanned = 1;
    for (let i = 0; deposit === undefined; i++) {
      userTransactions.push(await transfer(i));
      const last = userTransactions.at(-1)!.block;
      for (; scanned <= last && deposit === undefined; scanned++) {
        const sealed = await block(scanned);
        if (sealed === null) break;
        // Every block starts with the L1 info deposit; a second deposit transaction is the user deposit.
        const deposits = sealed.transactions.filter((tx) => tx.type === "0x7e");
        if (deposits.length >= 2) deposit = { block: scanned, hash: deposits[1]!.hash };
      }
      if (i > 120) throw new RecordingError("the deposit never reached L2");
    }
    // The range: the deposit's block and the block of one transfer after it.
    const after = await transfer(10_000);
    userTransactions.push(after);
    const agreed = deposit.block - 1;
    const claimed = after.block;
    batcher = startChainBatcher(chain);
    await until(
      "the safe head to pass the claimed block",
      async () => ((await output(0)).syncStatus.safe_l2.number >= claimed ? true : undefined),
      600_000,
    ).catch((error: unknown) => {
      throw new RecordingError(`${(error as Error).message}\n${batcher?.output().slice(-3000) ?? ""}`);
    });
    const l1Head = await chain.l1.anvil.client.getBlock({ blockTag: "latest" });
    const agreedOut = await output(agreed);
    const roots: Hex[] = [];
    for (let n = agreed + 1; n <= claimed; n++) roots.push((await output(n)).outputRoot);
    const boot: BootInfo = {
      l1Head: hexToBytes(l1Head.hash),
      l1HeadNumber: l1Head.number,
      agreedOutputRoot: hexToBytes(agreedOut.outputRoot),
      claimedOutputRoot: hexToBytes(roots.at(-1)!),
      claimedL2BlockNumber: BigInt(claimed),
      chainId: chain.rollup.l2ChainId,
      proposer: hexToBytes(devAccounts(3)[2]!.address),
      intermediateBlockInterval: 1n,
    };
    const collected = await collectWitness({
      boot,
      agreedL2HeadHash: hexToBytes(agreedOut.blockRef.hash),
      l1RpcUrl: chain.l1.anvil.rpcUrl,
      l1BeaconUrl: chain.l1.anvil.beaconUrl,
      l2RpcUrl: chain.node.url,
      rollupConfig: chain.rollup,
    });
    const programRoots = collected.result.outputRoots.map((root) => toHex(root));
    if (JSON.stringify(programRoots) !== JSON.stringify(roots)) {
      throw new RecordingError("the program's roots differ from the node's", { programRoots, roots });
    }
    const keyTypes: Record<string, number> = {};
    for (const [key] of collected.preimages) {
      const type = preimageKeyTypeFromDiscriminant(key[0]!) ?? String(key[0]);
      keyTypes[type] = (keyTypes[type] ?? 0) + 1;
    }
    const inRange = (b: number) => b > agreed && b <= claimed;
    const manifest: RecordedManifest = {
      format: FIXTURE_FORMAT,
      recordedAt: new Date().toISOString(),
      command: "npm run conformance:record",
      witness: "devnet-witness.json.gz",
      rollupConfig: "devnet-rollup.json",
      dataAvailability: "blobs",
      boot: {
        l1Head: l1Head.hash,
        l1HeadNumber: Number(l1Head.number),
        agreedOutputRoot: agreedOut.outputRoot,
        claimedOutputRoot: roots.at(-1)!,
        claimedL2BlockNumber: claimed,
        chainId: chain.rollup.l2ChainId.toString(),
        proposer: toHex(boot.proposer),
        intermediateBlockInterval: 1,
      },
      agreedL2HeadHash: agreedOut.blockRef.hash,
      startBlock: agreed,
      outputRoots: roots,
      contents: {
        userTransactions: userTransactions.filter((t) => inRange(t.block)),
        deposits: [deposit],
      },
      preimageCount: collected.preimages.length,
      keyTypes,
    };
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      `${outDir}/devnet-witness.json.gz`,
      gzipSync(witnessJson(collected.preimages), { level: 9 }),
    );
    writeFileSync(
      `${outDir}/devnet-rollup.json`,
      `${JSON.stringify(rollupConfigToJson(chain.rollup), null, 2)}\n`,
    );
    writeFileSync(`${outDir}/devnet-witness.manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    await batcher?.stop(15_000);
    await chain.stop();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { out: { type: "string" }, help: { type: "boolean", short: "h" } },
    strict: true,
  });
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const outDir = values.out ?? FIXTURE_DIR;
  const manifest = await record(outDir);
  console.log(
    JSON.stringify({
      msg: "recorded",
      outDir,
      range: [manifest.startBlock, manifest.boot.claimedL2BlockNumber],
      preimages: manifest.preimageCount,
      keyTypes: manifest.keyTypes,
    }),
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`conformance:record: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof TypeError) console.error(USAGE);
    process.exit(error instanceof RecordingError ? 1 : 2);
  },
);
