/**
 * Generated clients against generated handler tables, through a transport that goes through JSON
 * text like a real connection: typed params in, typed results out, RpcErrors carried as codes.
 */
import { describe, expect, it } from "vitest";
import { RpcError, toRpcError } from "../../src/rpc/errors.js";
import type { MethodTable, RequestContext } from "../../src/rpc/method.js";
import {
  bindNodeHandlers,
  bindProverHandlers,
  BlockNotFoundError,
  ExecutionRevertedError,
  NodeClient,
  type NodeHandlers,
  NoValidSignerError,
  PreconfirmationTimeoutError,
  ProverClient,
  type ProverHandlers,
  type RpcTransport,
  type Block,
  type Proposal,
} from "../../generated/rpc/index.js";

/** A JSON-RPC error object received by a client. */
class RemoteError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

/** Serializes the call, dispatches it on the table and serializes the response back, like a server would. */
function inProcessTransport(table: MethodTable): RpcTransport {
  const ctx: RequestContext = {
    transport: "http",
    signal: new AbortController().signal,
    responseHeaders: new Map(),
  };
  return async (method, params) => {
    const request = JSON.parse(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })) as {
      method: string;
      params: unknown;
    };
    const bound = table.get(request.method);
    if (bound === undefined) throw new RemoteError(-32601, `no method ${method}`, undefined);
    let response: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      response = { result: await bound.invoke(request.params, ctx) };
    } catch (error) {
      response = { error: toRpcError(error).toJSON() };
    }
    const parsed = JSON.parse(JSON.stringify(response)) as typeof response;
    if (parsed.error !== undefined)
      throw new RemoteError(parsed.error.code, parsed.error.message, parsed.error.data);
    return parsed.result;
  };
}

const bytes = (length: number, fill: number): Uint8Array => new Uint8Array(length).fill(fill);

const BLOCK: Block = {
  number: 26_207_961n,
  hash: bytes(32, 1),
  parentHash: bytes(32, 2),
  nonce: bytes(8, 0),
  sha3Uncles: bytes(32, 3),
  logsBloom: bytes(256, 0),
  transactionsRoot: bytes(32, 4),
  stateRoot: bytes(32, 5),
  receiptsRoot: bytes(32, 6),
  miner: bytes(20, 0x42),
  difficulty: 0n,
  mixHash: bytes(32, 7),
  extraData: Uint8Array.of(0, 0, 0, 0, 0xfa),
  size: 1234n,
  gasLimit: 60_000_000n,
  gasUsed: 2_136_422n,
  timestamp: 1_744_218_458n,
  transactions: [
    {
      type: "0x7e",
      blockHash: bytes(32, 1),
      blockNumber: 26_207_961n,
      transactionIndex: 0n,
      hash: bytes(32, 9),
      from: bytes(20, 0xde),
      sourceHash: bytes(32, 8),
      to: bytes(20, 0x15),
      mint: 0n,
      value: 0n,
      gas: 1_000_000n,
      isSystemTx: undefined,
      input: Uint8Array.of(0x09, 0x8, 0x99),
      nonce: 26_207_961n,
      depositReceiptVersion: 1n,
      gasPrice: 0n,
      v: 0n,
      r: 0n,
      s: 0n,
      yParity: 0,
    },
  ],
  uncles: [],
  withdrawals: [],
  withdrawalsRoot: bytes(32, 10),
  baseFeePerGas: 270n,
  blobGasUsed: 0n,
  excessBlobGas: 0n,
  parentBeaconBlockRoot: bytes(32, 11),
};

const unsupported = (): never => {
  throw new RpcError(-32601, "not served by this test node");
};

