/**
 * The load run: setup (src/load/setup.ts), then for `durationSeconds` a pacer that spends a gas budget growing at
 * `gasPerSecond` on transactions drawn from the mix, each from the next sender with room (nonces kept here),
 * signed locally and sent in batches of eth_sendRawTransaction without waiting for earlier batches; the sealed
 * blocks' receipts (src/load/blocks.ts) tell inclusion, status and gas. Then up to `drainSeconds` for the last
 * transactions to land, and the report.
 */
import type { Address, Hex } from "viem";
import { initKeccak } from "../chain/index.js";
import { BlockFollower, type SeenBlock } from "./blocks.js";
import { type LoadContracts, loadCall } from "./calls.js";
import { LOAD_KINDS, type LoadKind, type LoadMix, mixPicker } from "./mix.js";
import { errorKind, LoadRpc } from "./rpc.js";
import {
  devSender,
  feesFor,
  freshSenders,
  type LoadSender,
  sendBatch,
  type SignedLoadTransaction,
  signNext,
} from "./senders.js";
import { setUpLoad } from "./setup.js";
import { PerSecond, percentile, type SecondFigures, Tally } from "./stats.js";

export interface LoadRunOptions {
  readonly rpcUrl: string;
  readonly gasPerSecond: number;
  readonly durationSeconds: number;
  readonly mix: LoadMix;
  /** How many senders (fresh keys, funded by the funder). */
  readonly senders: number;
  /** Index of the development account that funds the senders and deploys the contracts. */
  readonly funderIndex: number;
  /** Wei each sender receives for its fees. */
  readonly senderFunding: bigint;
  /** Seconds to wait after the last send for the rest to be included. */
  readonly drainSeconds: number;
  /** Transactions a sender may have sent and not yet seen included (below the node's per-sender pool limit). */
  readonly maxPerSender: number;
  /** Told each whole second of the run, and once setup is done. */
  readonly onProgress?: (event: LoadProgress) => void;
}

export type LoadProgress =
  | {
      readonly msg: "load setup done";
      readonly contracts: LoadContracts;
      readonly gas: Record<LoadKind, string>;
    }
  | ({ readonly msg: "load second"; readonly second: number; readonly pending: number } & SecondFigures);

export interface KindFigures {
  sent: number;
  included: number;
  succeeded: number;
  reverted: number;
  gasUsed: number;
}

export interface LoadReport {
  readonly msg: "load report";
  readonly rpcUrl: string;
  readonly target: { readonly gasPerSecond: number; readonly durationSeconds: number; readonly mix: LoadMix };
  readonly senders: number;
  readonly contracts: LoadContracts;
  /** eth_estimateGas of each kind at setup. */
  readonly estimatedGas: Record<LoadKind, number>;
  readonly sent: { transactions: number; gas: number; gasPerSecond: number };
  readonly included: {
    transactions: number;
    succeeded: number;
    reverted: number;
    gas: number;
    /** Included gas over the sending window (inclusions seen after it, in the drain, count too). */
    gasPerSecond: number;
  };
  readonly byKind: Record<LoadKind, KindFigures>;
  /** From send to the sealed block seen by this process (polled every 100 ms). */
  readonly inclusionLatencyMs: { p50?: number; p99?: number; max?: number };
  /** Refused sends by the error's kind, `transport` (a batch that failed whole), `reverted`, `not included`. */
  readonly errors: Record<string, number>;
  /** The chain's own figures over the blocks sealed during the run. */
  readonly chain: {
    blocks: number;
    gasLimit: string;
    gasPerSecond: number;
    averageBlockGasUsed: number;
    maxBlockGasUsed: number;
  };
  readonly perSecond: readonly SecondFigures[];
  /** The first contracts the deploy kind created (at most 10). */
  readonly deployedContracts: readonly Address[];
  /** CPU seconds this process used while sending and draining (user + system). */
  readonly generatorCpuSeconds: number;
}

interface Pending {
  readonly kind: LoadKind;
  readonly sentAtMs: number;
  readonly sender: LoadSender;
}

