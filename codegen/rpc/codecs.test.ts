/** Round trips of the generated JSON-RPC codecs: decoded value -> JSON text -> decoded value, and canonical wire forms. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as C from "../../generated/rpc/codecs.js";
import type { Codec } from "../../generated/rpc/wire.js";
import * as A from "./arbitraries.js";

/** Encodes, goes through JSON text like a real response, and decodes again. */
function throughJson<V, J>(codec: Codec<V, J>, value: V): V {
  return codec.decode(JSON.parse(JSON.stringify(codec.encode(value))), "value");
}

function roundTrips<V, J>(codec: Codec<V, J>, arbitrary: fc.Arbitrary<V>, numRuns = 200): void {
  fc.assert(
    fc.property(arbitrary, (value) => {
      expect(throughJson(codec, value)).toEqual(value);
    }),
    { numRuns },
  );
}

const hexDigits = (min: number, max: number) =>
  fc.array(fc.constantFrom(..."0123456789abcdef"), { minLength: min, maxLength: max }).map((d) => d.join(""));

describe("scalar codecs", () => {
  it("quantities round-trip, including 0 and 2^256 - 1", () => {
    roundTrips(C.QuantityCodec, A.quantity(), 1000);
    expect(C.QuantityCodec.encode(0n)).toBe("0x0");
    expect(C.QuantityCodec.encode(A.MAX_UINT256)).toBe(`0x${"f".repeat(64)}`);
    expect(C.QuantityCodec.decode(`0x${"f".repeat(64)}`, "q")).toBe(A.MAX_UINT256);
    expect(() => C.QuantityCodec.encode(A.MAX_UINT256 + 1n)).toThrow(RangeError);
  });

  it("canonical hex quantities decode and encode back to the same string", () => {
    const canonical = fc.oneof(
      fc.constant("0x0"),
      fc.tuple(fc.constantFrom(..."123456789abcdef"), hexDigits(0, 63)).map(([d, rest]) => `0x${d}${rest}`),
    );
    fc.assert(
      fc.property(canonical, (hex) => {
        expect(C.QuantityCodec.encode(C.QuantityCodec.decode(hex, "q"))).toBe(hex);
      }),
    );
  });

  it("64-bit quantities and one-byte quantities round-trip", () => {
    roundTrips(C.Quantity64Codec, A.quantity64());
    roundTrips(C.ByteCodec, fc.integer({ min: 0, max: 255 }));
    expect(C.ByteCodec.encode(0x7e)).toBe("0x7e");
  });

  it("data round-trips as even-length lowercase hex", () => {
    roundTrips(C.DataCodec, A.data(), 500);
    expect(C.DataCodec.encode(new Uint8Array())).toBe("0x");
    expect(C.DataCodec.encode(Uint8Array.of(0, 0xab))).toBe("0x00ab");
    fc.assert(
      fc.property(
        hexDigits(0, 40).filter((h) => h.length % 2 === 0),
        (body) => {
          expect(C.DataCodec.encode(C.DataCodec.decode(`0x${body}`, "d"))).toBe(`0x${body}`);
        },
      ),
    );
  });

  it("hashes are exactly 32 bytes and addresses exactly 20", () => {
    roundTrips(C.Hash32Codec, A.hash());
    roundTrips(C.AddressCodec, A.address());
    roundTrips(C.BloomCodec, A.bytesOf(256), 50);
    roundTrips(C.Bytes65Codec, A.bytesOf(65));
    roundTrips(C.Bytes8Codec, A.bytesOf(8));
    fc.assert(
      fc.property(A.bytesOf(20), (bytes) => {
        const hex = C.AddressCodec.encode(bytes);
        expect(hex).toMatch(/^0x[0-9a-f]{40}$/);
        // Checksummed (mixed-case) input is accepted and normalized.
        expect(C.AddressCodec.decode(hex.toUpperCase().replace("0X", "0x"), "a")).toEqual(bytes);
      }),
    );
    expect(() => C.Hash32Codec.encode(new Uint8Array(31))).toThrow(RangeError);
  });

  it("storage slots accept short forms and decode to 32 bytes", () => {
    roundTrips(C.StorageKeyCodec, A.hash());
    expect(C.StorageKeyCodec.decode("0x0", "slot")).toEqual(new Uint8Array(32));
    expect(C.StorageKeyCodec.decode("0x1", "slot")[31]).toBe(1);
  });

  it("JSON integers, decimal strings and byte arrays round-trip", () => {
    roundTrips(C.JsonU64Codec, A.jsonU64());
    roundTrips(C.DecimalUintCodec, fc.bigInt({ min: 0n, max: A.MAX_UINT256 }));
    roundTrips(C.ByteArrayCodec, fc.uint8Array({ maxLength: 300 }));
    roundTrips(C.PublicKeyBytesCodec, A.bytesOf(65));
    roundTrips(C.AttestationInputCodec, fc.uint8Array({ maxLength: 512 }));
    expect(C.PublicKeyBytesCodec.encode(new Uint8Array(65).fill(4))).toEqual(new Array(65).fill(4));
    expect(C.JsonU64Codec.encode(26207960n)).toBe(26207960);
  });
});

