/** The published OpenRPC documents: valid, and listing exactly the spec's methods with params, results and errors. */
import { readFile } from "node:fs/promises";
import { dereferenceDocument, MethodCallValidator, validateOpenRPCDocument } from "@open-rpc/schema-utils-js";
import { describe, expect, it } from "vitest";
import {
  eth_getBalance,
  eth_getBlockByNumber,
  eth_getLogs,
  nodeMethods,
  prover_prove,
  proverMethods,
} from "../../generated/rpc/index.js";
import type { RpcMethodSpec } from "../../src/rpc/method.js";
import type { OpenrpcDocument } from "./openrpc.js";

type Json = Record<string, unknown>;

async function published(id: "node" | "prover"): Promise<OpenrpcDocument> {
  const url = new URL(`../../generated/openrpc/${id}.openrpc.json`, import.meta.url);
  return JSON.parse(await readFile(url, "utf8")) as OpenrpcDocument;
}

/** method -> [params as "name" / "name?", result schema, error codes] written from the spec and notes. */
type Expected = Record<string, [string[], Json, number[]]>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const orNull = (schema: Json): Json => ({ anyOf: [schema, { type: "null" }] });
const arrayOf = (schema: Json): Json => ({ type: "array", items: schema });

const NODE: Expected = {
  // The rollup-node methods come first: NodeApi extends OptimismApi (spec/typespec/optimism.tsp).
  optimism_outputAtBlock: [["blockNumber"], ref("OutputResponse"), [-32602, -32001, -32005]],
  optimism_syncStatus: [[], ref("SyncStatus"), [-32602, -32005]],
  optimism_rollupConfig: [[], ref("RollupConfig"), [-32602, -32005]],
  optimism_version: [[], { type: "string" }, [-32602, -32005]],
  eth_getBlockByNumber: [["block", "fullTransactions"], orNull(ref("Block")), [-32602, -32005]],
  eth_getBlockByHash: [["blockHash", "fullTransactions"], orNull(ref("Block")), [-32602, -32005]],
  eth_getBalance: [["address", "block?"], ref("Quantity"), [-32602, -32001, -32005]],
  eth_chainId: [[], ref("Quantity"), [-32602, -32005]],
  eth_blockNumber: [[], ref("Quantity"), [-32602, -32005]],
  eth_getTransactionCount: [["address", "block?"], ref("Quantity"), [-32602, -32001, -32005]],
  eth_sendRawTransaction: [["transaction"], ref("Hash32"), [-32602, -32000, -32005]],
  eth_getTransactionByHash: [["transactionHash"], orNull(ref("Transaction")), [-32602, -32005]],
  eth_getTransactionReceipt: [["transactionHash"], orNull(ref("Receipt")), [-32602, -32005]],
  eth_getBlockReceipts: [["block"], orNull(arrayOf(ref("Receipt"))), [-32602, -32005]],
  eth_getBlockTransactionCountByNumber: [["block"], orNull(ref("Quantity")), [-32602, -32005]],
  eth_getBlockTransactionCountByHash: [["blockHash"], orNull(ref("Quantity")), [-32602, -32005]],
  eth_getTransactionByBlockNumberAndIndex: [["block", "index"], orNull(ref("Transaction")), [-32602, -32005]],
  eth_getTransactionByBlockHashAndIndex: [
    ["blockHash", "index"],
    orNull(ref("Transaction")),
    [-32602, -32005],
  ],
  eth_getUncleCountByBlockNumber: [["block"], orNull(ref("Quantity")), [-32602, -32005]],
  eth_getUncleCountByBlockHash: [["blockHash"], orNull(ref("Quantity")), [-32602, -32005]],
  eth_call: [["transaction", "block?"], ref("Data"), [-32602, -32001, 3, -32000, -32005]],
  eth_estimateGas: [["transaction", "block?"], ref("Quantity"), [-32602, -32001, 3, -32000, -32005]],
  eth_createAccessList: [
    ["transaction", "block?"],
    ref("AccessListResult"),
    [-32602, -32001, -32000, -32005],
  ],
  eth_gasPrice: [[], ref("Quantity"), [-32602, -32005]],
  eth_maxPriorityFeePerGas: [[], ref("Quantity"), [-32602, -32005]],
  eth_feeHistory: [
    ["blockCount", "newestBlock", "rewardPercentiles?"],
    ref("FeeHistory"),
    [-32602, -32001, -32005],
  ],
  eth_getCode: [["address", "block?"], ref("Data"), [-32602, -32001, -32005]],
  eth_getStorageAt: [["address", "slot", "block?"], ref("Hash32"), [-32602, -32001, -32005]],
  eth_getProof: [["address", "storageKeys", "block?"], ref("AccountProof"), [-32602, -32001, -32005]],
  eth_getLogs: [["filter"], arrayOf(ref("Log")), [-32602, -32001, -32005]],
  net_version: [[], ref("DecimalUint"), [-32602, -32005]],
  web3_clientVersion: [[], { type: "string" }, [-32602, -32005]],
  eth_sendRawTransactionSync: [["transaction", "timeoutMs?"], ref("Receipt"), [-32602, -32000, 4, -32005]],
  debug_getRawHeader: [["block"], orNull(ref("Data")), [-32602, -32005]],
  debug_getRawBlock: [["block"], orNull(ref("Data")), [-32602, -32005]],
  debug_getRawReceipts: [["block"], orNull(arrayOf(ref("Data"))), [-32602, -32005]],
  debug_getRawTransaction: [["transactionHash"], orNull(ref("Data")), [-32602, -32005]],
  debug_dbGet: [["key"], orNull(ref("Data")), [-32602, -32000, -32005]],
  debug_executionWitness: [["block"], ref("ExecutionWitness"), [-32602, -32001, -32005]],
  debug_executePayload: [
    ["parentHash", "attributes"],
    ref("ExecutionWitness"),
    [-32602, -32001, -32000, -32005],
  ],
  eth_newFilter: [["filter"], { type: "string" }, [-32602, -32005]],
  eth_newBlockFilter: [[], { type: "string" }, [-32005, -32602]],
  eth_newPendingTransactionFilter: [[], { type: "string" }, [-32005, -32602]],
  eth_getFilterChanges: [["filterId"], ref("FilterChanges"), [-32000, -32602, -32005]],
  eth_getFilterLogs: [["filterId"], arrayOf(ref("Log")), [-32000, -32602, -32001, -32005]],
  eth_uninstallFilter: [["filterId"], { type: "boolean" }, [-32602, -32005]],
  eth_subscribe: [["kind", "filter?"], { type: "string" }, [-32602, -32601, -32005]],
  eth_unsubscribe: [["subscriptionId"], { type: "boolean" }, [-32602, -32005]],
  eth_accounts: [[], arrayOf(ref("Address")), [-32602, -32005]],
  eth_syncing: [
    [],
    { anyOf: [{ type: "boolean" }, { $ref: "#/components/schemas/SyncProgress" }] },
    [-32602, -32005],
  ],
  eth_blobBaseFee: [[], ref("Quantity"), [-32602, -32005]],
  net_listening: [[], { type: "boolean" }, [-32602, -32005]],
  net_peerCount: [[], ref("Quantity"), [-32602, -32005]],
  web3_sha3: [["data"], ref("Hash32"), [-32602, -32005]],
  txpool_status: [[], ref("TxPoolStatus"), [-32602, -32005]],
  txpool_content: [[], ref("TxPoolContent"), [-32602, -32005]],
  txpool_contentFrom: [["address"], ref("TxPoolContentFrom"), [-32602, -32005]],
  txpool_inspect: [[], ref("TxPoolInspect"), [-32602, -32005]],
};

