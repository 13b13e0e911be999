/**
 * Records the OpenRPC examples from real calls (docs/spec.md, "Examples recorded from a fresh
 * devnet"): `npx tsx scripts/openrpc-examples/record.ts`, then `npm run codegen`.
 *
 * It starts two fresh standalone chain nodes (different block times, as the tests and `npm run node`
 * use) and a prover host with a local enclave, sends the same signed transaction to both nodes, makes
 * every call of EXAMPLES on both and keeps the answers in spec/examples/<service>.examples.json, which
 * codegen merges into the published documents. An example whose answer differs between the two nodes
 * would not be true on every fresh devnet: the script then fails and names it, and writes nothing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import * as prettier from "prettier";
import { type Hex, keccak256, type TransactionSerializableEIP1559 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { BEACON_ROOTS_CODE } from "../../src/chain/index.js";
import { SuiteError } from "../../src/errors/index.js";
import { hostArgs, startHost } from "../../test/host/spawn-host.js";
import { type NodeProcess, startNodeProcess } from "../../test/node/spawn-node.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OUT_DIR = join(ROOT, "spec/examples");
const RECORDED_BY = "npx tsx scripts/openrpc-examples/record.ts";

type RecordingErrorKind = "call-failed" | "not-deterministic" | "process-failed";

/** Recording could not produce examples that hold on every fresh devnet. */
class ExampleRecordingError extends SuiteError<RecordingErrorKind> {
  readonly package = "scripts";
}

/** Addresses on the dev chain whose state at genesis is fixed (src/chain/dev-chain/predeploys.ts). */
const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000f";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
/** EIP-4788's beacon roots contract: the smallest code in the genesis state. */
const BEACON_ROOTS = "0x000f3df6d732807ef1319fb7b8bb8522d0beac02";
/** GasPriceOracle.decimals() */
const DECIMALS = "0x313ce567";

interface Example {
  readonly method: string;
  readonly name: string;
  readonly params: readonly unknown[];
}

/** What the examples are built from: values every fresh node shares (checked on both). */
interface Context {
  readonly genesisHash: string;
  readonly accounts: readonly { address: string }[];
  /** A transfer from dev account 0 at nonce 0, signed deterministically (RFC 6979). */
  readonly rawTransaction: string;
  readonly transactionHash: string;
}

/**
 * The recorded calls, in the order they run (eth_sendRawTransaction before the calls that read the
 * transaction back, as in the document's order, which @open-rpc/test-coverage follows). Only answers
 * fixed on a fresh chain: genesis block, genesis state, constants, the deterministic transaction.
 */
