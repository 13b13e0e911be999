/**
 * CallPool with real worker threads over a real chain store (a dev genesis in a temporary directory):
 * results equal the in-thread executor's, deadlines end the execution and a new worker takes over, a
 * full queue is refused, and closing fails what is still waiting. eth_getProof's JSON text from a worker
 * is the typed result's encoding, byte for byte.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutionFailedError, LimitExceededError } from "../../../generated/rpc/errors.js";
import { eth_getProof } from "../../../generated/rpc/index.js";
import { createLogger } from "../../log/logger.js";
import { ChainNode } from "../chain-node.js";
import { type CallMessage, IntrinsicGasError } from "../state/call.js";
import { CallPool } from "./call-pool.js";
import { StateView } from "../state/state-view.js";
import { type CallContext, InThreadCalls, type ReadContext } from "./executor.js";

/** Creation code that loops until less than 256 gas is left, then stops: it burns the gas it is given. */
const BURNER = Uint8Array.from(Buffer.from("5b6101005a1160005700", "hex"));
const logger = createLogger({ name: "call-pool-test", level: "silent" });

let dataDir: string;
let node: ChainNode;
let latest: CallContext;

const message = (overrides: Partial<CallMessage> = {}): CallMessage => ({
  from: new Uint8Array(20),
  to: undefined,
  value: 0n,
  data: BURNER,
  gas: 30_000_000n,
  gasPrice: 0n,
  accessList: [],
  ...overrides,
});

/** A read of a predeploy: L1Block.number() on the genesis state. */
const l1BlockNumberCall = message({
  to: Uint8Array.from(Buffer.from("4200000000000000000000000000000000000015", "hex")),
  data: Uint8Array.from(Buffer.from("8381f58a", "hex")),
  gas: 1_000_000n,
});

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "call-pool-"));
  node = await ChainNode.open({
    dataDir,
    chainId: 901n,
    blockTimeMs: 2000,
    flashblockIntervalMs: 200,
    devAccountCount: 2,
    preconfirmedReceipts: true,
    callWorkers: 0,
    callTimeoutMs: 5000,
    logger,
  });
  latest = node.callContext(node.resolveTag("latest")!);
});