const PROVER: Expected = {
  prover_prove: [["request"], ref("ProofResult"), [-32602, -32000, -32001, -32005]],
  enclave_signerPublicKey: [[], arrayOf(ref("PublicKeyBytes")), [-32001, -32602, -32005]],
  enclave_signerAttestation: [["user_data?", "nonce?"], arrayOf(ref("ByteArray")), [-32602, -32001, -32005]],
  enclave_teeImageHash: [[], arrayOf(ref("Hash32")), [-32001, -32602, -32005]],
  healthz: [[], ref("HealthzResult"), [-32001, -32602, -32005]],
};

/** docs/protocol.md "Block object": every field of the table. */
const BLOCK_FIELDS = [
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

function checkMethods(document: OpenrpcDocument, expected: Expected): void {
  const methods = document.methods as unknown as Json[];
  expect(methods.map((m) => m.name)).toEqual(Object.keys(expected));
  const errors = (document.components?.errors ?? {}) as Record<string, { code: number }>;
  for (const method of methods) {
    const [params, result, codes] = expected[method.name as string] ?? [[], {}, []];
    const described = (method.params as Json[]).map((p) => (p.required ? p.name : `${String(p.name)}?`));
    expect(described, `${String(method.name)} params`).toEqual(params);
    expect((method.result as Json).schema, `${String(method.name)} result`).toEqual(result);
    const errorCodes = (method.errors as { $ref: string }[]).map(
      (e) => errors[e.$ref.split("/").pop() ?? ""]?.code,
    );
    expect(errorCodes, `${String(method.name)} errors`).toEqual(codes);
  }
}

describe("generated/openrpc", () => {
  it.each(["node", "prover"] as const)("%s.openrpc.json validates and dereferences", async (id) => {
    const document = await published(id);
    expect(validateOpenRPCDocument(document)).toBe(true);
    await expect(dereferenceDocument(structuredClone(document))).resolves.toBeDefined();
  });

  it.each([
    ["node", "http://127.0.0.1:8545"],
    ["prover", "http://127.0.0.1:7300"],
  ] as const)("%s.openrpc.json is OpenRPC 1.2.6 with the devnet's server %s", async (id, url) => {
    const document = (await published(id)) as unknown as Json;
    // 1.2.6: what @open-rpc/test-coverage's meta-schema and @open-rpc/generator's client types accept.
    expect(document.openrpc).toBe("1.2.6");
    // test-coverage needs an absolute URL to call.
    expect(document.servers).toEqual([{ name: "devnet", url }]);
  });

  it.each(["node", "prover"] as const)(
    "%s.openrpc.json: no two schemas share a title, and components are titled by their name",
    async (id) => {
      const document = await published(id);
      const seen = new Map<string, string[]>();
      const walk = (value: unknown, path: string): void => {
        if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}/${i}`));
        else if (typeof value === "object" && value !== null) {
          const title = (value as Json).title;
          if (typeof title === "string") seen.set(title, [...(seen.get(title) ?? []), path]);
          for (const [k, v] of Object.entries(value)) walk(v, `${path}/${k}`);
        }
      };
      walk(document, "#");
      const shared = [...seen].filter(([, paths]) => paths.length > 1);
      expect(shared).toEqual([]);
      const schemas = document.components?.schemas as Record<string, Json>;
      for (const [name, schema] of Object.entries(schemas)) expect(schema.title).toBe(name);
      // Named union variants are titled after their union (generated types become e.g. BlockNumberOrTagNumber).
      expect(seen.size).toBeGreaterThan(Object.keys(schemas).length);
    },
  );

  it("the node document lists exactly the chain node methods", async () => {
    checkMethods(await published("node"), NODE);
  });

  it("the prover document lists exactly the prover host methods, accepting named params", async () => {
    const document = await published("prover");
    checkMethods(document, PROVER);
    expect((document.methods as unknown as Json[]).map((m) => m.paramStructure)).toEqual([
      "either",
      "either",
      "either",
      "either",
      "either",
    ]);
  });

  it("models carry the spec's fields and formats", async () => {
    const schemas = (await published("node")).components?.schemas as Record<string, Json>;
    expect(Object.keys(schemas.Block?.properties as Json)).toEqual(BLOCK_FIELDS);
    const deposit = schemas.DepositTransaction as { properties: Json; required: string[] };
    for (const field of [
      "sourceHash",
      "from",
      "to",
      "mint",
      "value",
      "gas",
      "isSystemTx",
      "input",
      "nonce",
      "depositReceiptVersion",
      "gasPrice",
      "v",
      "r",
      "s",
      "yParity",
    ]) {
      expect(deposit.properties, field).toHaveProperty(field);
    }
    expect(deposit.required).not.toContain("isSystemTx");
    expect(deposit.properties.type).toEqual({ type: "string", const: "0x7e" });
    expect(schemas.Quantity?.pattern).toBe("^0x(0|[1-9a-f][0-9a-f]{0,63})$");
    expect(schemas.Address?.pattern).toBe("^0x[0-9a-fA-F]{40}$");
    expect(schemas.BlockTag?.anyOf).toEqual(
      ["latest", "pending", "safe", "finalized", "earliest"].map((t) => ({ type: "string", const: t })),
    );

    const prover = (await published("prover")).components?.schemas as Record<string, Json>;
    expect(prover.ProofRequest?.required).toEqual([
      "l1_head",
      "l1_head_number",
      "agreed_l2_head_hash",
      "agreed_l2_output_root",
      "claimed_l2_output_root",
      "claimed_l2_block_number",
      "proposer",
      "intermediate_block_interval",
    ]);
    expect(prover.ProofResult?.required).toEqual(["Tee"]);
    expect(prover.PublicKeyBytes).toMatchObject({ type: "array", minItems: 65, maxItems: 65 });
    expect(prover.AttestationInput).toMatchObject({ type: "array", maxItems: 512 });
    expect(Object.keys(prover)).not.toContain("Block");
  });

  it("param schemas state the server's constraints", async () => {
    const node = await published("node");
    const schemas = node.components?.schemas as Record<string, Json>;
    expect(schemas.Filter?.not).toEqual({
      anyOf: [{ required: ["blockHash", "fromBlock"] }, { required: ["blockHash", "toBlock"] }],
    });
    expect(schemas.NewFilter?.not).toEqual({ required: ["blockHash"] });
    const param = (method: string, name: string): Json | undefined =>
      (node.methods as { name: string; params: { name: string; schema: Json }[] }[])
        .find((m) => m.name === method)
        ?.params.find((p) => p.name === name)?.schema;
    expect(param("eth_newFilter", "filter")).toEqual(ref("NewFilter"));
    expect(param("eth_feeHistory", "rewardPercentiles")).toEqual({
      type: "array",
      items: { type: "number", minimum: 0, maximum: 100 },
    });
    expect(param("eth_sendRawTransactionSync", "timeoutMs")).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 60000,
    });
    const prover = (await published("prover")).components?.schemas as Record<string, Json>;
    expect(prover.PositiveJsonU64).toMatchObject({ type: "integer", minimum: 1 });
    const request = prover.ProofRequest?.properties as Record<string, Json>;
    expect(request.intermediate_block_interval).toMatchObject(ref("PositiveJsonU64"));
    expect(request.claimed_l2_block_number).toMatchObject(ref("PositiveJsonU64"));
  });

  it("every published example goes through the generated codecs unchanged", async () => {
    const specs: Record<string, RpcMethodSpec<unknown, unknown>> = { ...nodeMethods, ...proverMethods };
    let checked = 0;
    for (const id of ["node", "prover"] as const) {
      for (const method of (await published(id)).methods as unknown as Json[]) {
        const spec = specs[method.name as string];
        if (spec === undefined) throw new Error(`no spec for ${String(method.name)}`);
        for (const example of (method.examples ?? []) as {
          params: { value: unknown }[];
          result: { value: unknown };
        }[]) {
          const params = spec.decodeParams(example.params.map((p) => p.value));
          expect(spec.decodeParams(spec.encodeParams(params))).toEqual(params);
          expect(spec.encodeResult(spec.decodeResult(example.result.value))).toEqual(example.result.value);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });

  it("params encoded by the generated codecs satisfy the published schemas", async () => {
    const node = new MethodCallValidator(await dereferenceDocument(await published("node")));
    const prover = new MethodCallValidator(await dereferenceDocument(await published("prover")));
    const address = new Uint8Array(20).fill(0xaa);
    expect(
      node.validate(
        "eth_getBlockByNumber",
        eth_getBlockByNumber.encodeParams({ block: 123n, fullTransactions: true }),
      ),
    ).toEqual([]);
    expect(
      node.validate(
        "eth_getBalance",
        eth_getBalance.encodeParams({ address, block: { blockHash: new Uint8Array(32) } }),
      ),
    ).toEqual([]);
    expect(
      node.validate(
        "eth_getLogs",
        eth_getLogs.encodeParams({ filter: { fromBlock: "safe", topics: [null, [new Uint8Array(32)]] } }),
      ),
    ).toEqual([]);
    const request = {
      l1_head: new Uint8Array(32),
      l1_head_number: 1n,
      agreed_l2_head_hash: new Uint8Array(32),
      agreed_l2_output_root: new Uint8Array(32),
      claimed_l2_output_root: new Uint8Array(32),
      claimed_l2_block_number: 2n,
      proposer: address,
      intermediate_block_interval: 1n,
    };
    expect(prover.validate("prover_prove", prover_prove.encodeParams({ request }))).toEqual([]);
    // And the published schemas reject what the codecs reject.
    expect(node.validate("eth_getBalance", [`0x${"aa".repeat(19)}`, "latest"])).not.toEqual([]);
    expect(node.validate("eth_getBlockByNumber", ["lates", false])).not.toEqual([]);
  });
});
