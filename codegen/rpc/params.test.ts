/** Param validation of the generated method specs: positional and named forms, and -32602 messages naming the parameter. */
import { describe, expect, it } from "vitest";
import { InvalidParamsError } from "../../src/rpc/errors.js";
import {
  enclave_signerAttestation,
  eth_call,
  eth_feeHistory,
  eth_getBalance,
  eth_getBlockByNumber,
  eth_getLogs,
  eth_getStorageAt,
  eth_getTransactionByHash,
  healthz,
  MalformedResultError,
  prover_prove,
} from "../../generated/rpc/index.js";

const ADDRESS = `0x${"11".repeat(20)}`;
const HASH = `0x${"ab".repeat(32)}`;

const REQUEST = {
  l1_head: HASH,
  l1_head_number: 8_000_000,
  agreed_l2_head_hash: `0x${"01".repeat(32)}`,
  agreed_l2_output_root: `0x${"02".repeat(32)}`,
  claimed_l2_output_root: `0x${"03".repeat(32)}`,
  claimed_l2_block_number: 26_207_961,
  proposer: ADDRESS,
  intermediate_block_interval: 10,
};

/** The InvalidParamsError a decode throws (fails the test when it does not throw one). */
function rejection(decode: () => unknown): InvalidParamsError {
  try {
    decode();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as InvalidParamsError).code).toBe(-32602);
    return error as InvalidParamsError;
  }
  throw new Error("expected the params to be rejected");
}

describe("decodeParams accepts", () => {
  it("positional params with every block form", () => {
    expect(eth_getBlockByNumber.decodeParams(["latest", false])).toEqual({
      block: "latest",
      fullTransactions: false,
    });
    expect(eth_getBlockByNumber.decodeParams(["0x18fe6d8", true])).toEqual({
      block: 0x18fe6d8n,
      fullTransactions: true,
    });
    expect(eth_getBalance.decodeParams([ADDRESS, "pending"])).toEqual({
      address: new Uint8Array(20).fill(0x11),
      block: "pending",
    });
    expect(eth_getBalance.decodeParams([ADDRESS, HASH]).block).toEqual(new Uint8Array(32).fill(0xab));
    expect(eth_getBalance.decodeParams([ADDRESS, { blockHash: HASH, requireCanonical: true }]).block).toEqual(
      {
        blockHash: new Uint8Array(32).fill(0xab),
        requireCanonical: true,
      },
    );
    expect(eth_getBalance.decodeParams([ADDRESS, { blockNumber: "0x0" }]).block).toEqual({ blockNumber: 0n });
  });

  it("trailing optional params omitted or null", () => {
    expect(eth_getBalance.decodeParams([ADDRESS])).toEqual({ address: new Uint8Array(20).fill(0x11) });
    expect(eth_getBalance.decodeParams([ADDRESS, null])).toEqual({ address: new Uint8Array(20).fill(0x11) });
    expect(eth_feeHistory.decodeParams(["0x4", "latest"])).toEqual({ blockCount: 4n, newestBlock: "latest" });
    expect(healthz.decodeParams(undefined)).toEqual({});
    expect(healthz.decodeParams([])).toEqual({});
    expect(enclave_signerAttestation.decodeParams([])).toEqual({});
  });

  it("prover_prove positionally and by name", () => {
    const positional = prover_prove.decodeParams([REQUEST]);
    expect(positional.request.claimed_l2_block_number).toBe(26_207_961n);
    expect(positional.request.proposer).toEqual(new Uint8Array(20).fill(0x11));
    expect(positional.request.image_hash).toBeUndefined();
    expect(prover_prove.decodeParams({ request: REQUEST })).toEqual(positional);
    expect(prover_prove.decodeParams([{ ...REQUEST, image_hash: null }])).toEqual(positional);
  });

  it("enclave_signerAttestation byte arrays positionally and by name", () => {
    expect(enclave_signerAttestation.decodeParams([[1, 2, 3], null])).toEqual({
      user_data: Uint8Array.of(1, 2, 3),
    });
    expect(enclave_signerAttestation.decodeParams({ nonce: [9] })).toEqual({ nonce: Uint8Array.of(9) });
    expect(enclave_signerAttestation.decodeParams([new Array(512).fill(255)]).user_data?.length).toBe(512);
  });

  it("storage slots, call objects and filters", () => {
    expect(eth_getStorageAt.decodeParams([ADDRESS, "0x0"]).slot).toEqual(new Uint8Array(32));
    const call = eth_call.decodeParams([{ to: ADDRESS, data: "0x70a08231", gas: "0x5208" }, "latest"]);
    expect(call.transaction).toEqual({
      to: new Uint8Array(20).fill(0x11),
      data: Uint8Array.of(0x70, 0xa0, 0x82, 0x31),
      gas: 0x5208n,
    });
    const logs = eth_getLogs.decodeParams([
      { fromBlock: "0x1", toBlock: "pending", address: [ADDRESS], topics: [null, [HASH]] },
    ]);
    expect(logs.filter.topics).toEqual([null, [new Uint8Array(32).fill(0xab)]]);
  });
});

