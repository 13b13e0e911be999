/**
 * A deliberately non-conforming JSON-RPC server for the suite's negative tests, playing both a chain node
 * and a prover host on one 127.0.0.1 port:
 * - node: a sealed block shape for blocks 0..HEAD, but `pending` with a null number and hash (the field
 *   table read literally, against the pending-differences table); `null` beyond HEAD for blocks, yet a
 *   zero balance for any block, even one that does not exist; no parameter validation at all;
 * - host: keys and attestations from a local attestor, with no cap on user_data or nonce, and -32601 for
 *   prover_prove (it has no request validation).
 * Test-only.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { EnclaveSigner } from "../../enclave/index.js";
import { LocalAttestor } from "../../src/attestation/index.js";

const HEAD = 5;
const random = (length: number): Uint8Array => new Uint8Array(randomBytes(length));
const word = (byte: number): string => `0x${byte.toString(16).padStart(2, "0").repeat(32)}`;

function block(number: number): Record<string, unknown> {
  return {
    number: `0x${number.toString(16)}`,
    hash: word(0x10 + number),
    parentHash: word(0x0f + number),
    nonce: "0x0000000000000000",
    sha3Uncles: "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347",
    logsBloom: `0x${"00".repeat(256)}`,
    transactionsRoot: word(0xa1),
    stateRoot: word(0xa2),
    receiptsRoot: word(0xa3),
    miner: `0x${"42".repeat(20)}`,
    difficulty: "0x0",
    mixHash: word(0xa4),
    extraData: "0x",
    size: "0x220",
    gasLimit: "0x1c9c380",
    gasUsed: "0x0",
    timestamp: `0x${(1_700_000_000 + 2 * number).toString(16)}`,
    transactions: [],
    uncles: [],
    withdrawals: [],
    withdrawalsRoot: word(0xa5),
    baseFeePerGas: "0x3b9aca00",
    blobGasUsed: "0x0",
    excessBlobGas: "0x0",
    parentBeaconBlockRoot: word(0xa6),
    requestsHash: word(0xa7),
  };
}

type Handler = (params: unknown[]) => Promise<unknown>;

export interface CarelessRpcServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startCarelessRpcServer(): Promise<CarelessRpcServer> {
  const signer = EnclaveSigner.generate(random);
  const attestor = await LocalAttestor.create(random);
  const bytesOrNull = (value: unknown): Uint8Array | null =>
    Array.isArray(value) ? new Uint8Array(value as number[]) : null;
  const handlers: Record<string, Handler> = {
    eth_getBlockByNumber: async ([tag]) => {
      if (tag === "pending") return { ...block(HEAD + 1), number: null, hash: null };
      if (tag === "earliest") return block(0);
      if (typeof tag === "string" && tag.startsWith("0x")) {
        const number = Number.parseInt(tag.slice(2), 16);
        return number <= HEAD ? block(number) : null;
      }
      return block(HEAD);
    },
    eth_getBalance: async () => "0x0",
    enclave_signerPublicKey: async () => [Array.from(signer.publicKey)],
    enclave_signerAttestation: async ([userData, nonce]) => [
      Array.from(
        await attestor.attest({
          publicKey: signer.publicKey,
          userData: bytesOrNull(userData),
          nonce: bytesOrNull(nonce),
        }),
      ),
    ],
    healthz: async () => ({ version: "careless" }),
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.method === "GET") return send(200, await handlers.healthz!([]));
    let text = "";
    for await (const chunk of request) text += String(chunk);
    let call: { id?: unknown; method?: unknown; params?: unknown };
    try {
      call = JSON.parse(text) as typeof call;
    } catch {
      return send(200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
    }
    const handler = typeof call.method === "string" ? handlers[call.method] : undefined;
    if (handler === undefined) {
      return send(200, {
        jsonrpc: "2.0",
        id: call.id ?? null,
        error: { code: -32601, message: "method not found" },
      });
    }
    const params = Array.isArray(call.params) ? call.params : [];
    send(200, { jsonrpc: "2.0", id: call.id, result: await handler(params) });
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
