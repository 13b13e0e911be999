/**
 * eth_call and eth_estimateGas on call worker threads, through real node processes: pending calls read
 * the pre-confirmed state of the block being built (sent to the worker as overlay deltas, block after
 * block); a long call leaves the event loop free (snapshots keep coming, other requests are answered);
 * --call-timeout-ms ends an execution and the node goes on; --call-workers 0 gives the same answers on
 * the event loop.
 */
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { call, clients, hexNumber, rpc } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

/** Creation code that loops until less than 256 gas is left, then stops: it burns the gas it is given. */
const BURNER: Hex = "0x5b6101005a1160005700";

/** Creation code returning BALANCE(address) as one word. */
const balanceProbe = (address: Hex): Hex => `0x73${address.slice(2).toLowerCase()}3160005260206000f3`;

let workers: NodeProcess;
let inThread: NodeProcess;
let strict: NodeProcess;
beforeAll(async () => {
  [workers, inThread, strict] = await Promise.all([
    // A 30 M gas burn takes seconds on a loaded CI machine: past the default 5 s timeout once.
    startNodeProcess({
      blockTimeMs: 1000,
      flashblockIntervalMs: 100,
      callWorkers: 1,
      callTimeoutMs: 120_000,
    }),
    startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 100, callWorkers: 0 }),
    startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 100, callWorkers: 1, callTimeoutMs: 200 }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([workers?.stop(), inThread?.stop(), strict?.stop()]);
});

describe("calls on worker threads", () => {
  it("a pending call sees the pre-confirmed state of each snapshot, across blocks", async () => {
    const { walletClient } = clients(workers, 1);
    const target = privateKeyToAccount(generatePrivateKey()).address;
    const balance = async (tag: string) =>
      BigInt(await call<Hex>(workers.url, "eth_getBalance", [target, tag]));
    let fromOverlay = 0;
    const startBlock = BigInt(await call<Hex>(workers.url, "eth_blockNumber", []));
    for (let i = 1; i <= 12; i++) {
      await walletClient.sendTransaction({ to: target, value: 1n });
      const before = await balance("pending");
      const seen = BigInt(
        await call<Hex>(workers.url, "eth_call", [{ data: balanceProbe(target) }, "pending"]),
      );
      const after = await balance("pending");
      const sealed = await balance("latest");
      // Balances only grow: the call saw a state at least as new as the read before it.
      expect(seen).toBeGreaterThanOrEqual(before);
      expect(seen).toBeLessThanOrEqual(after);
      // Still above latest after the call: the worker read it from the block being built.
      if (seen > sealed) fromOverlay++;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(fromOverlay).toBeGreaterThanOrEqual(3);
    expect(BigInt(await call<Hex>(workers.url, "eth_blockNumber", []))).toBeGreaterThan(startBlock + 1n);
  });

  it("a call burning 30 M gas leaves the event loop free: snapshots stream and requests are answered meanwhile", async () => {
    const ws = new WebSocket(workers.flashblocksUrl);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    let frames = 0;
    ws.on("message", () => frames++);
    try {
      let callDone = false;
      const burn = rpc(workers.url, "eth_call", [
        { data: BURNER, gas: hexNumber(30_000_000) },
        "latest",
      ]).then((response) => {
        callDone = true;
        return response;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const framesAtStart = frames;
      const head = await call<Hex>(workers.url, "eth_blockNumber", []);
      expect(head).toMatch(/^0x[0-9a-f]+$/);
      const answeredDuringCall = !callDone;
      const response = await burn;
      expect(response.body?.error).toBeUndefined();
      expect(response.body?.result).toBe("0x");
      expect(answeredDuringCall).toBe(true);
      expect(frames - framesAtStart).toBeGreaterThanOrEqual(2);
    } finally {
      ws.close();
    }
  });

  it("--call-timeout-ms ends a long execution with geth's error; the next call is served", async () => {
    const overrun = await rpc(strict.url, "eth_call", [
      { data: BURNER, gas: hexNumber(30_000_000) },
      "latest",
    ]);
    expect(overrun.body?.error).toEqual({ code: -32000, message: "execution aborted (timeout = 200ms)" });
    const estimate = await rpc(strict.url, "eth_estimateGas", [{ data: BURNER, gas: hexNumber(30_000_000) }]);
    expect(estimate.body?.error?.message).toBe("execution aborted (timeout = 200ms)");
    const l1BlockNumber = [
      { to: "0x4200000000000000000000000000000000000015", data: "0x8381f58a" },
      "latest",
    ];
    expect(await call(strict.url, "eth_call", l1BlockNumber)).toMatch(/^0x0{48}[0-9a-f]{16}$/);
  });

  it("--call-workers 0 gives the same answers on the event loop", async () => {
    const probes: [string, unknown[]][] = [
      ["eth_call", [{ to: "0x4200000000000000000000000000000000000015", data: "0x8381f58a" }, "earliest"]],
      ["eth_call", [{ data: balanceProbe(workers.accounts[9]!.address) }, "earliest"]],
      ["eth_call", [{ data: "0x60006000fd" }, "earliest"]],
      ["eth_estimateGas", [{ data: BURNER, gas: hexNumber(500_000) }, "earliest"]],
      [
        "eth_estimateGas",
        [{ from: workers.accounts[9]!.address, to: workers.accounts[8]!.address, value: "0x1" }],
      ],
      ["eth_call", [{ data: BURNER, gas: hexNumber(10_000) }, "latest"]],
      // GasPriceOracle.getL1Fee(0x) reads L1Block: an access list with a second address.
      [
        "eth_createAccessList",
        [
          {
            to: "0x420000000000000000000000000000000000000F",
            data: "0x49948e0e" + "0".repeat(62) + "20" + "0".repeat(64),
          },
          "earliest",
        ],
      ],
      ["eth_createAccessList", [{ data: "0x60006000fd" }, "earliest"]],
    ];
    for (const [method, params] of probes) {
      const [a, b] = await Promise.all([rpc(workers.url, method, params), rpc(inThread.url, method, params)]);
      expect(a.body, `${method} ${JSON.stringify(params)}`).toEqual(b.body);
    }
  });
});
