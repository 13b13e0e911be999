/**
 * End-to-end proving benchmark (`npm run bench:prove`): the prover's processes over an L1-backed chain
 * with 1 s L1 and L2 blocks (test/support/prover-chain.ts: anvil, our node in L1 mode, the batcher posting blobs,
 * a local-mode enclave process, host processes). While the chain runs, L2 transfers, calls to a counter contract
 * and L1 → L2 deposits are sent; then prover_prove is timed on consecutive ranges of 1, 10 and 100 blocks.
 *
 * Per range: the total prover_prove time at the host; the host's witness collection (its "witness collected" log
 * line: total, of which time waiting on the L1/L2 endpoints, preimage count and witness bytes); the Prove frame's
 * transfer from the host (a pass-through proxy in front of the enclave, test/host/tamper-proxy.ts, times the frame
 * and the enclave's round trip); the enclave's stages — verification (every hash-keyed preimage checked, boot info
 * read), derivation, execution and signing — measured by replaying the same frame in this process with the code the
 * enclave runs (bench/prove-stages.ts); and the
 * enclave process's peak RSS (VmHWM, reset before each range where the kernel allows it).
 *
 * Then witness collection alone, per strategy (src/host/witness/strategies.ts: db-get, the old path of one
 * debug_dbGet per trie node missed, then execute-payload, execution-witness and proofs), on one more range of
 * `--strategy-range` blocks: the host's collectWitness run in this process against the node's full surface, which
 * serves every strategy's methods, `--rounds` times with the strategies' order rotated each round (one warm-up
 * collection first, not counted). Per strategy, the median round: witness time per block, requests and response
 * bytes per block (counted by a RequestStats passed to the collection's clients), the time the program waited on
 * the endpoints against the time it worked, the wall time a request was in flight, and the ratio to db-get.
 * Usage: npm run bench:prove [-- --ranges 1,10,100 --strategy-range 10 --rounds 3]; `--ranges ""` runs only the
 * strategies' comparison.
 *
 * `--load base` proves a chain built at Base's target gas instead (bench/prove-base.ts: `--ranges` default
 * 10,100,600, `--workers 1,2`, `--witness-workers N` for every host, `--witness-run program,forward`: each
 * with every worker count, `--max-blocks-per-frame N` for every host, `--gas-limit`, `--gas-per-second`,
 * `--senders`, `--node-witness-window N` for the node).
 */