function examples(ctx: Context): Example[] {
  const [dev0, dev1] = ctx.accounts.map((a) => a.address.toLowerCase());
  const decimalsCall = { to: GAS_PRICE_ORACLE, input: DECIMALS };
  return [
    { method: "optimism_version", name: "the rollup node's version", params: [] },
    { method: "optimism_rollupConfig", name: "the standalone dev chain's rollup config", params: [] },
    { method: "eth_getBlockByNumber", name: "genesis, transaction hashes", params: ["0x0", false] },
    { method: "eth_getBlockByNumber", name: "no such block", params: ["0x7fffffff", false] },
    { method: "eth_getBlockByHash", name: "genesis by hash", params: [ctx.genesisHash, false] },
    { method: "eth_getBalance", name: "a dev account at genesis", params: [dev0, "0x0"] },
    {
      method: "eth_getBalance",
      name: "a dev account at genesis by an EIP-1898 block object",
      params: [dev1, { blockNumber: "0x0" }],
    },
    { method: "eth_chainId", name: "the dev chain", params: [] },
    { method: "eth_getTransactionCount", name: "a dev account at genesis", params: [dev0, "earliest"] },
    {
      method: "eth_sendRawTransaction",
      name: "1 wei from dev account 0, nonce 0",
      params: [ctx.rawTransaction],
    },
    { method: "eth_getBlockReceipts", name: "genesis has no transactions", params: ["0x0"] },
    { method: "eth_getBlockTransactionCountByNumber", name: "genesis", params: ["0x0"] },
    { method: "eth_getBlockTransactionCountByHash", name: "genesis", params: [ctx.genesisHash] },
    { method: "eth_getTransactionByBlockNumberAndIndex", name: "no such index", params: ["0x0", "0x0"] },
    {
      method: "eth_getTransactionByBlockHashAndIndex",
      name: "no such index",
      params: [ctx.genesisHash, "0x0"],
    },
    { method: "eth_getUncleCountByBlockNumber", name: "genesis", params: ["0x0"] },
    { method: "eth_getUncleCountByBlockHash", name: "genesis", params: [ctx.genesisHash] },
    { method: "eth_call", name: "GasPriceOracle.decimals() at genesis", params: [decimalsCall, "0x0"] },
    { method: "eth_estimateGas", name: "a plain transfer", params: [{ from: dev0, to: dev1, value: "0x1" }] },
    {
      method: "eth_createAccessList",
      name: "GasPriceOracle.decimals() at genesis",
      params: [{ from: dev0, ...decimalsCall }, "0x0"],
    },
    { method: "eth_feeHistory", name: "genesis, median reward", params: ["0x1", "0x0", [50]] },
    { method: "eth_getCode", name: "the EIP-4788 beacon roots contract", params: [BEACON_ROOTS, "0x0"] },
    { method: "eth_getStorageAt", name: "L1Block slot 0 at genesis", params: [L1_BLOCK, "0x0", "0x0"] },
    { method: "eth_getProof", name: "a dev account at genesis", params: [dev0, [], "0x0"] },
    { method: "eth_getLogs", name: "genesis has no logs", params: [{ fromBlock: "0x0", toBlock: "0x0" }] },
    { method: "net_version", name: "the dev chain", params: [] },
    { method: "web3_clientVersion", name: "this node", params: [] },
    { method: "debug_getRawHeader", name: "genesis", params: ["0x0"] },
    { method: "debug_getRawBlock", name: "genesis", params: ["0x0"] },
    { method: "debug_getRawReceipts", name: "genesis", params: ["0x0"] },
    { method: "debug_getRawTransaction", name: "the transaction sent above", params: [ctx.transactionHash] },
    {
      method: "debug_dbGet",
      name: "the beacon roots contract's code by its code hash",
      params: [`0x63${keccak256(BEACON_ROOTS_CODE as Hex).slice(2)}`],
    },
    { method: "eth_uninstallFilter", name: "no such filter", params: ["0x1"] },
    { method: "eth_unsubscribe", name: "no such subscription", params: ["0x1"] },
    { method: "eth_accounts", name: "the node signs for no account", params: [] },
    { method: "eth_syncing", name: "the dev chain is in sync", params: [] },
    { method: "eth_blobBaseFee", name: "no blobs on L2", params: [] },
    { method: "net_listening", name: "serving", params: [] },
    { method: "net_peerCount", name: "no peers", params: [] },
    { method: "web3_sha3", name: 'keccak256 of "hello"', params: ["0x68656c6c6f"] },
    { method: "txpool_contentFrom", name: "a dev account that sent nothing", params: [dev1] },
  ];
}

const PROVER_EXAMPLES: Example[] = [
  { method: "enclave_teeImageHash", name: "one local-mode enclave (no PCR0: the zero hash)", params: [] },
  { method: "healthz", name: "healthy (no registry configured)", params: [] },
];

let nextId = 1;
async function call(url: string, method: string, params: readonly unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  if (body.error !== undefined || !("result" in body))
    throw new ExampleRecordingError(`${method} at ${url}: ${JSON.stringify(body.error)}`, {
      kind: "call-failed",
      details: { method, url, error: body.error },
    });
  return body.result;
}

