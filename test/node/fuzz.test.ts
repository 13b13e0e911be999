/**
 * Hostile params against a real node process: for every method, fast-check generated params
 * (random JSON, hex strings of every length, tags, EIP-1898 objects) must get a JSON-RPC answer that
 * is a result or a client error, never an internal error (-32603), and the node keeps serving.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeMethods } from "../../generated/rpc/node.js";
import { call, rawCall } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

let node: NodeProcess;
beforeAll(async () => {
  node = await startNodeProcess({ blockTimeMs: 500, flashblockIntervalMs: 50, callWorkers: 0 });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

const hex = fc.uint8Array({ minLength: 0, maxLength: 40 }).map((b) => `0x${Buffer.from(b).toString("hex")}`);
const quantity = fc.bigInt({ min: 0n, max: (1n << 70n) - 1n }).map((n) => `0x${n.toString(16)}`);
const tag = fc.constantFrom("latest", "pending", "safe", "finalized", "earliest", "Latest", "", "0x");
const address = fc.constantFrom(
  "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  "0x4200000000000000000000000000000000000015",
  "0x0000000000000000000000000000000000000000",
);
const selector = fc.oneof(
  tag,
  quantity,
  hex,
  fc.record({ blockHash: hex, requireCanonical: fc.boolean() }, { requiredKeys: [] }),
  fc.record({ blockNumber: fc.oneof(tag, quantity) }, { requiredKeys: [] }),
);
const callRequest = fc.record(
  {
    from: fc.oneof(address, hex),
    to: fc.oneof(address, hex, fc.constant(null)),
    gas: quantity,
    gasPrice: quantity,
    maxFeePerGas: quantity,
    value: quantity,
    data: hex,
    input: hex,
  },
  { requiredKeys: [] },
);
const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), hex, quantity, tag, address, selector, callRequest);
const params = fc.oneof(
  fc.array(value, { maxLength: 4 }),
  fc.tuple(address, selector),
  fc.tuple(fc.oneof(tag, quantity), fc.boolean()),
  fc.tuple(callRequest, selector),
  fc.tuple(quantity, fc.oneof(tag, quantity), fc.array(fc.double({ min: -10, max: 200 }), { maxLength: 3 })),
  fc.tuple(
    fc.record(
      {
        fromBlock: fc.oneof(tag, quantity),
        toBlock: fc.oneof(tag, quantity),
        address: fc.oneof(address, fc.array(address)),
        topics: fc.array(fc.oneof(fc.constant(null), hex)),
      },
      { requiredKeys: [] },
    ),
  ),
);
const METHODS = [
  ...Object.keys(nodeMethods),
  "eth_sendRawTransactionSync",
  "eth_subscribe",
  "eth_unsubscribe",
  "eth_accounts",
  "eth_syncing",
];

describe("hostile params", () => {
  it("never answers with an internal error and keeps serving", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), params, async (method, p) => {
        const r = await rawCall(node.url, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: p }));
        expect(r.status).toBe(200);
        const body = r.body!;
        if (body.error !== undefined) {
          expect(body.error.code, `${method} ${JSON.stringify(p)}: ${body.error.message}`).not.toBe(-32603);
          expect(typeof body.error.message).toBe("string");
        } else {
          expect(body).toHaveProperty("result");
        }
      }),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 400),
        ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : { seed: 4242 }),
      },
    );
    expect(await call(node.url, "eth_chainId", [])).toBe("0x385");
  }, 120_000);
});
