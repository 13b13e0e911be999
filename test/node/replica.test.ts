/**
 * Read replicas (`--follow`, docs/node/replicas.md "Read replicas"): real node processes, a leader and replicas that
 * follow it over its websocket. A replica catches up by re-executing the leader's blocks, rebuilds `pending`
 * from the flashblocks (its own stream byte for byte the leader's), forwards transactions, survives a leader
 * restart, and refuses a leader on another chain, a sealed block that does not re-execute to its hash and
 * flashblocks that do not verify (a proxy between replica and leader edits what the leader sends).
 */
import { RLP } from "@ethereumjs/rlp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { type Hex, bytesToHex, hexToBytes, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { call, clients, freePort, hexNumber, rawCall, rpc, signTransfer, waitFor } from "./helpers.js";
import { type NodeProcess, startNodeProcess } from "./spawn-node.js";

const BLOCK_MS = 1000;
const FLASH_MS = 200;
// Only the first replica runs eth_call workers (its default); no other node here serves eth_call, and a worker's
// start-up costs CPU on a loaded machine.

let leaderPort: number;
let leaderDir: string;
let leader: NodeProcess;
let replica: NodeProcess;
const sentBeforeReplica: Hex[] = [];

interface BlockRef {
  number: Hex;
  hash: Hex;
}

const latest = (url: string) => call<BlockRef>(url, "eth_getBlockByNumber", ["latest", false]);

/** Waits until `replicaUrl` holds the leader's block `n` (same hash). */
async function replicaReaches(
  replicaUrl: string,
  leaderUrl: string,
  n: bigint,
  timeoutMs = 30_000,
): Promise<void> {
  const blockAt = (url: string) => async () =>
    (await call<BlockRef | null>(url, "eth_getBlockByNumber", [hexNumber(n), false])) ?? undefined;
  const want = await waitFor(blockAt(leaderUrl), `the leader to seal block ${n}`, timeoutMs, 50);
  const got = await waitFor(blockAt(replicaUrl), `the replica to hold block ${n}`, timeoutMs, 50);
  expect(got.hash).toBe(want.hash);
}