const nodeHandlers: NodeHandlers = {
  optimism_outputAtBlock: unsupported,
  optimism_syncStatus: unsupported,
  optimism_rollupConfig: unsupported,
  optimism_version: unsupported,
  debug_executionWitness: unsupported,
  debug_executePayload: unsupported,
  eth_getBlockByNumber: ({ block, fullTransactions }) => {
    if (block !== "latest" && block !== BLOCK.number) return null;
    return fullTransactions
      ? BLOCK
      : { ...BLOCK, transactions: BLOCK.transactions.map((tx) => (tx as { hash: Uint8Array }).hash) };
  },
  eth_getBlockByHash: () => null,
  eth_getBalance: ({ address, block }) => {
    if (block !== undefined && block !== "latest")
      throw new BlockNotFoundError(
        `block not found: ${JSON.stringify(block, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`,
      );
    return BigInt(address[0] ?? 0) * 10n ** 18n;
  },
  eth_chainId: () => 11_155_420n,
  eth_blockNumber: () => BLOCK.number,
  eth_getTransactionCount: unsupported,
  eth_sendRawTransaction: unsupported,
  eth_getTransactionByHash: unsupported,
  eth_getTransactionReceipt: unsupported,
  eth_call: () => {
    throw new ExecutionRevertedError("execution reverted: nope", {
      data: Uint8Array.of(0x08, 0xc3, 0x79, 0xa0),
    });
  },
  eth_estimateGas: unsupported,
  eth_gasPrice: () => 1_000_000n,
  eth_maxPriorityFeePerGas: () => 1000n,
  eth_feeHistory: unsupported,
  eth_getCode: unsupported,
  eth_getStorageAt: unsupported,
  eth_getLogs: unsupported,
  net_version: () => 11_155_420n,
  web3_clientVersion: () => "op-enclave-suite/test",
  eth_sendRawTransactionSync: ({ transaction, timeoutMs }) => {
    throw new PreconfirmationTimeoutError(
      `${transaction.length} bytes not pre-confirmed within ${timeoutMs ?? "the default"} ms`,
    );
  },
  eth_subscribe: ({ kind }, ctx) => {
    if (ctx.subscriptions === undefined) throw new RpcError(-32601, `${kind} needs a websocket`);
    return ctx.subscriptions.open(() => {}).id;
  },
  eth_unsubscribe: ({ subscriptionId }) => subscriptionId === "0x1",
  eth_getBlockReceipts: unsupported,
  eth_getProof: unsupported,
  eth_blobBaseFee: unsupported,
  eth_createAccessList: unsupported,
  net_listening: unsupported,
  net_peerCount: unsupported,
  web3_sha3: unsupported,
  txpool_status: unsupported,
  txpool_content: unsupported,
  txpool_contentFrom: unsupported,
  txpool_inspect: unsupported,
  debug_getRawHeader: unsupported,
  debug_getRawBlock: unsupported,
  debug_getRawReceipts: unsupported,
  debug_getRawTransaction: unsupported,
  debug_dbGet: unsupported,
  eth_getBlockTransactionCountByNumber: unsupported,
  eth_getBlockTransactionCountByHash: unsupported,
  eth_getTransactionByBlockNumberAndIndex: unsupported,
  eth_getTransactionByBlockHashAndIndex: unsupported,
  eth_getUncleCountByBlockNumber: unsupported,
  eth_getUncleCountByBlockHash: unsupported,
  eth_newFilter: unsupported,
  eth_newBlockFilter: unsupported,
  eth_newPendingTransactionFilter: unsupported,
  eth_getFilterChanges: unsupported,
  eth_getFilterLogs: unsupported,
  eth_uninstallFilter: unsupported,
  eth_accounts: () => [bytes(20, 0xac)],
  eth_syncing: () => false,
};

describe("node client and handler table", () => {
  const client = new NodeClient(inProcessTransport(bindNodeHandlers(nodeHandlers)));

  it("binds exactly one handler per method", () => {
    expect([...bindNodeHandlers(nodeHandlers).keys()]).toHaveLength(58);
  });

  it("round-trips a block with a deposit transaction and one with hashes", async () => {
    expect(await client.eth_getBlockByNumber("latest", true)).toEqual(BLOCK);
    const hashes = await client.eth_getBlockByNumber(BLOCK.number, false);
    expect(hashes?.transactions).toEqual([bytes(32, 9)]);
    expect(await client.eth_getBlockByNumber(1n, false)).toBeNull();
  });

  it("passes quantities, strings and decimal strings", async () => {
    expect(await client.eth_getBalance(bytes(20, 3))).toBe(3n * 10n ** 18n);
    expect(await client.eth_chainId()).toBe(11_155_420n);
    expect(await client.net_version()).toBe(11_155_420n);
    expect(await client.web3_clientVersion()).toBe("op-enclave-suite/test");
  });

  it("carries handler errors with their codes and data", async () => {
    await expect(client.eth_getBalance(bytes(20, 3), { blockHash: bytes(32, 0xee) })).rejects.toMatchObject({
      code: -32001,
    });
    await expect(client.eth_call({ to: bytes(20, 1) })).rejects.toMatchObject({
      code: 3,
      data: "0x08c379a0",
    });
    await expect(client.eth_getLogs({})).rejects.toMatchObject({ code: -32601 });
  });

  it("serves the subscription, send-and-wait, accounts and syncing methods", async () => {
    await expect(client.eth_sendRawTransactionSync(Uint8Array.of(2, 1), 250)).rejects.toMatchObject({
      code: 4,
      message: "2 bytes not pre-confirmed within 250 ms",
    });
    await expect(client.eth_subscribe("newFlashblocks")).rejects.toMatchObject({
      code: -32601,
      message: "newFlashblocks needs a websocket",
    });
    await expect(
      inProcessTransport(bindNodeHandlers(nodeHandlers))("eth_subscribe", ["newPendingTransactionsFull"]),
    ).rejects.toMatchObject({ code: -32602 });
    expect(await client.eth_unsubscribe("0x1")).toBe(true);
    expect(await client.eth_unsubscribe("0x2")).toBe(false);
    expect(await client.eth_accounts()).toEqual([bytes(20, 0xac)]);
    expect(await client.eth_syncing()).toBe(false);
  });
});