describe("composite codecs", () => {
  it("block tags, numbers, hashes and EIP-1898 objects round-trip", () => {
    const blockId = fc.oneof(
      fc.constantFrom("latest", "pending", "safe", "finalized", "earliest" as const),
      A.quantity64(),
      A.hash(),
      fc.record({ blockHash: A.hash(), requireCanonical: fc.boolean() }, { requiredKeys: ["blockHash"] }),
      fc.record({ blockNumber: fc.oneof(A.quantity64(), fc.constant("safe" as const)) }),
    );
    roundTrips(C.BlockNumberOrTagOrHashCodec, blockId, 500);
  });

  it("blocks with transaction hashes round-trip", () => {
    roundTrips(C.BlockCodec, A.blockWithHashes(), 100);
  });

  it("blocks with full transactions of every type, deposits included, round-trip", () => {
    roundTrips(C.BlockCodec, A.blockWithTransactions(), 100);
  });

  it("a deposit transaction encodes the OP Stack fields", () => {
    const [deposit] = fc.sample(A.depositTransaction(), { numRuns: 1, seed: 7 });
    if (deposit === undefined) throw new Error("no sample");
    const json: Record<string, unknown> = {
      ...C.TransactionCodec.encode({ ...deposit, mint: 0n, isSystemTx: undefined }),
    };
    expect(json).toMatchObject({
      type: "0x7e",
      mint: "0x0",
      gasPrice: "0x0",
      v: "0x0",
      r: "0x0",
      s: "0x0",
      yParity: "0x0",
      depositReceiptVersion: "0x1",
    });
    expect(json).not.toHaveProperty("isSystemTx");
    expect(json.sourceHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("receipts, logs and filters round-trip", () => {
    const log = fc.record({
      removed: fc.boolean(),
      logIndex: A.quantity64(),
      transactionIndex: A.quantity64(),
      transactionHash: A.hash(),
      blockHash: A.hash(),
      blockNumber: A.quantity64(),
      address: A.address(),
      data: A.data(),
      topics: fc.array(A.hash(), { maxLength: 4 }),
    });
    roundTrips(C.LogCodec, log);
    const filter = fc.record(
      {
        fromBlock: fc.oneof(A.quantity64(), fc.constant("latest" as const)),
        toBlock: fc.constant("pending" as const),
        address: fc.oneof(fc.constant(null), A.address(), fc.array(A.address(), { maxLength: 2 })),
        topics: fc.array(fc.oneof(fc.constant(null), A.hash(), fc.array(A.hash(), { maxLength: 2 })), {
          maxLength: 4,
        }),
      },
      { requiredKeys: [] },
    );
    roundTrips(C.FilterCodec, filter);
    const receipt = fc.record(
      {
        type: fc.constantFrom(0, 1, 2, 4, 0x7e),
        transactionHash: A.hash(),
        transactionIndex: A.quantity64(),
        blockHash: A.hash(),
        blockNumber: A.quantity64(),
        from: A.address(),
        to: fc.option(A.address(), { nil: null }),
        cumulativeGasUsed: A.quantity64(),
        gasUsed: A.quantity64(),
        effectiveGasPrice: A.quantity(),
        contractAddress: fc.option(A.address(), { nil: null }),
        logs: fc.array(log, { maxLength: 3 }),
        logsBloom: A.bytesOf(256),
        status: fc.constantFrom(0n, 1n),
        depositNonce: A.quantity64(),
        depositReceiptVersion: fc.constant(1n),
        l1GasPrice: A.quantity(),
        l1GasUsed: A.quantity64(),
        l1Fee: A.quantity(),
        l1FeeScalar: fc.constantFrom("0.684", "1"),
        l1BaseFeeScalar: A.quantity64(),
        l1BlobBaseFee: A.quantity(),
        l1BlobBaseFeeScalar: A.quantity64(),
        operatorFeeScalar: A.quantity64(),
        operatorFeeConstant: A.quantity64(),
      },
      {
        requiredKeys: [
          "type",
          "transactionHash",
          "transactionIndex",
          "blockHash",
          "blockNumber",
          "from",
          "to",
          "cumulativeGasUsed",
          "gasUsed",
          "effectiveGasPrice",
          "contractAddress",
          "logs",
          "logsBloom",
          "status",
        ],
      },
    );
    roundTrips(C.ReceiptCodec, receipt, 100);
  });

  it("call requests and fee history round-trip", () => {
    const call = fc.record(
      {
        type: fc.constantFrom(0, 2),
        from: A.address(),
        to: fc.option(A.address(), { nil: null }),
        gas: A.quantity64(),
        value: A.quantity(),
        input: A.data(),
        maxFeePerGas: A.quantity(),
        maxPriorityFeePerGas: A.quantity(),
        accessList: fc.array(
          fc.record({ address: A.address(), storageKeys: fc.array(A.hash(), { maxLength: 2 }) }),
          {
            maxLength: 2,
          },
        ),
        chainId: A.quantity64(),
      },
      { requiredKeys: [] },
    );
    roundTrips(C.CallRequestCodec, call);
    const ratio = fc.double({ min: 0, max: 1, noNaN: true }).map((x) => x + 0); // JSON has no -0
    const feeHistory = fc.record(
      {
        oldestBlock: A.quantity64(),
        baseFeePerGas: fc.array(A.quantity(), { maxLength: 5 }),
        gasUsedRatio: fc.array(ratio, { maxLength: 5 }),
        baseFeePerBlobGas: fc.array(A.quantity(), { maxLength: 5 }),
        blobGasUsedRatio: fc.array(ratio, { maxLength: 5 }),
        reward: fc.array(fc.array(A.quantity(), { maxLength: 3 }), { maxLength: 5 }),
      },
      { requiredKeys: ["oldestBlock", "baseFeePerGas", "gasUsedRatio"] },
    );
    roundTrips(C.FeeHistoryCodec, feeHistory);
  });

  it("records (txpool results) round-trip, reject non-objects, and keep a __proto__ key a key", () => {
    const nonce = fc.bigInt({ min: 0n, max: 1000n }).map(String);
    const inspect = fc.record({
      pending: fc.dictionary(fc.string(), fc.dictionary(nonce, fc.string(), { maxKeys: 3 }), { maxKeys: 3 }),
      queued: fc.dictionary(fc.string(), fc.dictionary(nonce, fc.string(), { maxKeys: 3 }), { maxKeys: 3 }),
    });
    roundTrips(C.TxPoolInspectCodec, inspect);
    const hostile = JSON.parse('{"pending":{"__proto__":{"0":"x"}},"queued":{}}') as unknown;
    const decoded = C.TxPoolInspectCodec.decode(hostile, "inspect");
    expect(Object.keys(decoded.pending)).toEqual(["__proto__"]);
    expect(decoded.pending["__proto__"]?.["0"]).toBe("x");
    expect(({} as Record<string, unknown>)["0"]).toBeUndefined();
    for (const bad of [[], "x", null, 1]) {
      expect(() => C.TxPoolInspectCodec.decode({ pending: bad, queued: {} }, "inspect")).toThrow(
        /inspect\.pending: expected an object/,
      );
    }
    expect(() => C.TxPoolInspectCodec.decode({ pending: { a: { 1: 2 } }, queued: {} }, "inspect")).toThrow(
      /inspect\.pending\.a\.1/,
    );
  });

  it("ProofRequest round-trips with snake_case fields and JSON numbers", () => {
    roundTrips(C.ProofRequestCodec, A.proofRequest());
    const [request] = fc.sample(A.proofRequest(), { numRuns: 1, seed: 1 });
    if (request === undefined) throw new Error("no sample");
    const json = C.ProofRequestCodec.encode(request);
    expect(typeof json.claimed_l2_block_number).toBe("number");
    expect(json.proposer).toMatch(/^0x[0-9a-f]{40}$/);
  });

  it("ProofResult round-trips as the externally tagged {Tee: ...} form", () => {
    roundTrips(C.ProofResultCodec, A.proofResult());
    const [result] = fc.sample(A.proofResult(), { numRuns: 1, seed: 3 });
    if (result === undefined) throw new Error("no sample");
    const json = C.ProofResultCodec.encode(result);
    expect(Object.keys(json)).toEqual(["Tee"]);
    expect(json.Tee.aggregate_proposal.signature).toMatch(/^0x[0-9a-f]{130}$/);
  });
});

describe("constraints from the spec", () => {
  const decode = (codec: Codec<unknown, unknown>, raw: unknown): unknown => codec.decode(raw, "filter");

  it("a filter refuses blockHash together with fromBlock or toBlock; null counts as absent", () => {
    const blockHash = `0x${"ab".repeat(32)}`;
    expect(() => decode(C.FilterCodec, { blockHash, fromBlock: "latest" })).toThrow(
      /filter: expected a Filter object without blockHash and fromBlock together/,
    );
    expect(() => decode(C.FilterCodec, { blockHash, toBlock: "0x1" })).toThrow(/blockHash and toBlock/);
    expect(decode(C.FilterCodec, { blockHash, fromBlock: null })).toEqual({
      blockHash: new Uint8Array(32).fill(0xab),
    });
    expect(decode(C.FilterCodec, { fromBlock: "0x1", toBlock: "latest" })).toEqual({
      fromBlock: 1n,
      toBlock: "latest",
    });
  });

  it("eth_newFilter's filter refuses any blockHash", () => {
    expect(() => decode(C.NewFilterCodec, { blockHash: `0x${"00".repeat(32)}` })).toThrow(
      /filter\.blockHash: expected no blockHash/,
    );
    expect(decode(C.NewFilterCodec, { fromBlock: "0x2" })).toEqual({ fromBlock: 2n });
  });

  it("bounded numbers: percentiles within 0-100, timeouts whole milliseconds within 1-60000", async () => {
    const { eth_feeHistory, eth_sendRawTransactionSync } = await import("../../generated/rpc/index.js");
    expect(eth_feeHistory.decodeParams(["0x1", "latest", [0, 50.5, 100]])).toMatchObject({
      rewardPercentiles: [0, 50.5, 100],
    });
    for (const bad of [-0.1, 100.5, "50"]) {
      expect(() => eth_feeHistory.decodeParams(["0x1", "latest", [bad]])).toThrow(
        /rewardPercentiles\[0\]: expected a number between 0 and 100/,
      );
    }
    expect(eth_sendRawTransactionSync.decodeParams(["0x00", 1])).toMatchObject({ timeoutMs: 1 });
    for (const bad of [0, 1.5, 60001]) {
      expect(() => eth_sendRawTransactionSync.decodeParams(["0x00", bad])).toThrow(
        /timeoutMs: expected an integer between 1 and 60000/,
      );
    }
  });
});