function waitForExit(p: NodeProcess, timeoutMs = 30_000): Promise<number | null> {
  if (p.process.exitCode !== null) return Promise.resolve(p.process.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the process did not exit:\n${p.output().slice(-3000)}`)),
      timeoutMs,
    );
    p.process.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

beforeAll(async () => {
  leaderPort = await freePort();
  leaderDir = (await import("node:fs")).mkdtempSync(`${(await import("node:os")).tmpdir()}/op-leader-`);
  leader = await startNodeProcess({
    blockTimeMs: BLOCK_MS,
    flashblockIntervalMs: FLASH_MS,
    port: leaderPort,
    dataDir: leaderDir,
    callWorkers: 0,
  });
  // Blocks with transactions before the replica exists: it must fetch and re-execute them.
  const { publicClient, walletClient } = clients(leader, 1);
  for (let i = 0; i < 3; i++) {
    const hash = await walletClient.sendTransaction({
      to: privateKeyToAccount(generatePrivateKey()).address,
      value: parseEther("0.5"),
    });
    sentBeforeReplica.push(hash);
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }
  replica = await startNodeProcess({ extraArgs: ["--follow", leader.wsUrl], callWorkers: 1 });
}, 90_000);

afterAll(async () => {
  await replica?.stop();
  await leader?.stop();
  (await import("node:fs")).rmSync(leaderDir, { recursive: true, force: true });
});

describe("a read replica (--follow)", () => {
  it("catches up by re-executing the leader's blocks: same hashes, same full blocks and receipts", async () => {
    const receipt = await call<{ blockNumber: Hex }>(leader.url, "eth_getTransactionReceipt", [
      sentBeforeReplica[2],
    ]);
    const last = BigInt(receipt.blockNumber) + 1n;
    await replicaReaches(replica.url, leader.url, last);
    for (let n = 0n; n <= last; n++) {
      const params = [hexNumber(n), true];
      const [a, b] = await Promise.all([
        rpc(leader.url, "eth_getBlockByNumber", params),
        rpc(replica.url, "eth_getBlockByNumber", params),
      ]);
      expect(b.text, `block ${n}`).toBe(a.text);
    }
    for (const hash of sentBeforeReplica) {
      const [a, b] = await Promise.all([
        rpc(leader.url, "eth_getTransactionReceipt", [hash]),
        rpc(replica.url, "eth_getTransactionReceipt", [hash]),
      ]);
      expect(b.text).toBe(a.text);
    }
  });

  it("answers state, proof, log and fee reads at sealed blocks as the leader does", async () => {
    const head = BigInt((await latest(leader.url)).number);
    await replicaReaches(replica.url, leader.url, head);
    const account = leader.accounts[1]!.address;
    const at = hexNumber(head);
    const reads: [string, unknown[]][] = [
      ["eth_getBalance", [account, at]],
      ["eth_getTransactionCount", [account, at]],
      ["eth_getProof", [account, ["0x0"], at]],
      ["eth_getLogs", [{ fromBlock: "0x0", toBlock: at }]],
      ["eth_feeHistory", ["0x8", at, [10, 50, 90]]],
      ["eth_getBlockReceipts", [at]],
      ["optimism_outputAtBlock", [at]],
    ];
    for (const [method, params] of reads) {
      const [a, b] = await Promise.all([rpc(leader.url, method, params), rpc(replica.url, method, params)]);
      expect(b.body?.error, method).toBeUndefined();
      if (method === "optimism_outputAtBlock") {
        // Its syncStatus part is each node's own; the output is the chain's.
        const strip = (t: string) => {
          const r = (JSON.parse(t) as { result: Record<string, unknown> }).result;
          delete r.syncStatus;
          return r;
        };
        expect(strip(b.text), method).toEqual(strip(a.text));
      } else expect(b.text, method).toBe(a.text);
    }
  });

  it("forwards a transaction to the leader and pre-confirms it from the re-executed flashblocks, its stream byte for byte the leader's", async () => {
    const fromLeader: string[] = [];
    const fromReplica: string[] = [];
    const open = async (url: string, into: string[]) => {
      const ws = new WebSocket(url);
      ws.on("message", (data) => into.push(data.toString()));
      await new Promise((resolve, reject) => {
        ws.once("open", resolve);
        ws.once("error", reject);
      });
      return ws;
    };
    const wsLeader = await open(leader.flashblocksUrl, fromLeader);
    const wsReplica = await open(replica.flashblocksUrl, fromReplica);
    try {
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const nonce = Number(
        await call<Hex>(replica.url, "eth_getTransactionCount", [leader.accounts[2]!.address, "pending"]),
      );
      const raw = await signTransfer(leader, 2, nonce, recipient, 12345n);
      const sync = await rpc(replica.url, "eth_sendRawTransactionSync", [raw, 30_000]);
      expect(sync.body?.error).toBeUndefined();
      const receipt = sync.body!.result as { transactionHash: Hex; blockNumber: Hex; status: Hex };
      expect(receipt.status).toBe("0x1");
      // The leader's pool took it (the replica's pool is always empty).
      const atLeader = await call<{ hash: Hex } | null>(leader.url, "eth_getTransactionByHash", [
        receipt.transactionHash,
      ]);
      expect(atLeader?.hash).toBe(receipt.transactionHash);
      // Pre-confirmed at the replica: its pending state already shows the transfer.
      expect(BigInt(await call<Hex>(replica.url, "eth_getBalance", [recipient, "pending"]))).toBe(12345n);
      // A refusal is the leader's, passed on: the same nonce again.
      const again = await rpc(replica.url, "eth_sendRawTransaction", [
        await signTransfer(leader, 2, nonce, recipient, 1n),
      ]);
      expect(again.body?.error?.code).toBe(-32000);
      // Once sealed, both hold the same block.
      await replicaReaches(replica.url, leader.url, BigInt(receipt.blockNumber) + 1n);
    } finally {
      wsLeader.close();
      wsReplica.close();
    }
    const leaderByKey = new Map(
      fromLeader.map((t) => {
        const m = JSON.parse(t) as { payload_id: string; index: number };
        return [`${m.payload_id}/${m.index}`, t];
      }),
    );
    const matched = fromReplica.filter((t) => {
      const m = JSON.parse(t) as { payload_id: string; index: number };
      const theirs = leaderByKey.get(`${m.payload_id}/${m.index}`);
      if (theirs !== undefined) expect(t).toBe(theirs);
      return theirs !== undefined;
    });
    // Every message the replica streamed during the blocks both saw is one of the leader's.
    expect(matched.length).toBeGreaterThan(5);
    expect(fromReplica.length - matched.length).toBeLessThanOrEqual(2); // the first/last may straddle the window
  });

  it("reconnects after the leader restarts and keeps following", async () => {
    const before = BigInt((await latest(replica.url)).number);
    await leader.stop(); // SIGTERM; the data directory is the test's
    leader = await startNodeProcess({
      blockTimeMs: BLOCK_MS,
      flashblockIntervalMs: FLASH_MS,
      port: leaderPort,
      dataDir: leaderDir,
      callWorkers: 0,
    });
    const resumed = BigInt((await latest(leader.url)).number);
    expect(resumed).toBeGreaterThanOrEqual(before);
    await replicaReaches(replica.url, leader.url, resumed + 3n);
    expect(replica.process.exitCode).toBeNull();
  });

  it("can be followed in turn: a replica of the replica holds the leader's blocks and forwards two hops", async () => {
    const second = await startNodeProcess({ extraArgs: ["--follow", replica.wsUrl], callWorkers: 0 });
    try {
      const start = BigInt((await latest(leader.url)).number);
      await replicaReaches(second.url, leader.url, start);
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const nonce = Number(
        await call<Hex>(second.url, "eth_getTransactionCount", [leader.accounts[3]!.address, "pending"]),
      );
      const sync = await rpc(second.url, "eth_sendRawTransactionSync", [
        await signTransfer(leader, 3, nonce, recipient, 777n),
        20_000,
      ]);
      expect(sync.body?.error).toBeUndefined();
      const receipt = sync.body!.result as { transactionHash: Hex; blockNumber: Hex; status: Hex };
      expect(receipt.status).toBe("0x1");
      expect(BigInt(await call<Hex>(second.url, "eth_getBalance", [recipient, "pending"]))).toBe(777n);
      await replicaReaches(second.url, leader.url, BigInt(receipt.blockNumber));
      const atLeader = await call<{ blockHash: Hex }>(leader.url, "eth_getTransactionReceipt", [
        receipt.transactionHash,
      ]);
      const atSecond = await call<{ blockHash: Hex }>(second.url, "eth_getTransactionReceipt", [
        receipt.transactionHash,
      ]);
      expect(atSecond).toEqual(atLeader);
    } finally {
      await second.stop();
    }
  });

  it("refuses a leader whose genesis is another chain's, and exits", async () => {
    const other = await startNodeProcess({
      extraArgs: ["--follow", leader.wsUrl, "--dev-accounts", "3"],
      callWorkers: 0,
    });
    try {
      expect(await waitForExit(other)).toBe(1);
      expect(other.output()).toMatch(/the leader's genesis 0x[0-9a-f]{64} is not this chain's/);
    } finally {
      await other.stop();
    }
  });
});

/**
 * A websocket proxy in front of the leader that lets the test edit what the leader sends: `onResult` for
 * answers to requests (by method), `onNotification` for subscription pushes.
 */
async function tamperingProxy(
  upstreamUrl: string,
  edit: {
    onResult?: (method: string, result: unknown) => unknown;
    onNotification?: (result: unknown) => unknown;
    /** Holds back every answer to a request (not the notifications) this long. */
    delayResultsMs?: number;
    /** Notifications of the same subscription sent right after this one (forged ones). */
    injectAfter?: (result: unknown) => unknown[];
    /** Sees every request the replica sends. */
    onRequest?: (method: string, params: unknown[]) => void;
  },
): Promise<{ url: string; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => server.once("listening", resolve));
  server.on("connection", (client) => {
    const upstream = new WebSocket(upstreamUrl);
    const methods = new Map<unknown, string>();
    const queued: string[] = [];
    upstream.on("open", () => queued.splice(0).forEach((m) => upstream.send(m)));
    client.on("message", (data) => {
      const text = data.toString();
      const m = JSON.parse(text) as { id?: unknown; method: string; params?: unknown[] };
      methods.set(m.id, m.method);
      edit.onRequest?.(m.method, m.params ?? []);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else queued.push(text);
    });
    upstream.on("message", (data) => {
      const m = JSON.parse(data.toString()) as Record<string, unknown>;
      if (m.method === "eth_subscription" && edit.injectAfter !== undefined) {
        const params = m.params as { subscription: string; result: unknown };
        client.send(JSON.stringify(m));
        for (const result of edit.injectAfter(params.result))
          client.send(JSON.stringify({ ...m, params: { subscription: params.subscription, result } }));
        return;
      }
      if (m.method === "eth_subscription" && edit.onNotification !== undefined) {
        const params = m.params as { result: unknown };
        params.result = edit.onNotification(params.result);
      } else if ("result" in m && edit.onResult !== undefined) {
        m.result = edit.onResult(methods.get(m.id) ?? "", m.result);
      }
      if ("id" in m && edit.delayResultsMs !== undefined)
        setTimeout(() => client.send(JSON.stringify(m)), edit.delayResultsMs);
      else client.send(JSON.stringify(m));
    });
    client.on("close", () => upstream.close());
    upstream.on("close", () => client.close());
    upstream.on("error", () => client.close());
  });
  const address = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("a replica catching up", () => {
  it("reports its progress in eth_syncing until it holds the leader's head, then false", async () => {
    expect(await call(leader.url, "eth_syncing", [])).toBe(false);
    expect(await call(replica.url, "eth_syncing", [])).toBe(false);
    // Answers 300 ms late: the new replica needs seconds for the leader's blocks.
    const proxy = await tamperingProxy(leader.wsUrl, { delayResultsMs: 300 });
    const slow = await startNodeProcess({ extraArgs: ["--follow", proxy.url], callWorkers: 0 });
    try {
      type Progress = { startingBlock: Hex; currentBlock: Hex; highestBlock: Hex };
      const progress = await waitFor(
        async () => {
          const p = await call<Progress | false>(slow.url, "eth_syncing", []);
          return p !== false && BigInt(p.currentBlock) > 0n ? p : undefined;
        },
        "eth_syncing to report progress",
        30_000,
        50,
      );
      expect(progress.startingBlock).toBe("0x0");
      expect(BigInt(progress.currentBlock)).toBeLessThan(BigInt(progress.highestBlock));
      expect(BigInt(progress.highestBlock)).toBeGreaterThan(10n);
      await waitFor(
        async () => ((await call(slow.url, "eth_syncing", [])) === false ? true : undefined),
        "the slow replica to catch up",
        90_000,
        200,
      );
      // eth_syncing answers false from one block behind (the block just announced is being sealed): the head then
      // reaches the highest block it reported.
      await waitFor(
        async () =>
          BigInt((await latest(slow.url)).number) >= BigInt(progress.highestBlock) ? true : undefined,
        "the slow replica's head to reach the highest block it reported",
        30_000,
        100,
      );
    } finally {
      await slow.stop();
      await proxy.close();
    }
  });
});

describe("a replica before a leader that lies", () => {
  it("coalesces a flood of forged newHeads (absurd numbers): a bounded number of fetches, eth_syncing never stuck on a number the leader cannot serve", async () => {
    const FLOODS = 3;
    const PER_FLOOD = 5000;
    let floods = 0;
    let rawBlockRequests = 0;
    let caughtUp = false;
    const proxy = await tamperingProxy(leader.wsUrl, {
      injectAfter: (result) => {
        const head = result as { number?: string };
        // Only newHeads (flashblocks have no top-level number), only once the replica holds the leader's head.
        if (!caughtUp || typeof head.number !== "string" || floods >= FLOODS) return [];
        floods++;
        return Array.from({ length: PER_FLOOD }, (_, i) => ({
          ...head,
          number: hexNumber((1n << 62n) + BigInt(i)),
          hash: `0x${(floods * PER_FLOOD + i).toString(16).padStart(64, "e")}`,
        }));
      },
      onRequest: (method) => {
        if (caughtUp && method === "debug_getRawBlock") rawBlockRequests++;
      },
    });
    const follower = await startNodeProcess({ extraArgs: ["--follow", proxy.url], callWorkers: 0 });
    try {
      const start = BigInt((await latest(leader.url)).number);
      await replicaReaches(follower.url, leader.url, start);
      caughtUp = true;
      await waitFor(async () => (floods >= FLOODS ? true : undefined), "three floods", 30_000, 50);
      await replicaReaches(follower.url, leader.url, start + BigInt(FLOODS) + 2n);
      // A fetch the leader answers with null lowers the announced head: eth_syncing is false again.
      await waitFor(
        async () => ((await call(follower.url, "eth_syncing", [])) === false ? true : undefined),
        "eth_syncing to be false after the floods",
        30_000,
        100,
      );
      // Uncoalesced, each forged head would start a fetch of 8 blocks: 120,000 requests.
      expect(rawBlockRequests).toBeLessThan(400);
      expect(follower.process.exitCode).toBeNull();
    } finally {
      await follower.stop();
      await proxy.close();
    }
  });

  it("stops at a sealed block whose header does not re-execute (a changed state root), never serving it", async () => {
    const proxy = await tamperingProxy(leader.wsUrl, {
      onResult: (method, result) => {
        if (method !== "debug_getRawBlock" || typeof result !== "string") return result;
        const [header, ...rest] = RLP.decode(hexToBytes(result as Hex)) as [Uint8Array[], ...unknown[]];
        const number = header[8]!.length === 0 ? 0 : Number(bytesToHex(header[8]!));
        if (number !== 2) return result;
        header[3] = new Uint8Array(32).fill(7); // stateRoot
        return bytesToHex(RLP.encode([header, ...rest] as never));
      },
    });
    const liar = await startNodeProcess({ extraArgs: ["--follow", proxy.url], callWorkers: 0 });
    try {
      expect(await waitForExit(liar)).toBe(1);
      expect(liar.output()).toMatch(/block 2 from the leader does not verify: .*\(stateRoot: leader 0x0707/);
    } finally {
      await liar.stop();
      await proxy.close();
    }
  });

  it("drops flashblocks that do not verify or claim another parent (pending answers latest) and still follows the sealed blocks", async () => {
    const proxy = await tamperingProxy(leader.wsUrl, {
      // Odd blocks: flashblock 0 claims another parent; even blocks: every flashblock claims another hash.
      onNotification: (result) => {
        const m = result as {
          diff?: { block_hash: string };
          base?: { parent_hash: string };
          metadata?: { block_number: number };
        };
        if (m.diff === undefined || m.metadata === undefined) return m;
        if (m.metadata.block_number % 2 === 1) {
          if (m.base !== undefined) m.base.parent_hash = `0x${"cd".repeat(32)}`;
        } else m.diff.block_hash = `0x${"ab".repeat(32)}`;
        return m;
      },
    });
    const follower = await startNodeProcess({ extraArgs: ["--follow", proxy.url], callWorkers: 0 });
    try {
      const start = BigInt((await latest(leader.url)).number);
      await replicaReaches(follower.url, leader.url, start);
      // While it follows four more blocks, its pending block is never one the leader's flashblocks claimed.
      for (;;) {
        const pending = await rawCall(
          follower.url,
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "eth_getBlockByNumber",
            params: ["pending", false],
          }),
        );
        const head = await latest(follower.url);
        const p = pending.body!.result as BlockRef;
        expect(p.hash).not.toBe(`0x${"ab".repeat(32)}`);
        expect(BigInt(p.number)).toBeLessThanOrEqual(BigInt(head.number));
        if (BigInt(head.number) >= start + 4n) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await replicaReaches(follower.url, leader.url, start + 4n);
      // No snapshot of it ever shows a transaction: eth_sendRawTransactionSync answers from the sealed block.
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const nonce = Number(
        await call<Hex>(leader.url, "eth_getTransactionCount", [leader.accounts[4]!.address, "pending"]),
      );
      const sync = await rpc(follower.url, "eth_sendRawTransactionSync", [
        await signTransfer(leader, 4, nonce, recipient, 4321n),
        30_000,
      ]);
      expect(sync.body?.error).toBeUndefined();
      const receipt = sync.body!.result as { transactionHash: Hex; blockHash: Hex; status: Hex };
      expect(receipt.status).toBe("0x1");
      const atLeader = await call<{ blockHash: Hex }>(leader.url, "eth_getTransactionReceipt", [
        receipt.transactionHash,
      ]);
      expect(receipt.blockHash).toBe(atLeader.blockHash);
      expect(follower.output()).toContain("dropped the pending block");
      expect(follower.output()).toContain("ignored a flashblock that does not build on the replica's head");
      expect(follower.process.exitCode).toBeNull();
    } finally {
      await follower.stop();
      await proxy.close();
    }
  });
});