/** Batches at most this many transactions; more sends wait for one of the batches in flight. */
const MAX_BATCH = 200;
const MAX_BATCHES_IN_FLIGHT = 8;
const TICK_MS = 20;
/** Budget unspent for longer than this is dropped (the generator could not keep up; the report shows it). */
const MAX_BACKLOG_SECONDS = 0.5;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runLoad(options: LoadRunOptions): Promise<LoadReport> {
  await initKeccak();
  const rpc = new LoadRpc(options.rpcUrl);
  const chainId = Number(await rpc.call<Hex>("eth_chainId", []));
  const follower = new BlockFollower(rpc);
  await follower.start();
  try {
    const funder = await devSender(rpc, options.funderIndex);
    const senders = freshSenders(options.senders);
    const setup = await setUpLoad({
      rpc,
      follower,
      chainId,
      funder,
      senders,
      senderFunding: options.senderFunding,
    });
    options.onProgress?.({
      msg: "load setup done",
      contracts: setup.contracts,
      gas: Object.fromEntries(LOAD_KINDS.map((k) => [k, String(setup.gas[k])])) as Record<LoadKind, string>,
    });
    return await pace(options, rpc, follower, chainId, senders, setup.contracts, setup.gas);
  } finally {
    follower.stop();
  }
}

