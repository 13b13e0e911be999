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

/** Memory 0..128 as ecrecover reads it: hash, v = 28, r, s of a signature over the hash by a fixed key. */
const RECOVER_INPUT = [
  "7ff43e8cfd4725c1e28fa4a6e3e468b4fcf75367166b850ac5f04e33ec843e82c1600052",
  "601c602052",
  "7ff0b401e31ac92b6b65a74c0cfed1db826b3836a85c9342e7b0b4eda912d16ee9604052",
  "7f7feb395682ea08e44601405949f8979d8719dd8f18e9fe3dc15d2395b341d8ed606052",
].join("");
/** The key's address, which the signature above recovers to. */
const SIGNER = "0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a";
/** STATICCALL(GAS, 0x01, 0, 128, 128, 32), POP: one recovery (3 000 gas), its address at 128. */
const RECOVER = "602060806080600060015afa50";
/** Creation code returning the address one recovery gives. */
const RECOVER_ONCE: Hex = `0x${RECOVER_INPUT}${RECOVER}60206080f3`;
/**
 * Creation code that recovers the signature in a loop until less than 4 096 gas is left (JUMPDEST at
 * 113): ~16 000 recoveries in 50 M gas, seconds of work on any machine, where a loop of cheap opcodes over
 * the same gas can end within a short deadline on a fast one.
 */
const RECOVER_BURNER: Hex = `0x${RECOVER_INPUT}5b${RECOVER}6110005a1160715700`;

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
    startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 100, callWorkers: 1, callTimeoutMs: 1000 }),
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
    // The burner's loop does real work: the signature recovers to its key's address (asked of the node without a
    // short deadline: the strict node's worker is cold, and its first call is the overrun, as before).
    expect(await call(workers.url, "eth_call", [{ data: RECOVER_ONCE }, "latest"])).toBe(
      `0x${"0".repeat(24)}${SIGNER.slice(2)}`,
    );
    const overrun = await rpc(strict.url, "eth_call", [
      { data: RECOVER_BURNER, gas: hexNumber(50_000_000) },
      "latest",
    ]);
    expect(overrun.body?.error).toEqual({ code: -32000, message: "execution aborted (timeout = 1000ms)" });
    const estimate = await rpc(strict.url, "eth_estimateGas", [
      { data: RECOVER_BURNER, gas: hexNumber(50_000_000) },
    ]);
    expect(estimate.body?.error?.message).toBe("execution aborted (timeout = 1000ms)");
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
