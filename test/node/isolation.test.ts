/**
 * Block production isolated from request load (docs/node/limits.md "Block production under
 * load"): a spawned node (1 s blocks, 200 ms snapshots) is subscribed to on /ws/flashblocks and newHeads
 * while five clients send heavy batches within the limits for about 8 s: eth_getProof 10 × 1000 keys over
 * a contract with 512 storage slots (two clients), eth_feeHistory 1024 blocks × 100 percentiles,
 * eth_getLogs over the whole chain and full blocks. Snapshots must keep arriving: at most
 * MAX_LATE_SNAPSHOTS intervals over 1 s and none over 3 s, and sealed blocks keep their cadence (no newHeads gap
 * over 3 s). Measured on this 2-core machine with nothing else running, two runs each: the isolated node's
 * snapshot intervals were all under 0.55 s (largest block gap 1.3-1.4 s); the same load on the event loop
 * (`--call-workers 0`) stalled the stream at every heavy answer, 6 and 7 intervals of 1.06-1.36 s, and its
 * blocks 3.1-3.2 s. The count tells the two apart where the largest interval alone did not: on CI, beside two
 * other test files, the isolated node once had one interval of 1.52 s (1.04 s in other runs), as long as the
 * event loop's quiet ones. The tight targets belong to `npm run bench:abuse`. Every heavy answer must be a result, and
 * the proofs correct: slot values as the contract wrote them, and one answer equal to a fresh single
 * call's.
 */
import { Worker } from "node:worker_threads";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, clients, hexNumber, rawCall } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

/** Storage slots the contract below writes: slot i holds i for i in 1..SLOTS. */
const SLOTS = 512;
/**
 * Creation code: i = SLOTS; loop { SSTORE(i, i); i -= 1 } while i != 0; STOP (no runtime code):
 * PUSH2 SLOTS, JUMPDEST, DUP1, DUP1, SSTORE, PUSH1 1, SWAP1, SUB, DUP1, PUSH1 3, JUMPI, STOP.
 */
const FILLER: Hex = `0x61${SLOTS.toString(16).padStart(4, "0")}5b808055600190038060035700`;
const LOAD_MS = 8000;
/** A snapshot interval this long is a stall (the stream's cadence is 200 ms). */
const LATE_SNAPSHOT_MS = 1000;
/** At most this many stalls in the window (the event loop stalled 6-7 times; 40-60 intervals in all). */
const MAX_LATE_SNAPSHOTS = 3;
const MAX_SNAPSHOT_GAP_MS = 3000;
const MAX_BLOCK_GAP_MS = 3000;

const word = (n: number): Hex => `0x${n.toString(16).padStart(64, "0")}`;