const proposal = (n: number): Proposal => ({
  output_root: bytes(32, n),
  signature: bytes(65, n),
  l1_origin_hash: bytes(32, 0xaa),
  l1_origin_number: 8_000_000n,
  l2_block_number: BigInt(n),
  prev_output_root: bytes(32, n - 1),
  config_hash: bytes(32, 0xcc),
});

describe("prover client and handler table", () => {
  let registryHasValidSigner = true;
  const handlers: ProverHandlers = {
    prover_prove: ({ request }) => {
      if (!registryHasValidSigner) throw new NoValidSignerError();
      const last = Number(request.claimed_l2_block_number);
      const proposals = [proposal(last - 1), proposal(last)];
      return {
        Tee: {
          aggregate_proposal: { ...proposal(last), prev_output_root: request.agreed_l2_output_root },
          proposals,
        },
      };
    },
    enclave_signerPublicKey: () => [new Uint8Array(65).fill(4)],
    enclave_signerAttestation: ({ user_data, nonce }) => [
      Uint8Array.of(0xd2, ...(user_data ?? []), ...(nonce ?? [])),
    ],
    enclave_teeImageHash: () => [bytes(32, 0xee)],
    healthz: () => ({ version: "0.1.0" }),
  };
  const transport = inProcessTransport(bindProverHandlers(handlers));
  const client = new ProverClient(transport);
  const request = {
    l1_head: bytes(32, 0xaa),
    l1_head_number: 8_000_000n,
    agreed_l2_head_hash: bytes(32, 1),
    agreed_l2_output_root: bytes(32, 2),
    claimed_l2_output_root: bytes(32, 3),
    claimed_l2_block_number: 100n,
    proposer: bytes(20, 0x55),
    intermediate_block_interval: 1n,
  };

  it("proves through the externally tagged result", async () => {
    const result = await client.prover_prove(request);
    expect(result.Tee.proposals.map((p) => p.l2_block_number)).toEqual([99n, 100n]);
    expect(result.Tee.aggregate_proposal.prev_output_root).toEqual(bytes(32, 2));
  });

  it("accepts the named form on the wire", async () => {
    const named = await bindProverHandlers(handlers)
      .get("prover_prove")
      ?.invoke(
        { request: wireRequest() },
        { transport: "http", signal: new AbortController().signal, responseHeaders: new Map() },
      );
    expect((named as { Tee: { proposals: unknown[] } }).Tee.proposals).toHaveLength(2);
  });

  it("returns byte arrays as JSON arrays of numbers", async () => {
    expect(await transport("enclave_signerPublicKey", [])).toEqual([new Array(65).fill(4)]);
    expect(await client.enclave_signerAttestation(Uint8Array.of(1), Uint8Array.of(2))).toEqual([
      Uint8Array.of(0xd2, 1, 2),
    ]);
    expect(await client.enclave_signerAttestation(undefined, Uint8Array.of(7))).toEqual([
      Uint8Array.of(0xd2, 7),
    ]);
    expect(await client.healthz()).toEqual({ version: "0.1.0" });
  });

  it("returns image hashes as 0x hex strings", async () => {
    expect(await transport("enclave_teeImageHash", [])).toEqual([`0x${"ee".repeat(32)}`]);
    expect(await client.enclave_teeImageHash()).toEqual([bytes(32, 0xee)]);
  });

  it("rejects oversized attestation inputs before the handler runs", async () => {
    await expect(transport("enclave_signerAttestation", [new Array(513).fill(1)])).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("maps NoValidSigner to -32001", async () => {
    registryHasValidSigner = false;
    await expect(client.prover_prove(request)).rejects.toMatchObject({
      code: -32001,
      message: "NoValidSigner",
    });
    registryHasValidSigner = true;
  });
});

function wireRequest(): Record<string, unknown> {
  return {
    l1_head: `0x${"aa".repeat(32)}`,
    l1_head_number: 8_000_000,
    agreed_l2_head_hash: `0x${"01".repeat(32)}`,
    agreed_l2_output_root: `0x${"02".repeat(32)}`,
    claimed_l2_output_root: `0x${"03".repeat(32)}`,
    claimed_l2_block_number: 100,
    proposer: `0x${"55".repeat(20)}`,
    intermediate_block_interval: 1,
  };
}