afterAll(async () => {
  await node?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const pool = (options: { timeoutMs?: number; maxQueued?: number } = {}) =>
  new CallPool({ dbPath: node.store.path, chainId: 901n, workers: 1, timeoutMs: 30_000, logger, ...options });

/** The GasPriceOracle: slot 0 holds its fork flags at genesis. */
const ORACLE = Uint8Array.from(Buffer.from("420000000000000000000000000000000000000f", "hex"));
const word = (n: number) => {
  const w = new Uint8Array(32);
  w[31] = n & 0xff;
  w[30] = n >> 8;
  return w;
};

describe("CallPool", () => {
  it("answers eth_getProof as the JSON the typed result encodes to, and refuses it when the queue is full", async () => {
    const calls = pool({ maxQueued: 1 });
    try {
      const read: ReadContext = { stateRoot: latest.env.stateRoot, source: node.store, overlay: undefined };
      // The oracle's slot 0 holds a value at genesis; the others and the absent account prove absence.
      const slots = Array.from({ length: 300 }, (_, i) => word(i));
      const nobody = new Uint8Array(20).fill(0xab);
      for (const [address, keys] of [
        [ORACLE, slots],
        [ORACLE, []],
        [nobody, slots.slice(0, 3)],
      ] as const) {
        const typed = new StateView(node.store, read.stateRoot).proof(address, keys);
        const expected = JSON.stringify(eth_getProof.encodeResult(typed));
        expect(await calls.proofJson(read, address, keys)).toBe(expected);
        expect(await new InThreadCalls().proofJson(read, address, keys)).toBe(expected);
      }
      const parsed = JSON.parse(await calls.proofJson(read, ORACLE, slots.slice(0, 2))) as {
        storageProof: { value: string; proof: string[] }[];
      };
      expect(parsed.storageProof[0]!.proof.length).toBeGreaterThan(0);
      expect(parsed.storageProof[0]!.value).not.toBe("0x0");

      const running = calls.call(latest, message());
      const queued = calls.proofJson(read, ORACLE, slots);
      const refused = calls.proofJson(read, ORACLE, slots);
      await expect(refused).rejects.toThrow(LimitExceededError);
      expect((await running).success).toBe(true);
      expect(JSON.parse(await queued)).toMatchObject({ storageProof: { length: 300 } });
    } finally {
      await calls.close();
    }
  });

  it("returns what the in-thread executor returns: calls, estimates, reverts, intrinsic gas", async () => {
    const calls = pool();
    const inThread = new InThreadCalls();
    try {
      for (const msg of [l1BlockNumberCall, message({ gas: 100_000n })]) {
        expect(await calls.call(latest, msg)).toEqual(await inThread.call(latest, msg));
      }
      const burn = message({ gas: 200_000n });
      expect(await calls.estimate(latest, burn, 200_000n)).toEqual(
        await inThread.estimate(latest, burn, 200_000n),
      );
      // REVERT with no data: PUSH1 0 DUP1 REVERT.
      const reverting = message({ data: Uint8Array.of(0x60, 0x00, 0x80, 0xfd), gas: 100_000n });
      const reverted = await calls.call(latest, reverting);
      expect(reverted).toMatchObject({ success: false, reverted: true });
      expect(reverted).toEqual(await inThread.call(latest, reverting));
      await expect(calls.call(latest, message({ gas: 21_000n }))).rejects.toThrow(IntrinsicGasError);
    } finally {
      await calls.close();
    }
  });

  it("ends an execution at its deadline and serves the next call from a new worker", async () => {
    // 250 ms: the 30 M gas burner takes about a second here; a fresh worker's first small call must fit in the
    // same deadline on a loaded machine (at 50 ms it did not once, with four suites sharing the two cores).
    const calls = pool({ timeoutMs: 250 });
    try {
      const overrun = calls.call(latest, message());
      await expect(overrun).rejects.toThrow(new ExecutionFailedError("execution aborted (timeout = 250ms)"));
      expect(calls.stats.workers).toBe(0);
      const outcome = await calls.call(latest, l1BlockNumberCall);
      expect(outcome.success).toBe(true);
      expect(calls.stats).toEqual({ running: 0, queued: 0, workers: 1 });
    } finally {
      await calls.close();
    }
  });

  it("runs block reads on a worker of their own, never behind queued calls", async () => {
    const calls = pool();
    try {
      const burn = message({ gas: 3_000_000n });
      const heavy = [1, 2, 3].map(() => calls.call(latest, burn));
      const read = { method: "eth_getBlockByNumber", number: 0n } as const;
      const json = calls.blockReadJson(read, { blocks: node.store, common: node.common });
      // One call running and two waiting on the call worker; the read running on the read worker.
      expect(calls.stats).toEqual({ running: 2, queued: 2, workers: 2 });
      // The worker's text is what the in-thread executor makes of the same block.
      expect(await json).toBe(
        await new InThreadCalls().blockReadJson(read, { blocks: node.store, common: node.common }),
      );
      for (const outcome of await Promise.all(heavy)) expect(outcome.success).toBe(true);
    } finally {
      await calls.close();
    }
  });

  it("queues calls beyond its workers up to the limit, then refuses with -32005", async () => {
    const calls = pool({ maxQueued: 1 });
    try {
      const running = calls.call(latest, message());
      const queued = calls.call(latest, l1BlockNumberCall);
      const refused = calls.call(latest, l1BlockNumberCall);
      await expect(refused).rejects.toThrow(LimitExceededError);
      await expect(refused).rejects.toMatchObject({ code: -32005 });
      expect(calls.stats).toMatchObject({ running: 1, queued: 1 });
      expect((await running).success).toBe(true);
      expect((await queued).success).toBe(true);
    } finally {
      await calls.close();
    }
  });

  it("drops a queued call whose request was aborted; close fails the running and waiting ones", async () => {
    const calls = pool();
    const running = calls.call(latest, message());
    const abort = new AbortController();
    const abandoned = calls.call(latest, l1BlockNumberCall, abort.signal);
    const waiting = calls.call(latest, l1BlockNumberCall);
    abort.abort();
    await expect(abandoned).rejects.toThrow("request aborted");
    expect(calls.stats.queued).toBe(1);
    const failures = [running, waiting].map((call) =>
      expect(call).rejects.toThrow("the node is shutting down"),
    );
    await calls.close();
    await Promise.all(failures);
    await expect(calls.call(latest, l1BlockNumberCall)).rejects.toThrow("the node is shutting down");
  });
});