/** The shared context, read from one node and checked on the other. */
async function context(nodes: readonly NodeProcess[]): Promise<Context> {
  const genesis = await Promise.all(
    nodes.map(
      (n) =>
        call(n.url, "eth_getBlockByNumber", ["0x0", false]) as Promise<{
          hash: string;
          baseFeePerGas: string;
        }>,
    ),
  );
  const [first, ...others] = nodes;
  if (first === undefined) throw new ExampleRecordingError("no node", { kind: "process-failed" });
  const same = (what: string, values: unknown[]): void => {
    if (!values.every((v) => isDeepStrictEqual(v, values[0])))
      throw new ExampleRecordingError(`fresh nodes differ in ${what}: ${JSON.stringify(values)}`, {
        kind: "not-deterministic",
        details: { what },
      });
  };
  same(
    "the genesis hash",
    genesis.map((g) => g.hash),
  );
  same(
    "the dev accounts",
    [first, ...others].map((n) => n.accounts),
  );
  const chainId = Number(await call(first.url, "eth_chainId", []));
  const [sender, recipient] = first.accounts;
  if (sender === undefined || recipient === undefined)
    throw new ExampleRecordingError("the node printed fewer than two dev accounts", {
      kind: "process-failed",
    });
  const baseFee = BigInt(genesis[0]!.baseFeePerGas);
  const transaction: TransactionSerializableEIP1559 = {
    type: "eip1559",
    chainId,
    nonce: 0,
    to: recipient.address,
    value: 1n,
    gas: 21_000n,
    maxPriorityFeePerGas: 1_000n,
    // Twice genesis's base fee: blocks after genesis are empty until this one, so their base fee falls.
    maxFeePerGas: 2n * baseFee + 1_000n,
  };
  const account = privateKeyToAccount(sender.privateKey);
  const rawTransaction = await account.signTransaction(transaction);
  return {
    genesisHash: genesis[0]!.hash,
    accounts: first.accounts,
    rawTransaction,
    transactionHash: keccak256(rawTransaction as Hex),
  };
}

/** Each example called on every url in turn; its answer must be the same everywhere. */
async function recordAll(urls: readonly string[], list: readonly Example[]) {
  const methods: Record<string, { name: string; params: readonly unknown[]; result: unknown }[]> = {};
  const differing: string[] = [];
  for (const example of list) {
    const answers: unknown[] = [];
    for (const url of urls) answers.push(await call(url, example.method, example.params));
    if (!answers.every((a) => isDeepStrictEqual(a, answers[0]))) {
      differing.push(
        `${example.method} (${example.name}): ${answers.map((a) => JSON.stringify(a).slice(0, 200)).join(" vs ")}`,
      );
      continue;
    }
    (methods[example.method] ??= []).push({ name: example.name, params: example.params, result: answers[0] });
  }
  if (differing.length > 0)
    throw new ExampleRecordingError(`answers differ between fresh processes:\n${differing.join("\n")}`, {
      kind: "not-deterministic",
      details: { differing },
    });
  return methods;
}

/** A local-mode enclave on a Unix socket (as the tests start one). */
async function startLocalEnclave(): Promise<{ path: string; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "openrpc-examples-enclave-"));
  const path = join(dir, "enclave.sock");
  const child = spawn(process.execPath, ["--import", "tsx", "enclave/main.ts", "--local", "--listen", path], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes('"enclave listening"')) resolve();
    });
    child.once("exit", (code) =>
      reject(
        new ExampleRecordingError(`the enclave exited (${code})`, {
          kind: "process-failed",
          details: { code },
        }),
      ),
    );
  });
  return { path, child, dir };
}

/** Writes a service's examples file, formatted as the repository's prettier check wants it. */
async function write(serviceId: string, methods: object): Promise<void> {
  const path = join(OUT_DIR, `${serviceId}.examples.json`);
  const text = JSON.stringify({ recordedBy: RECORDED_BY, methods });
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(text, { ...options, filepath: path }));
  console.log(`wrote ${path} (${Object.values(methods).flat().length} examples)`);
}

async function main(): Promise<void> {
  const nodes = await Promise.all([
    startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 100 }),
    startNodeProcess({ blockTimeMs: 2000 }),
  ]);
  const enclave = await startLocalEnclave();
  const host = await startHost(hostArgs({ enclaves: [enclave.path] }));
  try {
    const ctx = await context(nodes);
    const node = await recordAll(
      nodes.map((n) => n.url),
      examples(ctx),
    );
    // Two calls to one host: its answers must not change between calls either.
    const prover = await recordAll([host.url, host.url], PROVER_EXAMPLES);
    await write("node", node);
    await write("prover", prover);
  } finally {
    await Promise.all([...nodes.map((n) => n.stop()), host.stop()]);
    enclave.child.kill("SIGTERM");
    rmSync(enclave.dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
