/**
 * The generated prover service end to end over real HTTP: handler table on the JSON-RPC server core
 * (src/rpc), generated client over httpTransport, and raw requests in the wire forms of docs/decisions.md "Host JSON-RPC encodings".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRpcServer, type RpcServer } from "../../src/rpc/index.js";
import {
  bindProverHandlers,
  httpTransport,
  NoValidSignerError,
  ProverClient,
  type ProverHandlers,
  type Proposal,
  RemoteRpcError,
  RpcTransportError,
} from "../../generated/rpc/index.js";

const bytes = (length: number, fill: number): Uint8Array => new Uint8Array(length).fill(fill);

const proposal = (block: bigint, prev: Uint8Array): Proposal => ({
  output_root: bytes(32, Number(block % 256n)),
  signature: bytes(65, 1),
  l1_origin_hash: bytes(32, 0xaa),
  l1_origin_number: 8_000_000n,
  l2_block_number: block,
  prev_output_root: prev,
  config_hash: bytes(32, 0xcc),
});

let validSigner = true;
const handlers: ProverHandlers = {
  prover_prove: ({ request }) => {
    if (!validSigner) throw new NoValidSignerError();
    const single = proposal(request.claimed_l2_block_number, request.agreed_l2_output_root);
    return { Tee: { aggregate_proposal: single, proposals: [single] } };
  },
  enclave_signerPublicKey: () => [Uint8Array.of(4, ...bytes(64, 7))],
  enclave_signerAttestation: ({ user_data, nonce }) => [
    Uint8Array.of(0xd2, user_data?.length ?? 0, nonce?.length ?? 0),
  ],
  enclave_teeImageHash: () => [bytes(32, 0xee)],
  healthz: () => ({ version: "0.1.0" }),
};

let server: RpcServer;
let url: string;
beforeAll(async () => {
  server = createRpcServer({
    methods: bindProverHandlers(handlers),
    healthMethod: "healthz",
    websocket: false,
  });
  url = `http://127.0.0.1:${await server.listen()}/`;
});
afterAll(async () => {
  await server.close({ drainMs: 1000 });
});

async function post(body: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return response.json();
}

const REQUEST = {
  l1_head: `0x${"aa".repeat(32)}`,
  l1_head_number: 8_000_000,
  agreed_l2_head_hash: `0x${"01".repeat(32)}`,
  agreed_l2_output_root: `0x${"02".repeat(32)}`,
  claimed_l2_output_root: `0x${"03".repeat(32)}`,
  claimed_l2_block_number: 26_207_961,
  proposer: `0x${"55".repeat(20)}`,
  intermediate_block_interval: 1,
};

describe("prover host over HTTP", () => {
  it("serves the typed client", async () => {
    const client = new ProverClient(httpTransport(url));
    expect(await client.healthz()).toEqual({ version: "0.1.0" });
    const keys = await client.enclave_signerPublicKey();
    expect(keys).toHaveLength(1);
    expect(keys[0]?.length).toBe(65);
    expect(await client.enclave_signerAttestation(bytes(3, 1))).toEqual([Uint8Array.of(0xd2, 3, 0)]);
  });

  it("answers the wire forms of docs/decisions.md: positional or named request, externally tagged result, byte arrays", async () => {
    const positional = (await post({ jsonrpc: "2.0", id: 1, method: "prover_prove", params: [REQUEST] })) as {
      result: { Tee: { aggregate_proposal: Record<string, unknown>; proposals: unknown[] } };
    };
    expect(positional.result.Tee.aggregate_proposal).toEqual({
      output_root: `0x${"d9".repeat(32)}`,
      signature: `0x${"01".repeat(65)}`,
      l1_origin_hash: `0x${"aa".repeat(32)}`,
      l1_origin_number: 8_000_000,
      l2_block_number: 26_207_961,
      prev_output_root: `0x${"02".repeat(32)}`,
      config_hash: `0x${"cc".repeat(32)}`,
    });
    const named = await post({ jsonrpc: "2.0", id: 2, method: "prover_prove", params: { request: REQUEST } });
    expect(named).toEqual({ ...positional, id: 2 });
    expect(await post({ jsonrpc: "2.0", id: 3, method: "enclave_signerPublicKey" })).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: [[4, ...new Array(64).fill(7)]],
    });
    const health = await fetch(`${url}healthz`);
    expect(await health.json()).toEqual({ version: "0.1.0" });
  });

  it("answers -32602 naming the parameter, and -32001 for NoValidSigner", async () => {
    const bad = (await post({
      jsonrpc: "2.0",
      id: 4,
      method: "prover_prove",
      params: [{ ...REQUEST, proposer: "0x1234" }],
    })) as {
      error: { code: number; message: string };
    };
    expect(bad.error).toEqual({
      code: -32602,
      message: 'invalid params: request.proposer: expected a 20-byte hex address, got "0x1234"',
    });
    const oversized = (await post({
      jsonrpc: "2.0",
      id: 5,
      method: "enclave_signerAttestation",
      params: { nonce: new Array(513).fill(0) },
    })) as {
      error: { code: number };
    };
    expect(oversized.error.code).toBe(-32602);
    validSigner = false;
    try {
      const client = new ProverClient(httpTransport(url));
      const failure = await client
        .prover_prove({
          l1_head: bytes(32, 0),
          l1_head_number: 1n,
          agreed_l2_head_hash: bytes(32, 0),
          agreed_l2_output_root: bytes(32, 0),
          claimed_l2_output_root: bytes(32, 0),
          claimed_l2_block_number: 2n,
          proposer: bytes(20, 0),
          intermediate_block_interval: 1n,
        })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(RemoteRpcError);
      expect(failure).toMatchObject({ code: -32001, method: "prover_prove" });
    } finally {
      validSigner = true;
    }
  });

  it("reports transport failures and caps the response size", async () => {
    const client = new ProverClient(httpTransport(url, { maxResponseBytes: 16 }));
    await expect(client.enclave_signerPublicKey()).rejects.toThrow(RpcTransportError);
    const closed = new ProverClient(httpTransport("http://127.0.0.1:9/", { timeoutMs: 2000 }));
    await expect(closed.healthz()).rejects.toThrow(RpcTransportError);
  });
});