describe("decodeParams rejects, naming the parameter", () => {
  it("a bad block tag", () => {
    expect(rejection(() => eth_getBlockByNumber.decodeParams(["lates", false])).message).toBe(
      'invalid params: block: expected a block tag (latest|pending|safe|finalized|earliest) or hex quantity, got "lates"',
    );
  });

  it("a bad block tag where a hash or EIP-1898 object is also allowed", () => {
    expect(rejection(() => eth_getBalance.decodeParams([ADDRESS, "lates"])).message).toBe(
      'invalid params: block: expected a block tag (latest|pending|safe|finalized|earliest), hex quantity, 32-byte block hash, {blockHash} or {blockNumber}, got "lates"',
    );
  });

  it("bad hex", () => {
    expect(rejection(() => eth_getBlockByNumber.decodeParams(["0xzz", false])).message).toMatch(
      /^invalid params: block: expected .*got "0xzz"$/,
    );
    expect(rejection(() => eth_getBalance.decodeParams([`0x${"1".repeat(39)}g`, "latest"])).message).toMatch(
      /^invalid params: address: expected a 20-byte hex address/,
    );
    expect(rejection(() => eth_call.decodeParams([{ data: "0x123" }])).message).toBe(
      'invalid params: transaction.data: expected hex data (0x followed by an even number of hex digits), got "0x123"',
    );
    expect(rejection(() => eth_getBlockByNumber.decodeParams(["12", false])).message).toContain('got "12"');
  });

  it("leading zeros in a quantity", () => {
    expect(rejection(() => eth_getBlockByNumber.decodeParams(["0x01", false])).message).toMatch(
      /^invalid params: block: expected .*hex quantity, got "0x01"$/,
    );
    expect(rejection(() => eth_feeHistory.decodeParams(["0x00", "latest"])).message).toBe(
      'invalid params: blockCount: expected a block count (hex quantity, decimal string or JSON integer), got "0x00"',
    );
    expect(rejection(() => eth_feeHistory.decodeParams(["0x", "latest"])).message).toBe(
      'invalid params: blockCount: expected a block count (hex quantity, decimal string or JSON integer), got "0x"',
    );
    expect(rejection(() => eth_feeHistory.decodeParams(["007", "latest"])).message).toMatch(/got "007"$/);
    expect(eth_feeHistory.decodeParams([7, "latest"]).blockCount).toBe(7n);
    expect(eth_feeHistory.decodeParams(["7", "latest"]).blockCount).toBe(7n);
  });

  it("a 19-byte address", () => {
    expect(rejection(() => eth_getBalance.decodeParams([`0x${"11".repeat(19)}`, "latest"])).message).toBe(
      `invalid params: address: expected a 20-byte hex address, got "0x${"11".repeat(19)}"`,
    );
  });

  it("a missing boolean", () => {
    expect(rejection(() => eth_getBlockByNumber.decodeParams(["latest"])).message).toBe(
      "invalid params: fullTransactions: expected a boolean, got nothing",
    );
    expect(rejection(() => eth_getBlockByNumber.decodeParams(["latest", null])).message).toBe(
      "invalid params: fullTransactions: expected a boolean, got null",
    );
  });

  it("too many params", () => {
    expect(rejection(() => eth_getBlockByNumber.decodeParams(["latest", false, 1])).message).toBe(
      "invalid params: eth_getBlockByNumber takes at most 2 params (block, fullTransactions), got 3",
    );
    expect(rejection(() => healthz.decodeParams([1])).message).toBe(
      "invalid params: healthz takes at most 0 params (), got 1",
    );
  });

  it("wrong types", () => {
    expect(rejection(() => eth_getBlockByNumber.decodeParams(["latest", "true"])).message).toBe(
      'invalid params: fullTransactions: expected a boolean, got "true"',
    );
    expect(rejection(() => eth_getBalance.decodeParams([42, "latest"])).message).toBe(
      "invalid params: address: expected a 20-byte hex address, got 42",
    );
    expect(rejection(() => eth_getBlockByNumber.decodeParams("latest")).message).toBe(
      'invalid params: expected params as an array, got "latest"',
    );
    expect(
      rejection(() => eth_getBlockByNumber.decodeParams({ block: "latest", fullTransactions: false }))
        .message,
    ).toBe(
      "invalid params: eth_getBlockByNumber takes its params as an array [block, fullTransactions], got an object",
    );
  });

  it("nested fields by path", () => {
    expect(rejection(() => eth_getBalance.decodeParams([ADDRESS, { blockHash: "0x12" }])).message).toBe(
      'invalid params: block.blockHash: expected a 32-byte hex hash, got "0x12"',
    );
    expect(rejection(() => eth_getLogs.decodeParams([{ topics: [null, "0x12"] }])).message).toMatch(
      /^invalid params: filter\.topics\[1\]: expected /,
    );
    expect(rejection(() => prover_prove.decodeParams([{ ...REQUEST, l1_head_number: -1 }])).message).toBe(
      "invalid params: request.l1_head_number: expected a non-negative JSON integer, got -1",
    );
    expect(
      rejection(() => prover_prove.decodeParams([{ ...REQUEST, claimed_l2_block_number: "0x10" }])).message,
    ).toBe(
      'invalid params: request.claimed_l2_block_number: expected a non-negative JSON integer, got "0x10"',
    );
    const { proposer: _proposer, ...withoutProposer } = REQUEST;
    expect(rejection(() => prover_prove.decodeParams({ request: withoutProposer })).message).toBe(
      "invalid params: request.proposer: expected a 20-byte hex address, got nothing",
    );
  });

  it("named params with unknown names, and over-long attestation inputs", () => {
    expect(rejection(() => prover_prove.decodeParams({ req: REQUEST })).message).toBe(
      'invalid params: prover_prove has no parameter named "req" (params: request)',
    );
    expect(rejection(() => enclave_signerAttestation.decodeParams([new Array(513).fill(0)])).message).toBe(
      "invalid params: user_data: expected an array of at most 512 byte values (0-255), got an array of 513 items",
    );
    expect(
      rejection(() => eth_getBlockByNumber.decodeParams([`0x${"f".repeat(200)}`, false])).message,
    ).toMatch(/^invalid params: block: expected .*, got "0xfff+"\.\.\. \(202 characters\)$/);
    expect(rejection(() => enclave_signerAttestation.decodeParams({ nonce: [256] })).message).toBe(
      "invalid params: nonce[0]: expected a byte value (0-255), got 256",
    );
  });
});

describe("results", () => {
  it("encodeParams leaves trailing omitted params out", () => {
    expect(eth_getBalance.encodeParams({ address: new Uint8Array(20) })).toEqual([`0x${"00".repeat(20)}`]);
    expect(eth_getBalance.encodeParams({ address: new Uint8Array(20), block: 5n })).toEqual([
      `0x${"00".repeat(20)}`,
      "0x5",
    ]);
    expect(enclave_signerAttestation.encodeParams({ nonce: Uint8Array.of(1) })).toEqual([null, [1]]);
  });

  it("decodeResult throws MalformedResultError on a malformed result", () => {
    expect(() => eth_getTransactionByHash.decodeResult({ type: "0x9" })).toThrow(MalformedResultError);
    expect(() => eth_getTransactionByHash.decodeResult({ type: "0x9" })).toThrow(
      'malformed result of eth_getTransactionByHash: result.type: expected one of 0x0|0x1|0x2|0x4|0x7e, got "0x9"',
    );
    expect(eth_getTransactionByHash.decodeResult(null)).toBeNull();
    expect(eth_getBlockByNumber.decodeResult(null)).toBeNull();
  });
});
