/**
 * classifyNonceLogs / transferAfter on logs the compiled token really emitted on the EVM harness.
 * The harness has no blocks or transactions, so each call's logs get the position a node would
 * give them (transaction hash, block number, log index) here. findNonceConsumer, which fetches
 * these logs over eth_getLogs, is exercised against the chain node in the node's own tests.
 */
import { type Address, getAddress, type Hex, keccak256, pad, toHex } from "viem";
import { describe, expect, it } from "vitest";
import type { CallOutcome } from "../../test/evm/harness.js";
import {
  authArgs,
  authorization,
  BUYER,
  deployToken,
  MERCHANT,
  nonceOf,
  RELAYER,
  signCancel,
  signTransfer,
  STRANGER,
  vrsArgs,
} from "../../test/evm/token-fixture.js";
import {
  AmbiguousNonceConsumptionError,
  classifyNonceLogs,
  type LogRecord,
  transferAfter,
} from "./nonce-consumer.js";

/** Positions the logs of one executed call as the only transaction of block `blockNumber`. */
function asBlockLogs(outcome: CallOutcome, blockNumber: bigint, firstLogIndex = 0): LogRecord[] {
  expect(outcome.success).toBe(true);
  const transactionHash = keccak256(toHex(`tx-${blockNumber}`));
  return outcome.logs.map((log, i) => ({
    address: log.address,
    topics: log.topics,
    data: log.data,
    transactionHash,
    blockNumber,
    logIndex: firstLogIndex + i,
  }));
}

describe("nonce consumption from the token's logs", () => {
  it("a capture is reported as used, with its Transfer", async () => {
    const fx = await deployToken();
    const auth = authorization();
    const sig = await signTransfer(BUYER, fx.domain, auth);
    const outcome = await fx.token.write("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)], {
      from: RELAYER,
    });
    const logs = asBlockLogs(outcome, 42n, 3);
    const found = classifyNonceLogs(logs, fx.token.address, BUYER.address, auth.nonce);
    expect(found).toEqual({
      kind: "used",
      authorizer: BUYER.address,
      nonce: auth.nonce,
      transactionHash: logs[0]?.transactionHash,
      blockNumber: 42n,
      logIndex: 3,
      transfer: null,
    });
    expect(transferAfter(logs, fx.token.address, 3)).toEqual({
      from: BUYER.address,
      to: MERCHANT.address,
      value: auth.value,
    });
    // Another nonce, another authorizer or another contract's logs do not match.
    expect(classifyNonceLogs(logs, fx.token.address, BUYER.address, nonceOf("other"))).toBeNull();
    expect(classifyNonceLogs(logs, fx.token.address, STRANGER.address, auth.nonce)).toBeNull();
    const elsewhere: Address = getAddress(pad("0x1234", { size: 20 }));
    expect(classifyNonceLogs(logs, elsewhere, BUYER.address, auth.nonce)).toBeNull();
    expect(transferAfter(logs, elsewhere, 3)).toBeNull();
    // A reorged-out log is not a consumption.
    expect(
      classifyNonceLogs(
        logs.map((l) => ({ ...l, removed: true })),
        fx.token.address,
        BUYER.address,
        auth.nonce,
      ),
    ).toBeNull();
  });

  it("a cancellation is reported as canceled; nonce case does not matter", async () => {
    const fx = await deployToken();
    const nonce = nonceOf("to-cancel");
    const sig = await signCancel(BUYER, fx.domain, BUYER.address, nonce);
    const outcome = await fx.token.write("cancelAuthorization", [BUYER.address, nonce, ...vrsArgs(sig)], {
      from: STRANGER.address,
    });
    const logs = asBlockLogs(outcome, 7n);
    const found = classifyNonceLogs(
      logs,
      fx.token.address,
      BUYER.address,
      nonce.toUpperCase().replace("0X", "0x") as Hex,
    );
    expect(found).toMatchObject({ kind: "canceled", blockNumber: 7n, logIndex: 0, nonce });
    expect(transferAfter(logs, fx.token.address, 0)).toBeNull();
  });

  it("two consumption logs for one nonce are reported as an inconsistency", async () => {
    const fx = await deployToken();
    const nonce = nonceOf("twice");
    const sig = await signCancel(BUYER, fx.domain, BUYER.address, nonce);
    const outcome = await fx.token.write("cancelAuthorization", [BUYER.address, nonce, ...vrsArgs(sig)]);
    const logs = [...asBlockLogs(outcome, 1n), ...asBlockLogs(outcome, 2n)];
    expect(() => classifyNonceLogs(logs, fx.token.address, BUYER.address, nonce)).toThrow(
      AmbiguousNonceConsumptionError,
    );
  });
});