async function pace(
  options: LoadRunOptions,
  rpc: LoadRpc,
  follower: BlockFollower,
  chainId: number,
  senders: readonly LoadSender[],
  contracts: LoadContracts,
  estimated: Readonly<Record<LoadKind, bigint>>,
): Promise<LoadReport> {
  const pick = mixPicker(options.mix);
  // Pacing figures: the estimates, moved towards the gas each kind really used.
  const expected = Object.fromEntries(LOAD_KINDS.map((k) => [k, Number(estimated[k])])) as Record<
    LoadKind,
    number
  >;
  const gasLimit = Object.fromEntries(LOAD_KINDS.map((k) => [k, (estimated[k] * 13n) / 10n])) as Record<
    LoadKind,
    bigint
  >;
  const byKind = Object.fromEntries(
    LOAD_KINDS.map((k) => [k, { sent: 0, included: 0, succeeded: 0, reverted: 0, gasUsed: 0 }]),
  ) as Record<LoadKind, KindFigures>;
  const pending = new Map<Hex, Pending>();
  const errors = new Tally();
  const latencies: number[] = [];
  const blocks: SeenBlock[] = [];
  const deployed: Address[] = [];
  const startMs = performance.now();
  const cpuAtStart = process.cpuUsage();
  const series = new PerSecond(startMs);
  let sentGas = 0;
  let sentTransactions = 0;

  const unlisten = follower.listen((block, receipts) => {
    blocks.push(block);
    for (const r of receipts) {
      const p = pending.get(r.transactionHash);
      if (p === undefined) continue;
      pending.delete(r.transactionHash);
      p.sender.inFlight--;
      latencies.push(block.seenAtMs - p.sentAtMs);
      const figures = byKind[p.kind];
      figures.included++;
      figures.gasUsed += Number(r.gasUsed);
      if (r.success) {
        figures.succeeded++;
        if (r.contractAddress !== null && deployed.length < 10) deployed.push(r.contractAddress);
      } else {
        figures.reverted++;
        errors.add("reverted");
      }
      expected[p.kind] = expected[p.kind] * 0.9 + Number(r.gasUsed) * 0.1;
      const second = series.at(block.seenAtMs);
      second.includedGas += Number(r.gasUsed);
      second.includedTransactions++;
    }
  });

  let cursor = 0;
  const nextSender = (): LoadSender | undefined => {
    for (let tried = 0; tried < senders.length; tried++) {
      const s = senders[cursor]!;
      cursor = (cursor + 1) % senders.length;
      if (!s.resync && s.inFlight < options.maxPerSender) return s;
    }
    return undefined;
  };
  const resync = (sender: LoadSender): void => {
    if (sender.unanswered > 0) return;
    void rpc.call<Hex>("eth_getTransactionCount", [sender.address, "pending"]).then(
      (n) => {
        sender.nonce = BigInt(n);
        sender.resync = false;
      },
      () => undefined, // tried again after its next refused send; the sender stays out meanwhile
    );
  };
  const answered = (signed: readonly SignedLoadTransaction[], refusals: (string | undefined)[]): void => {
    signed.forEach((tx, i) => {
      tx.sender.unanswered--;
      const refusal = refusals[i];
      if (refusal !== undefined) {
        const p = pending.get(tx.hash);
        pending.delete(tx.hash);
        tx.sender.inFlight--;
        errors.add(refusal);
        if (p !== undefined) byKind[p.kind].sent--;
        tx.sender.resync = true;
      }
      if (tx.sender.resync) resync(tx.sender);
    });
  };

  let batchesInFlight = 0;
  let budget = 0;
  let last = startMs;
  let reported = 0;
  const endMs = startMs + options.durationSeconds * 1000;
  for (let now = performance.now(); now < endMs; now = performance.now()) {
    budget = Math.min(
      budget + (options.gasPerSecond * (now - last)) / 1000,
      options.gasPerSecond * MAX_BACKLOG_SECONDS,
    );
    last = now;
    const fees = feesFor(follower.latest?.baseFeePerGas ?? 0n);
    const batch: SignedLoadTransaction[] = [];
    while (budget > 0 && batch.length < MAX_BATCH && batchesInFlight < MAX_BATCHES_IN_FLIGHT) {
      const sender = nextSender();
      if (sender === undefined) break;
      const kind = pick();
      const recipient = senders[(cursor + 7) % senders.length]!.address;
      const tx = await signNext(sender, loadCall(kind, contracts, recipient), gasLimit[kind], fees, chainId);
      const sentAtMs = performance.now();
      sender.inFlight++;
      sender.unanswered++;
      pending.set(tx.hash, { kind, sentAtMs, sender });
      byKind[kind].sent++;
      budget -= expected[kind];
      sentGas += expected[kind];
      sentTransactions++;
      const second = series.at(sentAtMs);
      second.sentGas += expected[kind];
      second.sentTransactions++;
      batch.push(tx);
    }
    if (batch.length > 0) {
      batchesInFlight++;
      void sendBatch(rpc, batch)
        .then(
          (answers) =>
            answered(
              batch,
              answers.map((a) => (a.ok ? undefined : errorKind(a.message))),
            ),
          () =>
            answered(
              batch,
              batch.map(() => "transport"),
            ),
        )
        .finally(() => batchesInFlight--);
    }
    const second = Math.floor((performance.now() - startMs) / 1000);
    for (; reported < second; reported++)
      options.onProgress?.({
        msg: "load second",
        second: reported,
        pending: pending.size,
        ...series.at(startMs + reported * 1000),
      });
    await sleep(TICK_MS);
  }
  const drainEnd = performance.now() + options.drainSeconds * 1000;
  while ((pending.size > 0 || batchesInFlight > 0) && performance.now() < drainEnd) await sleep(100);
  unlisten();
  const cpu = process.cpuUsage(cpuAtStart);
  if (pending.size > 0) errors.add("not included", pending.size);

  const seconds = options.durationSeconds;
  const included = LOAD_KINDS.reduce(
    (sum, k) => ({
      transactions: sum.transactions + byKind[k].included,
      succeeded: sum.succeeded + byKind[k].succeeded,
      reverted: sum.reverted + byKind[k].reverted,
      gas: sum.gas + byKind[k].gasUsed,
    }),
    { transactions: 0, succeeded: 0, reverted: 0, gas: 0 },
  );
  return {
    msg: "load report",
    rpcUrl: options.rpcUrl,
    target: { gasPerSecond: options.gasPerSecond, durationSeconds: seconds, mix: options.mix },
    senders: senders.length,
    contracts,
    estimatedGas: Object.fromEntries(LOAD_KINDS.map((k) => [k, Number(estimated[k])])) as Record<
      LoadKind,
      number
    >,
    sent: {
      transactions: sentTransactions,
      gas: Math.round(sentGas),
      gasPerSecond: Math.round(sentGas / seconds),
    },
    included: { ...included, gasPerSecond: Math.round(included.gas / seconds) },
    byKind,
    inclusionLatencyMs: {
      p50: round(percentile(latencies, 50)),
      p99: round(percentile(latencies, 99)),
      max: round(percentile(latencies, 100)),
    },
    errors: errors.toJSON(),
    chain: chainFigures(blocks),
    perSecond: series.seconds,
    deployedContracts: deployed,
    generatorCpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100,
  };
}

function round(value: number | undefined): number | undefined {
  return value === undefined ? undefined : Math.round(value);
}

/** Gas the chain sequenced per second of block time over `blocks` (consecutive sealed blocks). */
export function chainFigures(blocks: readonly SeenBlock[]): LoadReport["chain"] {
  const gasUsed = blocks.map((b) => Number(b.gasUsed));
  const total = gasUsed.reduce((a, b) => a + b, 0);
  const first = blocks[0];
  const last = blocks[blocks.length - 1];
  // The span from the parent of the first block to the last: each block's gas over its own interval.
  const interval =
    first !== undefined && last !== undefined && blocks.length > 1
      ? Number(last.timestamp - first.timestamp) / (blocks.length - 1)
      : 0;
  const span =
    first !== undefined && last !== undefined ? Number(last.timestamp - first.timestamp) + interval : 0;
  return {
    blocks: blocks.length,
    gasLimit: String(last?.gasLimit ?? 0n),
    gasPerSecond: span > 0 ? Math.round(total / span) : 0,
    averageBlockGasUsed: blocks.length > 0 ? Math.round(total / blocks.length) : 0,
    maxBlockGasUsed: Math.max(0, ...gasUsed),
  };
}
