/**
 * The raw L1 reads' size caps: a debug_getRawHeader, debug_getRawBlock or debug_getRawReceipts answer longer than its
 * cap is refused before it is decoded (even one that is not hex at all), while an answer within the cap goes on to
 * the hash checks. A local endpoint answers; the caps are made small here (RAW_L1_LIMITS holds the real ones).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BlockHeader, keccak256 } from "../chain/index.js";
import { DataMismatchError, MalformedResponseError } from "./errors.js";
import { JsonRpcClient } from "./http.js";
import { RAW_L1_LIMITS, RawL1Reads } from "./l1-raw.js";
import { startTamperProxy, type TamperProxy } from "./proxy.test-support.js";

let endpoint: TamperProxy;
let answers: Record<string, unknown> = {};
const limits = { maxHeaderBytes: 8, maxBlockBytes: 8, maxReceiptsBytes: 8 };
const hash = keccak256(Uint8Array.of(1));
const header = { receiptsRoot: keccak256(Uint8Array.of(2)), number: 1n } as BlockHeader;

beforeAll(async () => {
  endpoint = await startTamperProxy("");
  endpoint.rpc = async (request) => ({ jsonrpc: "2.0", result: answers[request.method] ?? null });
});
afterAll(async () => {
  await endpoint?.close();
});

const reads = () => new RawL1Reads(new JsonRpcClient(endpoint.url), limits);

describe("raw L1 answers over their caps", () => {
  it("a header over the cap is refused before decoding, even when it is not hex", async () => {
    answers = { debug_getRawHeader: `0x${"zz".repeat(9)}` };
    const error = await reads()
      .header(hash)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toBe("debug_getRawHeader: the answer of 9 bytes exceeds 8");
    // Within the cap it is decoded and checked against the hash.
    answers = { debug_getRawHeader: `0x${"c0".repeat(8)}` };
    await expect(reads().header(hash)).rejects.toThrow(DataMismatchError);
  });

  it("a block over the cap is refused before decoding", async () => {
    answers = { debug_getRawBlock: `0x${"00".repeat(9)}` };
    await expect(reads().transactions(hash, header)).rejects.toThrow(
      "debug_getRawBlock: the answer of 9 bytes exceeds 8",
    );
  });

  it("receipts over the cap together are refused before decoding; within it they meet the root check", async () => {
    answers = { debug_getRawReceipts: [`0x${"zz".repeat(5)}`, `0x${"zz".repeat(4)}`] };
    await expect(reads().receipts(hash, header)).rejects.toThrow(
      "debug_getRawReceipts: the answer of 9 bytes exceeds 8",
    );
    answers = { debug_getRawReceipts: [`0x${"01".repeat(4)}`, `0x${"02".repeat(4)}`] };
    await expect(reads().receipts(hash, header)).rejects.toThrow(DataMismatchError);
  });

  it("the real caps hold a header, a block and receipts as consensus bounds them", () => {
    expect(RAW_L1_LIMITS.maxHeaderBytes).toBeGreaterThanOrEqual(1024);
    expect(RAW_L1_LIMITS.maxBlockBytes).toBeGreaterThanOrEqual(10 * 1024 * 1024);
  });
});
