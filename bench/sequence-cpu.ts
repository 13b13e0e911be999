/**
 * bench/sequence-cpu.ts — the sequencer's own CPU per transaction, without a network or a load generator: an
 * in-process node (100 ms flashblocks, no call workers, a block time long enough that one block holds them all)
 * admits a fixed backlog of pre-signed ether transfers (64 senders, --per-sender each, in slices of 64 with a turn
 * of the event loop between them, each slice made durable in the pool journal as eth_sendRawTransaction's answer
 * waits for it) until a flashblock shows every one, then stops the node, which seals the block. Prints the process's
 * CPU seconds from the first admission to the end of the seal, per 1 000 transactions, the wall time, and the
 * machine's load average. One block, so the count of seals does not depend on where block boundaries fall. Transfers execute in microseconds, so the figure is what the node
 * spends around execution: admission (sender recovery, the journal), snapshots (roots, balances, the flashblocks
 * message), the seal and its SQLite commit. Run it paired (two checkouts, in turn) to compare a change.
 *
 * Flags: --per-sender <n> (default 20: 1 280 transfers, 26.9 M gas, within one dev block).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Hex, hexToBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { initKeccak, toHexRaw } from "../src/chain/index.js";
import { createLogger } from "../src/log/index.js";
import { admitTransaction, ChainNode } from "../src/node/index.js";

const { values } = parseArgs({ options: { "per-sender": { type: "string", default: "20" } } });
const SENDERS = 64;
const perSender = Number(values["per-sender"]);

await initKeccak();
const dataDir = mkdtempSync(join(tmpdir(), "bench-sequence-cpu-"));
const node = await ChainNode.open({
  dataDir,
  chainId: 901n,
  blockTimeMs: 60_000,
  flashblockIntervalMs: 100,
  devAccountCount: SENDERS,
  preconfirmedReceipts: true,
  callWorkers: 0,
  callTimeoutMs: 5000,
  logger: createLogger({ name: "bench-sequence-cpu", level: "silent" }),
});
let closing: Promise<void> | undefined;
try {
  // Signed before the measured window (viem: the bench's own signing is not what it measures).
  const signers = node.devAccounts.map((a) => privateKeyToAccount(a.privateKey as Hex));
  const slices: Uint8Array[][] = [];
  for (let nonce = 0; nonce < perSender; nonce++)
    slices.push(
      await Promise.all(
        signers.map(async (signer, i) =>
          hexToBytes(
            await signer.signTransaction({
              type: "eip1559",
              chainId: 901,
              nonce,
              to: `0x${(0xbeef0000 + i).toString(16).padStart(40, "0")}`,
              value: BigInt(1 + nonce),
              gas: 21_000n,
              maxFeePerGas: 100_000_000_000n,
              maxPriorityFeePerGas: 1_000_000n,
            }),
          ),
        ),
      ),
    );
  const wanted = new Set<string>();
  let resolveShown = (): void => undefined;
  const allShown = new Promise<void>((resolve) => (resolveShown = resolve));
  let admitted = false;
  node.producer.onSnapshot((p) => {
    for (const h of p.snapshot.transactionHashes) wanted.delete(toHexRaw(h));
    if (admitted && wanted.size === 0) resolveShown();
  });
  node.start();
  await new Promise<void>((resolve) => {
    const off = node.producer.onSnapshot(() => {
      off();
      resolve();
    });
  });
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (const slice of slices) {
    for (const raw of slice) wanted.add(admitTransaction(node, raw).hashHex);
    await node.producer.pool.durable();
    await new Promise((resolve) => setImmediate(resolve));
  }
  admitted = true;
  await allShown;
  const sealed = new Promise<number>((resolve) =>
    node.producer.onSealed((b) => resolve(b.transactions.length)),
  );
  closing = node.close();
  const closed = closing;
  const sealedTransactions = await sealed;
  await closed;
  const cpu = process.cpuUsage(cpu0);
  const wall = (performance.now() - wall0) / 1000;
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const count = SENDERS * perSender;
  console.log(
    JSON.stringify({
      transactions: count,
      sealedTransactions,
      cpuSeconds: Number(cpuSeconds.toFixed(3)),
      cpuMsPer1000: Number(((1000 * cpuSeconds * 1000) / count).toFixed(1)),
      wallSeconds: Number(wall.toFixed(2)),
      loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
      cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}`,
    }),
  );
} finally {
  await (closing ?? node.close());
  rmSync(dataDir, { recursive: true, force: true });
}