import { parseArgs } from "node:util";
import {
  bytesToHex,
  createWalletClient,
  defineChain,
  type Hex,
  hexToBytes,
  http,
  parseEther,
  parseGwei,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { depositPortalAbi } from "../contracts/index.js";
import { loadKzg } from "../src/derive/index.js";
import { JsonRpcClient, RequestStats } from "../src/chain-rpc/index.js";
import {
  chooseWitnessStrategy,
  collectWitness,
  WITNESS_STRATEGIES,
  type WitnessMetrics,
  type WitnessStrategyName,
} from "../src/host/index.js";
import { devAccounts } from "../src/chain/index.js";
import { l1Account } from "../test/support/prover-chain.js";
import {
  type ProveChain,
  type RangeRequest,
  rpc,
  startProveChain,
  until,
} from "../test/proof/prove-chain.js";
import { startTamperProxy } from "../test/host/tamper-proxy.js";
import { benchProveBaseLoad } from "./prove-base.js";
import { peakRssMiB, resetPeakRss } from "./process-stats.js";
import { loadAverage, machineLine, replayStages } from "./prove-stages.js";

/** Runtime: counter += 1 (PUSH1 0 SLOAD PUSH1 1 ADD PUSH1 0 SSTORE STOP), behind an init code returning it. */
const COUNTER_INIT: Hex = "0x600a600c600039600a6000f360005460010160005500";

interface RangeFigures {
  blocks: number;
  interval: number;
  transactions: number;
  totalMs: number;
  witnessMs: number;
  fetchMs: number;
  preimages: number;
  witnessBytes: number;
  frameBytes: number;
  transferMs: number;
  enclaveRoundTripMs: number;
  verifyMs: number;
  derivationMs: number;
  executionMs: number;
  signingMs: number;
  enclavePeakRssMiB: number | undefined;
}

/** One witness collection of `request`'s range by `strategy`, in this process; the roots must be the node's. */
async function collectBy(
  p: ProveChain,
  request: RangeRequest,
  strategy: WitnessStrategyName,
): Promise<WitnessMetrics> {
  const chain = p.prover.chain;
  const collected = await collectWitness({
    boot: request.boot,
    agreedL2HeadHash: hexToBytes(request.params.agreed_l2_head_hash as Hex),
    l1RpcUrl: chain.l1.anvil.rpcUrl,
    l2RpcUrl: chain.node.url,
    l2State: async (client: JsonRpcClient) =>
      (await chooseWitnessStrategy(strategy, { client, rollupConfig: chain.rollup })).source,
    rollupConfig: chain.rollup,
    requestStats: new RequestStats(),
  });
  const roots = collected.result.outputRoots.map((root) => bytesToHex(root));
  if (roots.join() !== request.roots.join())
    throw new Error(`${strategy}: the witness's run did not give the node's output roots`);
  return collected.metrics;
}

/** Witness collection of `request` by every strategy, `rounds` times, the order rotated each round. */
async function strategyRounds(
  p: ProveChain,
  request: RangeRequest,
  rounds: number,
): Promise<Map<WitnessStrategyName, WitnessMetrics[]>> {
  await loadKzg();
  await collectBy(p, request, "execute-payload"); // warm-up: the program's code paths, the node's caches
  const byStrategy = new Map<WitnessStrategyName, WitnessMetrics[]>(WITNESS_STRATEGIES.map((s) => [s, []]));
  for (let round = 0; round < rounds; round++) {
    const order = WITNESS_STRATEGIES.map(
      (_, i) => WITNESS_STRATEGIES[(i + round) % WITNESS_STRATEGIES.length]!,
    );
    for (const strategy of order) byStrategy.get(strategy)!.push(await collectBy(p, request, strategy));
  }
  return byStrategy;
}

/** The strategies' table: the median round (by witness time) of each, per block, and its ratio to db-get. */
function printStrategies(byStrategy: Map<WitnessStrategyName, WitnessMetrics[]>, blocks: number): void {
  const median = (runs: WitnessMetrics[]) =>
    [...runs].sort((a, b) => a.totalMs - b.totalMs)[Math.floor((runs.length - 1) / 2)]!;
  const baseline = median(byStrategy.get("db-get")!).totalMs;
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  console.log(
    `| strategy (${blocks} blocks) | witness | per block | requests/block | fetched/block | program waited | program worked | endpoint busy | preimages | × db-get | rounds |`,
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const [strategy, runs] of byStrategy) {
    const m = median(runs);
    console.log(
      `| ${strategy} | ${ms(m.totalMs)} | ${ms(m.totalMs / blocks)} | ${(m.requests / blocks).toFixed(1)} | ${(m.responseBytes / blocks / 1024).toFixed(1)} KiB | ${ms(m.fetchMs)} | ${ms(m.totalMs - m.fetchMs)} | ${ms(m.endpointBusyMs)} | ${m.preimageCount} | ${(m.totalMs / baseline).toFixed(2)} | ${runs.map((r) => r.totalMs.toFixed(0)).join(", ")} |`,
    );
  }
  for (const [strategy, runs] of byStrategy) {
    const methods = Object.entries(median(runs).requestsByMethod)
      .sort(([, a], [, b]) => b - a)
      .map(([method, n]) => `${method} ${n}`)
      .join(", ");
    console.log(`${strategy} requests: ${methods}`);
  }
}

/** Sends transfers and counter calls on L2 every 500 ms and a deposit on L1 every 10th tick until stopped. */
function startTraffic(p: ProveChain) {
  const chain = p.prover.chain;
  const l2 = defineChain({
    id: chain.node.chainId,
    name: "L2",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [chain.node.url] } },
  });
  const l2Wallet = (index: number) =>
    createWalletClient({
      account: privateKeyToAccount(devAccounts(index + 1)[index]!.privateKey),
      chain: l2,
      transport: http(chain.node.url),
    });
  const payer = l2Wallet(7);
  const caller = l2Wallet(8);
  const depositor = createWalletClient({
    account: l1Account(6),
    chain: chain.l1.anvil.chain,
    transport: http(chain.l1.anvil.rpcUrl),
  });
  const fees = { maxFeePerGas: parseGwei("50"), maxPriorityFeePerGas: parseGwei("1") };
  const counts: {
    transfers: number;
    calls: number;
    deposits: number;
    failures: number;
    firstFailure?: string;
  } = { transfers: 0, calls: 0, deposits: 0, failures: 0 };
  let stopped = false;
  const done = (async () => {
    // Nonces are counted here: a pre-confirmed receipt can come before its block is the latest one.
    let nonces = {
      payer: await chain.l2.getTransactionCount({ address: payer.account.address, blockTag: "pending" }),
      caller: await chain.l2.getTransactionCount({ address: caller.account.address, blockTag: "pending" }),
    };
    const created = await caller.sendTransaction({ data: COUNTER_INIT, nonce: nonces.caller, ...fees });
    nonces = { ...nonces, caller: nonces.caller + 1 };
    const counter = (await chain.l2.waitForTransactionReceipt({ hash: created, pollingInterval: 200 }))
      .contractAddress!;
    for (let tick = 0; !stopped; tick++) {
      const sent = await Promise.allSettled([
        payer.sendTransaction({
          to: devAccounts(10)[9]!.address,
          value: 1000n,
          nonce: nonces.payer,
          ...fees,
        }),
        caller.sendTransaction({ to: counter, data: "0x", gas: 60_000n, nonce: nonces.caller, ...fees }),
        tick % 10 === 0
          ? depositor.writeContract({
              address: chain.l1.deployment.depositPortal,
              abi: depositPortalAbi,
              functionName: "depositTransaction",
              args: [depositor.account.address, parseEther("0.01"), 100_000n, false, "0x"],
              value: parseEther("0.01"),
            })
          : Promise.resolve(undefined),
      ]);
      if (sent[0].status === "fulfilled") counts.transfers++;
      if (sent[1].status === "fulfilled") counts.calls++;
      if (tick % 10 === 0 && sent[2].status === "fulfilled") counts.deposits++;
      for (const s of sent) {
        if (s.status !== "rejected") continue;
        counts.failures++;
        counts.firstFailure ??=
          s.reason instanceof Error ? s.reason.message.split("\n")[0] : String(s.reason);
      }
      nonces = {
        payer: nonces.payer + (sent[0].status === "fulfilled" ? 1 : 0),
        caller: nonces.caller + (sent[1].status === "fulfilled" ? 1 : 0),
      };
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return {
    counts,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ranges: { type: "string" },
      "strategy-range": { type: "string", default: "10" },
      rounds: { type: "string", default: "3" },
      load: { type: "string" },
      workers: { type: "string", default: "1,2" },
      "gas-limit": { type: "string", default: "400000000" },
      "gas-per-second": { type: "string", default: "40000000" },
      senders: { type: "string", default: "128" },
      "witness-workers": { type: "string" },
      "witness-run": { type: "string" },
      "max-blocks-per-frame": { type: "string" },
      "node-witness-window": { type: "string" },
    },
  });
  const names = (text: string) => text.split(",").filter((name) => name !== "");
  const list = (text: string) => names(text).map(Number);
  if (values.load !== undefined) {
    if (values.load !== "base") throw new Error(`--load: only "base" is known, got ${values.load}`);
    await benchProveBaseLoad({
      ranges: list(values.ranges ?? "10,100,600"),
      workers: list(values.workers),
      gasLimit: BigInt(values["gas-limit"]),
      gasPerSecond: Number(values["gas-per-second"]),
      senders: Number(values.senders),
      ...(values["witness-workers"] === undefined
        ? {}
        : { witnessWorkers: Number(values["witness-workers"]) }),
      ...(values["witness-run"] === undefined ? {} : { witnessRuns: names(values["witness-run"]) }),
      ...(values["max-blocks-per-frame"] === undefined
        ? {}
        : { maxBlocksPerFrame: Number(values["max-blocks-per-frame"]) }),
      ...(values["node-witness-window"] === undefined
        ? {}
        : { nodeWitnessWindow: Number(values["node-witness-window"]) }),
    });
    return;
  }
  // `--ranges ""` skips the end-to-end ranges (the strategies' comparison only).
  const sizes = (values.ranges ?? "1,10,100")
    .split(",")
    .filter((size) => size !== "")
    .map(Number);
  const strategyBlocks = Number(values["strategy-range"]);
  const rounds = Number(values.rounds);
  const interval = (blocks: number) => (blocks >= 100 ? 10 : blocks >= 10 ? 5 : 1);
  const started = Date.now();
  const p = await startProveChain();
  const enclave = p.prover.enclave;
  if (enclave.address.kind !== "unix") throw new Error("expected a Unix socket enclave");
  const proxy = await startTamperProxy(enclave.address.path);
  try {
    const host = await p.startHostFor(proxy.path);
    const traffic = startTraffic(p);
    const head = async () => Number(await p.prover.l2.getBlockNumber());
    const first = (await head()) + 2;
    const agreed = [first];
    for (const size of sizes) agreed.push(agreed.at(-1)! + size);
    const strategyAgreed = agreed.at(-1)!;
    const last = strategyAgreed + strategyBlocks;
    await until(`L2 block ${last}`, async () => ((await head()) >= last ? true : undefined), 1_800_000);
    await traffic.stop();
    await p.prover.waitForSafe(BigInt(last), 1_800_000);
    const pid = enclave.child.pid!;
    const figures: RangeFigures[] = [];
    for (const [i, blocks] of sizes.entries()) {
      const request = await p.rangeRequest(
        agreed[i]!,
        agreed[i]! + blocks,
        interval(blocks),
        l1Account(5).address,
      );
      let transactions = 0;
      for (let n = request.agreed + 1; n <= request.claimed; n++) {
        const block = await rpc<{ transactions: unknown[] }>(p.prover.l2RpcUrl, "eth_getBlockByNumber", [
          `0x${n.toString(16)}`,
          false,
        ]);
        transactions += block.transactions.length;
      }
      const peakReset = resetPeakRss(pid);
      const logsBefore = host.logs.length;
      const exchangesBefore = proxy.exchanges.length;
      const t0 = performance.now();
      await p.prove(request, host.url);
      const totalMs = performance.now() - t0;
      const witness = host.logs.slice(logsBefore).find((line) => line.msg === "witness collected") ?? {};
      const exchange = proxy.exchanges.slice(exchangesBefore).find((e) => e.request.kind === "Prove");
      if (exchange === undefined || exchange.request.kind !== "Prove") throw new Error("no Prove frame seen");
      // The enclave's stages, replayed on the same frame with the enclave's code.
      const stages = await replayStages(exchange.request.preimages, p.prover.chain.rollup);
      figures.push({
        blocks,
        interval: interval(blocks),
        transactions,
        totalMs,
        witnessMs: Number(witness.totalMs ?? NaN),
        fetchMs: Number(witness.fetchMs ?? NaN),
        preimages: Number(witness.preimages ?? NaN),
        witnessBytes: Number(witness.witnessBytes ?? NaN),
        frameBytes: exchange.frameBytes,
        transferMs: exchange.hostFrameMs,
        enclaveRoundTripMs: exchange.enclaveMs,
        verifyMs: stages.verifyMs,
        derivationMs: stages.derivationMs,
        executionMs: stages.executionMs,
        signingMs: stages.signingMs,
        enclavePeakRssMiB: peakRssMiB(pid),
      });
      if (!peakReset)
        console.log("(the enclave's peak RSS could not be reset: figures are peaks since its start)");
    }
    const strategyRequest = await p.rangeRequest(
      strategyAgreed,
      last,
      interval(strategyBlocks),
      l1Account(5).address,
    );
    const byStrategy = await strategyRounds(p, strategyRequest, rounds);
    console.log(machineLine());
    console.log(
      `traffic while the chain ran: ${traffic.counts.transfers} transfers, ${traffic.counts.calls} contract calls, ${traffic.counts.deposits} deposits (${traffic.counts.failures} sends failed${traffic.counts.firstFailure === undefined ? "" : `, first: ${traffic.counts.firstFailure}`}); set-up and traffic ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "?");
    console.log(
      "| blocks (interval) | txs | prover_prove | witness (endpoint waits) | frame transfer | enclave round trip | verify | derive | execute | sign | witness bytes/block | preimages | enclave peak RSS |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (const f of figures) {
      console.log(
        `| ${f.blocks} (${f.interval}) | ${f.transactions} | ${ms(f.totalMs)} ms | ${ms(f.witnessMs)} ms (${ms(f.fetchMs)} ms) | ${ms(f.transferMs)} ms (${(f.frameBytes / 2 ** 20).toFixed(2)} MiB) | ${ms(f.enclaveRoundTripMs)} ms | ${ms(f.verifyMs)} ms | ${ms(f.derivationMs)} ms | ${ms(f.executionMs)} ms | ${ms(f.signingMs)} ms | ${ms(f.witnessBytes / f.blocks)} | ${f.preimages} | ${f.enclavePeakRssMiB === undefined ? "?" : `${f.enclavePeakRssMiB.toFixed(0)} MiB`} |`,
      );
    }
    console.log();
    printStrategies(byStrategy, strategyBlocks);
    console.log(`load average at the end: ${loadAverage()}`);
  } finally {
    await p.stop();
    await proxy.close();
  }
}

await main();