interface Item {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

interface ProofJson {
  storageHash: Hex;
  storageProof: { key: Hex; value: Hex; proof: Hex[] }[];
}

let node: NodeProcess;
let filler: Hex;
let proofBlock: Hex;

beforeAll(async () => {
  node = await startNodeProcess({ blockTimeMs: 1000, flashblockIntervalMs: 200, logLevel: "warn" });
  const { walletClient, publicClient } = clients(node, 0);
  const receipt = await publicClient.waitForTransactionReceipt({
    hash: await walletClient.sendTransaction({ data: FILLER, gas: 13_000_000n }),
  });
  expect(receipt.status).toBe("success");
  filler = receipt.contractAddress!;
  proofBlock = hexNumber(receipt.blockNumber);
}, 90_000);

afterAll(async () => {
  await node?.stop();
});

async function batch(items: { method: string; params: unknown[] }[]): Promise<Item[]> {
  const body = JSON.stringify(items.map((c, id) => ({ jsonrpc: "2.0", id, ...c })));
  const response = await rawCall(node.url, body);
  expect(response.status).toBe(200);
  return JSON.parse(response.text) as Item[];
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across threads. */
const clock = (): number => performance.timeOrigin + performance.now();

/**
 * Records the arrival times of flashblocks frames and newHeads notifications on a worker thread of its
 * own: this thread parses megabytes of answers, which would delay its own message events and count as
 * gaps the node never made.
 */
function startWatcher(target: NodeProcess): {
  arrivals(): Promise<{ frames: number[]; heads: number[] }>;
  stop(): Promise<void>;
} {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const WebSocket = require("ws");
    const clock = () => performance.timeOrigin + performance.now();
    const frames = [];
    const heads = [];
    const flashblocks = new WebSocket(workerData.flashblocksUrl);
    flashblocks.on("message", () => frames.push(clock()));
    const newHeads = new WebSocket(workerData.wsUrl);
    newHeads.on("open", () =>
      newHeads.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] })),
    );
    newHeads.on("message", (data) => {
      if (JSON.parse(data.toString()).method === "eth_subscription") heads.push(clock());
    });
    parentPort.on("message", () => parentPort.postMessage({ frames, heads }));
  `;
  const worker = new Worker(code, {
    eval: true,
    workerData: { flashblocksUrl: target.flashblocksUrl, wsUrl: target.wsUrl },
  });
  return {
    arrivals: () =>
      new Promise((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
        worker.postMessage("report");
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
}

/** The intervals between consecutive arrival times. */
const gapsOf = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);

/** The largest interval between consecutive arrival times. */
const maxGap = (times: readonly number[]): number => Math.max(0, ...gapsOf(times));

describe("block production under heavy in-limit reads", () => {
  it("keeps streaming snapshots and sealing blocks while proofs, fee history, logs and full blocks are served", async () => {
    const watcher = startWatcher(node);
    try {
      // A quiet second first: the stream is up and the measurement starts from a frame.
      // (A worker thread starts slowly on a loaded machine: up to 15 s for its first frame.)
      const up = clock();
      while ((await watcher.arrivals()).frames.length === 0) {
        expect(clock() - up).toBeLessThan(15_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const start = clock();
      const end = start + LOAD_MS;
      const running = () => clock() < end;
      const counts = { proofs: 0, feeHistory: 0, logs: 0, blocks: 0 };
      const failures: string[] = [];
      const check = (items: Item[], expected: number, method: string): Item[] => {
        expect(items).toHaveLength(expected);
        for (const item of items) {
          if (item.error !== undefined) failures.push(`${method}: ${item.error.code} ${item.error.message}`);
        }
        return items;
      };
      const keysOf = (client: number, round: number, call: number): Hex[] =>
        Array.from({ length: 1000 }, (_, k) => word((client * 7 + round * 3 + call * 11 + k) % 1200));
      let sample: { keys: Hex[]; answer: ProofJson } | undefined;

      const proofClient = async (client: number): Promise<void> => {
        for (let round = 0; running(); round++) {
          const calls = Array.from({ length: 10 }, (_, c) => ({
            method: "eth_getProof",
            params: [filler, keysOf(client, round, c), proofBlock],
          }));
          const items = check(await batch(calls), 10, "eth_getProof");
          for (const [c, item] of items.entries()) {
            const answer = item.result as ProofJson;
            const keys = calls[c]!.params[1] as Hex[];
            // Slot i holds i for 1..SLOTS, nothing elsewhere; every key answered in order.
            if (answer.storageProof.length !== keys.length) failures.push(`eth_getProof: wrong key count`);
            for (const [k, p] of answer.storageProof.entries()) {
              const slot = Number(BigInt(p.key));
              const set = slot >= 1 && slot <= SLOTS;
              if (
                p.key !== keys[k] ||
                p.value !== (set ? hexNumber(slot) : "0x0") ||
                (set && p.proof.length === 0)
              )
                failures.push(`eth_getProof: slot ${p.key} answered ${p.value} with ${p.proof.length} nodes`);
            }
            sample ??= { keys, answer };
          }
          counts.proofs += items.length;
        }
      };
      const repeat = (method: string, size: number, params: () => unknown[], key: keyof typeof counts) =>
        (async () => {
          while (running()) {
            const items = check(
              await batch(Array.from({ length: size }, () => ({ method, params: params() }))),
              size,
              method,
            );
            counts[key] += items.length;
          }
        })();
      const head = async () => Number(BigInt(await call<Hex>(node.url, "eth_blockNumber", [])));
      let latest = await head();
      const percentiles = Array.from({ length: 100 }, (_, i) => i + 1);

      await Promise.all([
        proofClient(0),
        proofClient(1),
        repeat("eth_feeHistory", 20, () => ["0x400", "latest", percentiles], "feeHistory"),
        repeat("eth_getLogs", 20, () => [{ fromBlock: "0x0", toBlock: hexNumber(latest) }], "logs"),
        repeat(
          "eth_getBlockByNumber",
          100,
          () => [hexNumber(Math.max(0, latest - Math.floor(Math.random() * (latest + 1)))), true],
          "blocks",
        ),
        (async () => {
          while (running()) {
            latest = await head();
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        })(),
      ]);
      const finished = clock();
      // One more frame and one more head after the load closes the last intervals.
      let arrivals = await watcher.arrivals();
      while (!(arrivals.frames.at(-1)! > finished && arrivals.heads.at(-1)! > finished)) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(clock() - finished).toBeLessThan(10_000);
        arrivals = await watcher.arrivals();
      }

      expect(failures).toEqual([]);
      expect(counts.proofs).toBeGreaterThanOrEqual(20);
      expect(counts.feeHistory).toBeGreaterThan(0);
      expect(counts.logs).toBeGreaterThan(0);
      expect(counts.blocks).toBeGreaterThan(0);

      const window = <T extends number>(times: T[]) => {
        const lastBefore = times.filter((t) => t < start).at(-1)!;
        return [
          lastBefore,
          ...times.filter((t) => t >= start && t <= finished),
          times.find((t) => t > finished)!,
        ];
      };
      const snapshotGaps = gapsOf(window(arrivals.frames));
      const snapshotGap = Math.max(...snapshotGaps);
      const lateSnapshots = snapshotGaps.filter((gap) => gap > LATE_SNAPSHOT_MS);
      const blockGap = maxGap(window(arrivals.heads));
      console.log(
        `isolation: ${counts.proofs} proofs (10 000 keys a batch), ${counts.feeHistory} fee histories, ` +
          `${counts.logs} log queries, ${counts.blocks} full blocks in ${Math.round(finished - start)} ms; ` +
          `${snapshotGaps.length} snapshot intervals, ${lateSnapshots.length} over ${LATE_SNAPSHOT_MS} ms ` +
          `(${lateSnapshots.map(Math.round).join(", ") || "none"}), largest ${Math.round(snapshotGap)} ms; ` +
          `largest block gap ${Math.round(blockGap)} ms`,
      );
      expect(lateSnapshots.length).toBeLessThanOrEqual(MAX_LATE_SNAPSHOTS);
      expect(snapshotGap).toBeLessThanOrEqual(MAX_SNAPSHOT_GAP_MS);
      expect(blockGap).toBeLessThanOrEqual(MAX_BLOCK_GAP_MS);

      // The answer served under load is the one a single call gives now, byte for byte once parsed.
      expect(sample).toBeDefined();
      const fresh = await call<ProofJson>(node.url, "eth_getProof", [filler, sample!.keys, proofBlock]);
      expect(fresh).toEqual(sample!.answer);
      expect(fresh.storageHash).not.toBe(
        "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
      );
    } finally {
      await watcher.stop();
    }
  }, 120_000);
});
